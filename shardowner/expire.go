package shardowner

import (
	"bytes"
	"math"

	"github.com/corekv/corekv/resp"
)

// Errors of the EXPIRE family's options.
const (
	errExpireNXConflict resp.Error = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errExpireGTLT       resp.Error = "ERR GT and LT options at the same time are not compatible"
)

// Options of the EXPIRE family.
const (
	expNX = 1 << iota
	expXX
	expGT
	expLT
)

// Expire: EXPIRE key seconds [NX|XX|GT|LT].
func Expire(c *Ctx, argv [][]byte) { expireGeneric(c, argv, c.Shard.Clock.Ms, true, "expire") }

// PExpire: PEXPIRE key milliseconds [NX|XX|GT|LT].
func PExpire(c *Ctx, argv [][]byte) { expireGeneric(c, argv, c.Shard.Clock.Ms, false, "pexpire") }

// ExpireAt: EXPIREAT key unix-time-seconds [NX|XX|GT|LT].
func ExpireAt(c *Ctx, argv [][]byte) { expireGeneric(c, argv, 0, true, "expireat") }

// PExpireAt: PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT].
func PExpireAt(c *Ctx, argv [][]byte) { expireGeneric(c, argv, 0, false, "pexpireat") }

// expireGeneric serves EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: the time in
// argv[2] is in seconds when seconds is set, and relative to base (now, or 0
// for the absolute forms). A time already past deletes the key. Replies 1 when
// the TTL was set (or the key deleted), 0 when the key is missing or an option
// vetoed the change.
func expireGeneric(c *Ctx, argv [][]byte, base int64, seconds bool, name string) {
	flags := 0
	for _, a := range argv[3:] {
		switch {
		case resp.EqualFold(a, "nx"):
			flags |= expNX
		case resp.EqualFold(a, "xx"):
			flags |= expXX
		case resp.EqualFold(a, "gt"):
			flags |= expGT
		case resp.EqualFold(a, "lt"):
			flags |= expLT
		default:
			// Redis formats the option as a C string: it ends at a NUL.
			if i := bytes.IndexByte(a, 0); i >= 0 {
				a = a[:i]
			}
			c.W.Err(resp.Error("ERR Unsupported option " + string(a)))
			return
		}
	}
	if flags&expNX != 0 && flags&(expXX|expGT|expLT) != 0 {
		c.W.Err(errExpireNXConflict)
		return
	}
	if flags&expGT != 0 && flags&expLT != 0 {
		c.W.Err(errExpireGTLT)
		return
	}
	when, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.W.Err(resp.ErrInvalidExpire(name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.W.Err(resp.ErrInvalidExpire(name))
		return
	}
	when += base

	t := c.Table()
	v, found := t.Get(argv[1])
	if !found {
		c.W.Int(0)
		return
	}
	cur := v.ExpireAt // 0: no TTL, an infinite one for GT and LT
	if (flags&expNX != 0 && cur != 0) ||
		(flags&expXX != 0 && cur == 0) ||
		(flags&expGT != 0 && (cur == 0 || when <= cur)) ||
		(flags&expLT != 0 && cur != 0 && when >= cur) {
		c.W.Int(0)
		return
	}
	if when <= c.Shard.Clock.Ms {
		t.Delete(argv[1])
		c.Notify(NotifyGeneric, "del", argv[1])
		propagateDel(c, argv[1])
	} else if _, err := t.SetExpire(argv[1], when); !stored(c, err) {
		return
	} else {
		c.Notify(NotifyGeneric, "expire", argv[1])
		propagateExpireAt(c, argv[1], when)
	}
	c.W.Int(1)
}

// TTL: TTL key. Seconds left, rounded; -2 when the key is missing, -1 when it
// has no TTL.
func TTL(c *Ctx, argv [][]byte) { ttlGeneric(c, argv[1], false, false) }

// PTTL: PTTL key, in milliseconds.
func PTTL(c *Ctx, argv [][]byte) { ttlGeneric(c, argv[1], true, false) }

// ExpireTime: EXPIRETIME key, the absolute Unix time in seconds.
func ExpireTime(c *Ctx, argv [][]byte) { ttlGeneric(c, argv[1], false, true) }

// PExpireTime: PEXPIRETIME key, the absolute Unix time in milliseconds.
func PExpireTime(c *Ctx, argv [][]byte) { ttlGeneric(c, argv[1], true, true) }

func ttlGeneric(c *Ctx, key []byte, ms, abs bool) {
	v, found := peek(c.Table(), key)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
		c.W.Int(-2)
		return
	}
	if v.ExpireAt == 0 {
		c.W.Int(-1)
		return
	}
	n := v.ExpireAt
	if !abs {
		n -= c.Shard.Clock.Ms
	}
	if n < 0 {
		n = 0
	}
	if !ms {
		// Rounded to the nearest second; n+500 could overflow for a time
		// near the end of int64.
		r := n % 1000
		n /= 1000
		if r >= 500 {
			n++
		}
	}
	c.W.Int(n)
}

// Persist: PERSIST key. Replies 1 when a TTL was removed.
func Persist(c *Ctx, argv [][]byte) {
	t := c.Table()
	v, found := t.Get(argv[1])
	if !found || v.ExpireAt == 0 {
		c.W.Int(0)
		return
	}
	t.SetExpire(argv[1], 0) // dropping a TTL never needs room
	c.Notify(NotifyGeneric, "persist", argv[1])
	c.W.Int(1)
}
