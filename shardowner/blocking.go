package shardowner

import (
	"bytes"
	"math"
	"math/big"

	"github.com/corekv/corekv/resp"
)

// The blocking commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN
// BZPOPMAX BZMPOP. Their handlers here are one attempt: pop from the first
// key that has elements, as the non-blocking command does. When none has
// and the caller may park the command (Ctx.MayBlock) the handler answers
// nothing and sets Ctx.Blocked; the router parks it in the shard's registry
// and runs it again, with Ctx.ServeKey naming the key that got elements,
// once a write creates one of its keys (Waiters). A command that may not
// block (inside MULTI, or run over keys gathered from several shards)
// answers at once as on timeout.

// Waiters is what the shard tells the router's registry of parked
// blocking commands (nil while nothing waits on the shard).
type Waiters interface {
	// Waiting reports whether commands wait for key of database db.
	Waiting(db int, key []byte) bool
	// Created is told that a write created key in database db.
	Created(db int, key []byte)
	// Swapped is told that databases a and b swapped their keys.
	Swapped(a, b int)
	// Flushed is told that database db was emptied.
	Flushed(db int)
}

const (
	errTimeoutFloat    resp.Error = "ERR timeout is not a float or out of range"
	errTimeoutNegative resp.Error = "ERR timeout is negative"
)

// BlockTimeout reads a blocking command's timeout in seconds, as Redis
// does, and returns it in milliseconds, rounded up: 0 waits for ever. A
// value too large for the milliseconds to fit in an int64 is negative to
// Redis, and so here.
func BlockTimeout(b []byte) (int64, resp.Error) {
	f, ok := resp.ParseFloat(b)
	if !ok {
		// Redis reads the timeout as a long double: a value past a
		// double's range may still be one.
		var ld big.Float
		if !parseLongDouble(ld.SetPrec(longDoubleBits), b) {
			return 0, errTimeoutFloat
		}
		switch e := ld.MantExp(nil); {
		case ld.Sign() > 0 && e < 0:
			return 1, "" // a positive sliver of a second rounds up to 1 ms
		case e < 0:
			return 0, "" // a negative sliver rounds up to 0: no timeout
		}
		return 0, errTimeoutNegative // too large for a count of ms
	}
	ms := math.Ceil(f * 1000)
	if !(ms < math.MaxInt64) || ms < 0 {
		return 0, errTimeoutNegative
	}
	return int64(ms), ""
}

// timeoutOK checks the timeout argument, answering its error.
func timeoutOK(c *Ctx, b []byte) bool {
	if _, e := BlockTimeout(b); e != "" {
		c.W.Err(e)
		return false
	}
	return true
}

// blockOrNull parks the command when the caller may, else answers the
// reply of a command that found nothing and may not wait: null for BLMOVE
// and BRPOPLPUSH, the null array for the others, as Redis does.
func blockOrNull(c *Ctx, bulk bool) {
	switch {
	case c.MayBlock:
		c.Blocked = true
	case bulk:
		c.W.Null()
	default:
		c.W.NullArray()
	}
}

// blockCandidate reports whether key, which has elements, may serve the
// attempt: when the command is served for a ready key, that key only; on
// a first attempt, a key that earlier commands do not already wait for,
// so that they are served first.
func blockCandidate(c *Ctx, key []byte) bool {
	if c.ServeKey != nil {
		return bytes.Equal(key, c.ServeKey)
	}
	return c.Shard.Waiters == nil || !c.MayBlock || !c.Shard.Waiters.Waiting(c.DB, key)
}

// blockedKind finds key's value for an attempt. A key of another type is an
// error on a first attempt; when served, it leaves the command waiting, as
// in Redis 7.0.
func blockedKind(c *Ctx, key []byte, k Kind) (v Value, found, ok bool) {
	if c.ServeKey != nil {
		v, found = c.Table().Get(key)
		return v, found && v.Kind == k, true
	}
	return getKind(c, key, k)
}

// BLPop: BLPOP key [key ...] timeout.
func BLPop(c *Ctx, argv [][]byte) { blockingPop(c, argv, true) }

// BRPop: BRPOP key [key ...] timeout.
func BRPop(c *Ctx, argv [][]byte) { blockingPop(c, argv, false) }

