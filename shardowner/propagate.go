package shardowner

import (
	"strconv"

	"github.com/valyala/bytebufferpool"
)

// The journal's rewrites: commands that would replay differently than they
// ran say what they did instead (Ctx.Propagate), as Redis propagates them
// to its AOF and replicas. Each helper here does nothing unless the shard
// journals.

var (
	wordDel       = []byte("DEL")
	wordSet       = []byte("SET")
	wordPXAT      = []byte("PXAT")
	wordKeepTTL   = []byte("KEEPTTL")
	wordPExpireAt = []byte("PEXPIREAT")
	wordPersist   = []byte("PERSIST")
	wordHSet      = []byte("HSET")
	wordSRem      = []byte("SREM")
	wordRestore   = []byte("RESTORE")
	wordReplace   = []byte("REPLACE")
	wordAbsTTL    = []byte("ABSTTL")
	wordLPop      = []byte("LPOP")
	wordRPop      = []byte("RPOP")
	wordLMove     = []byte("LMOVE")
	wordZPopMin   = []byte("ZPOPMIN")
	wordZPopMax   = []byte("ZPOPMAX")
	wordLeft      = []byte("LEFT")
	wordRight     = []byte("RIGHT")
)

// propagateSet records SET key val with the absolute expiry the write gave
// it (0: none) for a SET, SETEX or PSETEX whose options (flags) set a TTL:
// any other replays as it was received.
func propagateSet(c *Ctx, key, val []byte, flags int, expireAt int64) {
	if !c.Journaling() || flags&optExpireMask == 0 {
		return
	}
	if expireAt == 0 {
		c.Propagate(wordSet, key, val)
		return
	}
	var n [20]byte
	c.Propagate(wordSet, key, val, wordPXAT, strconv.AppendInt(n[:0], expireAt, 10))
}

// propagateExpireAt records PEXPIREAT key at, the form of every command
// that sets a TTL.
func propagateExpireAt(c *Ctx, key []byte, at int64) {
	if !c.Journaling() {
		return
	}
	var n [20]byte
	c.Propagate(wordPExpireAt, key, strconv.AppendInt(n[:0], at, 10))
}

// propagateDel records DEL key, for a command whose effect was to delete it
// (a TTL already past).
func propagateDel(c *Ctx, key []byte) { c.Propagate(wordDel, key) }

// propagateCount records name key count, for a pop of count elements.
func propagateCount(c *Ctx, name, key []byte, count int) {
	if !c.Journaling() {
		return
	}
	var n [20]byte
	c.Propagate(name, key, strconv.AppendInt(n[:0], int64(count), 10))
}

// sideWord is LEFT or RIGHT.
func sideWord(left bool) []byte {
	if left {
		return wordLeft
	}
	return wordRight
}

// popWord is LPOP or RPOP.
func popWord(left bool) []byte {
	if left {
		return wordLPop
	}
	return wordRPop
}

// zpopWord is ZPOPMIN or ZPOPMAX.
func zpopWord(max bool) []byte {
	if max {
		return wordZPopMax
	}
	return wordZPopMin
}

// propagateValue records RESTORE key … REPLACE ABSTTL with key's value as
// it now is, for a write that put a whole value in place (RESTORE, and
// the halves of RENAME, COPY and write-backs of commands run over several
// shards): the DUMP payload Redis loads, with the absolute expiry.
func propagateValue(c *Ctx, key []byte) {
	if !c.Journaling() {
		return
	}
	v, found := c.Table().Get(key)
	if !found {
		propagateDel(c, key)
		return
	}
	b := bytebufferpool.Get()
	b.B = appendPayloadFooter(appendObject(b.B[:0], v))
	var n [20]byte
	c.Propagate(wordRestore, key, strconv.AppendInt(n[:0], v.ExpireAt, 10), b.B, wordReplace, wordAbsTTL)
	bytebufferpool.Put(b)
}
