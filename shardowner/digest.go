package shardowner

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// DEBUG DIGEST and DEBUG DIGEST-VALUE: a digest of the whole dataset, or of
// values, that two servers (or one before and after a reload) holding the
// same data agree on, whatever the encodings and the order their elements
// are stored in. Redis's test suites compare them around DEBUG RELOAD. The
// digest is corekv's own: sets and hashes XOR their elements' hashes, lists
// and sorted sets hash their elements in order, and a key's TTL counts.
// Each shard digests its keys; the router XORs the shards' digests
// (CombineDigest), so a key no shard holds digests to zeros, as in Redis.

// digestSize is the bytes of one digest (SHA-1).
const digestSize = sha1.Size

type digest [digestSize]byte

func (d *digest) xor(o digest) {
	for i := range d {
		d[i] ^= o[i]
	}
}

// InternalDigest: corekv.digest [key ...]. With no key, the digest of the
// shard's dataset (every database, key names, values and TTLs); with keys,
// the digest of each key's value and TTL in the client's database (zeros
// for a key the shard does not hold). The reply is one bulk string of the
// digests one after another.
func InternalDigest(c *Ctx, argv [][]byte) {
	s := c.Shard
	var out []byte
	if len(argv) == 1 {
		var all digest
		for db, t := range s.DBs {
			eachLive(t, s.Clock.Ms, func(key []byte, v Value) {
				vd := valueDigest(v)
				h := sha1.New()
				h.Write(binary.LittleEndian.AppendUint32(nil, uint32(db)))
				h.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(key))))
				h.Write(key)
				h.Write(vd[:])
				var kd digest
				h.Sum(kd[:0])
				all.xor(kd)
			})
		}
		out = all[:]
	} else {
		t := c.Table()
		for _, key := range argv[1:] {
			var d digest
			if v, ok := t.Get(key); ok {
				d = valueDigest(v)
			}
			out = append(out, d[:]...)
		}
	}
	c.W.Bulk(out)
}

// eachLive calls fn with every key of t whose TTL has not passed at now.
func eachLive(t *Table, now int64, fn func(key []byte, v Value)) {
	for cur := uint64(0); ; {
		cur = t.Scan(cur, 256, func(key []byte, v Value) {
			if v.ExpireAt == 0 || v.ExpireAt > now {
				fn(key, v)
			}
		})
		if cur == 0 {
			return
		}
	}
}

// valueDigest is the digest of v's type, contents and TTL.
func valueDigest(v Value) digest {
	h := sha1.New()
	var tmp [24]byte
	part := func(b []byte) {
		h.Write(binary.LittleEndian.AppendUint32(tmp[:0], uint32(len(b))))
		h.Write(b)
	}
	h.Write([]byte{byte(v.Kind)})
	switch v.Kind {
	case KindString:
		if v.IsInt {
			part(strconv.AppendInt(tmp[:0], v.Int, 10))
		} else {
			part(v.Str)
		}
	case KindList:
		listEach(v, 0, func(e []byte) bool {
			part(e)
			return true
		})
	case KindSet, KindHash:
		// Unordered: the XOR of each element's hash.
		var set digest
		add := func(a, b []byte) {
			var e digest
			eh := sha1.New()
			eh.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(a))))
			eh.Write(a)
			eh.Write(b)
			eh.Sum(e[:0])
			set.xor(e)
		}
		if v.Kind == KindSet {
			eachMember(v, func(m []byte) bool {
				add(m, nil)
				return true
			})
		} else {
			eachField(v, func(f []byte, val Value) bool {
				if val.IsInt {
					add(f, strconv.AppendInt(nil, val.Int, 10))
				} else {
					add(f, val.Str)
				}
				return true
			})
		}
		h.Write(set[:])
	case KindZSet:
		z := zviewOf(v)
		for pi := range z.npages() {
			body := z.page(pi)
			for off := 0; off < len(body); {
				m, score, next := zAt(body, off)
				part(m)
				h.Write(binary.LittleEndian.AppendUint64(tmp[:0], math.Float64bits(score+0))) // -0 as 0
				off = next
			}
		}
	case KindStream:
		streamEach(v, func(e streamnode.Entry) bool {
			part(streamnode.AppendID(tmp[:0], e.ID))
			p := e.Pairs()
			for f, val, ok := p.Next(); ok; f, val, ok = p.Next() {
				part(f)
				part(val)
			}
			return true
		})
	}
	if v.ExpireAt != 0 {
		h.Write(binary.LittleEndian.AppendUint64(tmp[:0], uint64(v.ExpireAt)))
	}
	var d digest
	h.Sum(d[:0])
	return d
}