func blockingPop(c *Ctx, argv [][]byte, left bool) {
	if !timeoutOK(c, argv[len(argv)-1]) {
		return
	}
	for _, k := range argv[1 : len(argv)-1] {
		v, found, ok := blockedKind(c, k, KindList)
		if !ok {
			return
		}
		if !found || !blockCandidate(c, k) {
			continue
		}
		c.W.Array(2)
		c.W.Bulk(k)
		listPop(c, k, v, left, 1, func(e []byte) { c.W.Bulk(e) })
		c.NotifyRemoval(NotifyList, popEvent(left), k)
		// Replayed, a blocking pop must not wait: its plain form goes.
		c.Propagate(popWord(left), k)
		return
	}
	blockOrNull(c, false)
}

// BLMove: BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
func BLMove(c *Ctx, argv [][]byte) {
	from, ok1 := parseSide(argv[3])
	to, ok2 := parseSide(argv[4])
	if !ok1 || !ok2 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	blockingMove(c, argv[1], argv[2], from, to, argv[5])
}

// BRPopLPush: BRPOPLPUSH source destination timeout.
func BRPopLPush(c *Ctx, argv [][]byte) { blockingMove(c, argv[1], argv[2], false, true, argv[3]) }

func blockingMove(c *Ctx, src, dst []byte, from, to bool, timeout []byte) {
	if !timeoutOK(c, timeout) {
		return
	}
	if _, found, ok := blockedKind(c, src, KindList); !ok {
		return
	} else if found && blockCandidate(c, src) {
		// A destination of another type is an error even when served,
		// and the element stays in the source.
		dirty := c.Shard.Dirty
		listMove(c, src, dst, from, to)
		if c.Shard.Dirty != dirty {
			c.Propagate(wordLMove, src, dst, sideWord(from), sideWord(to))
		}
		return
	}
	blockOrNull(c, true)
}

// BLMPop: BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count].
func BLMPop(c *Ctx, argv [][]byte) {
	// Redis reads the timeout after the other arguments here.
	keys, rest, count, ok := mpopArgs(c, argv[1:], "left", "right")
	if !ok || !timeoutOK(c, argv[1]) {
		return
	}
	left := resp.EqualFold(rest, "left")
	for _, k := range keys {
		v, found, ok := blockedKind(c, k, KindList)
		if !ok {
			return
		}
		if !found || !blockCandidate(c, k) {
			continue
		}
		lmpopReply(c, k, v, left, count)
		return
	}
	blockOrNull(c, false)
}

// BZPopMin: BZPOPMIN key [key ...] timeout.
func BZPopMin(c *Ctx, argv [][]byte) { blockingZPop(c, argv, false) }

// BZPopMax: BZPOPMAX key [key ...] timeout.
func BZPopMax(c *Ctx, argv [][]byte) { blockingZPop(c, argv, true) }

func blockingZPop(c *Ctx, argv [][]byte, max bool) {
	if !timeoutOK(c, argv[len(argv)-1]) {
		return
	}
	for _, k := range argv[1 : len(argv)-1] {
		v, found, ok := blockedKind(c, k, KindZSet)
		if !ok {
			return
		}
		if !found || !blockCandidate(c, k) {
			continue
		}
		z := zviewOf(v)
		sp := zspan{0, 1}
		if max {
			sp = zspan{z.len() - 1, z.len()}
		}
		var it ziter
		it.start(z, sp.from)
		m, s := it.at()
		c.W.Array(3)
		c.W.Bulk(k)
		c.W.Bulk(m)
		writeScore(c, s)
		it.release()
		zremSpan(c, k, v, sp)
		c.NotifyRemoval(NotifyZset, zpopEvent(max), k)
		c.Propagate(zpopWord(max), k)
		return
	}
	blockOrNull(c, false)
}

// BZMPop: BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count].
func BZMPop(c *Ctx, argv [][]byte) {
	keys, side, count, ok := mpopArgs(c, argv[1:], "min", "max")
	if !ok || !timeoutOK(c, argv[1]) {
		return
	}
	max := resp.EqualFold(side, "max")
	for _, k := range keys {
		v, found, ok := blockedKind(c, k, KindZSet)
		if !ok {
			return
		}
		if !found || !blockCandidate(c, k) {
			continue
		}
		zmpopReply(c, k, v, max, count)
		return
	}
	blockOrNull(c, false)
}

// newHook returns t's OnNew: notify, then tell the registry of parked
// commands, when there is one, that the key was created.
func (s *Shard) newHook(t *Table, notify func(key []byte)) func(key []byte) {
	return func(key []byte) {
		notify(key)
		if s.Waiters == nil {
			return
		}
		// SWAPDB moves tables between databases: look t up now.
		for db, d := range s.DBs {
			if d == t {
				s.Waiters.Created(db, key)
				return
			}
		}
	}
}
