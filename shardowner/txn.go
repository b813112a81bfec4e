package shardowner

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/journal"
)

// The handlers in this file are the shard-side replies of a transaction's
// lock requests (router.Txn) and SWAPDB. Taking and releasing the keys is
// the router's (router.Locks); what the shard adds is whether a key the
// client WATCHes here was touched since, read at the moment the keys are
// held, so that nothing can touch them between the check and the
// transaction's commands.
//
//	corekv.lock client [db key ...]   :1 when a key client watches here was touched, else :0
//	corekv.unlock client [seq id parts]  +OK

// InternalLock: corekv.lock client [db key ...].
func InternalLock(c *Ctx, argv [][]byte) {
	client, _ := resp.ParseInt(argv[1])
	if c.Shard.WatchTouched(client) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// InternalOK answers the shard-to-shard commands the loop runs itself
// (corekv.bwait, corekv.bcancel) should they ever reach a handler.
func InternalOK(c *Ctx, argv [][]byte) { c.W.OK() }

// InternalUnlock: corekv.unlock client [seq id parts]. The locks are the
// router's; here the transaction's part of the shard's journal closes, as
// part of parts of transaction id (router.Txn.Writes).
func InternalUnlock(c *Ctx, argv [][]byte) {
	if j := c.Shard.Journal; j != nil && len(argv) == 5 {
		client, _ := resp.ParseInt(argv[1])
		seq, _ := resp.ParseInt(argv[2])
		id, _ := resp.ParseInt(argv[3])
		parts, _ := resp.ParseInt(argv[4])
		j.EndTx(journal.Owner{Client: client, Seq: uint8(seq)}, uint64(id), int(parts))
	}
	c.W.OK()
}

// SwapDB: SWAPDB index1 index2. Every shard swaps its two tables; the
// router runs it on all shards at one instant.
func SwapDB(c *Ctx, argv [][]byte) {
	a, ok := resp.ParseInt(argv[1])
	if !ok {
		c.W.Err("ERR invalid first DB index")
		return
	}
	b, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err("ERR invalid second DB index")
		return
	}
	n := int64(len(c.Shard.DBs))
	if a < 0 || a >= n || b < 0 || b >= n {
		c.W.Err(resp.ErrDBIndex)
		return
	}
	c.Shard.SwapDB(int(a), int(b))
	c.W.OK()
}
