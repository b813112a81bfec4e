package shardowner

import (
	"bytes"
	"slices"
	"strconv"
	"unsafe"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// LCS errors, in Redis's words.
const (
	errLCSType     resp.Error = "ERR The specified keys must contain string values"
	errLCSLenIdx   resp.Error = "ERR If you want both the length and indexes, please just use IDX."
	errLCSTooLarge resp.Error = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// lcsPool holds the LCS tables apart from the other scratch buffers, whose
// sizes they would otherwise skew.
var lcsPool bytebufferpool.Pool

// LCS: LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN].
// Missing keys read as empty strings. The table of (len1+1)*(len2+1) 32-bit
// cells is refused beyond proto-max-bulk-len bytes, as Redis refuses it, so
// one call's memory and time stay bounded.
func LCS(c *Ctx, argv [][]byte) {
	va, fa := lcsLookup(c, argv[1])
	vb, fb := lcsLookup(c, argv[2])
	if (fa && va.Kind != KindString) || (fb && vb.Kind != KindString) {
		c.W.Err(errLCSType)
		return
	}
	var ta, tb [20]byte
	var a, b []byte
	if fa {
		a = stringBytes(va, &ta)
	}
	if fb {
		b = stringBytes(vb, &tb)
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for i := 3; i < len(argv); i++ {
		switch opt := argv[i]; {
		case bytes.EqualFold(opt, []byte("IDX")):
			getIdx = true
		case bytes.EqualFold(opt, []byte("LEN")):
			getLen = true
		case bytes.EqualFold(opt, []byte("WITHMATCHLEN")):
			withLen = true
		case bytes.EqualFold(opt, []byte("MINMATCHLEN")) && i+1 < len(argv):
			n, ok := resp.ParseInt(argv[i+1])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			minLen = max(n, 0)
			i++
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.W.Err(errLCSLenIdx)
		return
	}
	cells := uint64(len(a)+1) * uint64(len(b)+1)
	if cells*4 > resp.MaxBulkLen {
		c.W.Err(errLCSTooLarge)
		return
	}
	buf := lcsPool.Get()
	defer lcsPool.Put(buf)
	buf.B = slices.Grow(buf.B[:0], int(cells*4))[:cells*4]
	t := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(buf.B))), cells)
	lcsTable(a, b, t)
	total := t[cells-1]
	switch {
	case getLen:
		c.W.Int(int64(total))
	case getIdx:
		c.W.Map(2)
		c.W.BulkString("matches")
		n := 0
		lcsWalk(a, b, t, nil, minLen, func(_, _, _, _ int) { n++ })
		c.W.Array(n)
		lcsWalk(a, b, t, nil, minLen, func(as, ae, bs, be int) {
			if withLen {
				c.W.Array(3)
			} else {
				c.W.Array(2)
			}
			c.W.Array(2)
			c.W.Int(int64(as))
			c.W.Int(int64(ae))
			c.W.Array(2)
			c.W.Int(int64(bs))
			c.W.Int(int64(be))
			if withLen {
				c.W.Int(int64(ae - as + 1))
			}
		})
		c.W.BulkString("len")
		c.W.Int(int64(total))
	default:
		// The common subsequence is written straight into the reply.
		c.W.B = append(c.W.B, '$')
		c.W.B = strconv.AppendUint(c.W.B, uint64(total), 10)
		c.W.B = append(c.W.B, '\r', '\n')
		start := len(c.W.B)
		c.W.B = slices.Grow(c.W.B, int(total)+2)[:start+int(total)]
		lcsWalk(a, b, t, c.W.B[start:], 0, func(_, _, _, _ int) {})
		c.W.B = append(c.W.B, '\r', '\n')
	}
}

// lcsLookup reads one of LCS's keys: a read, with its hit or miss counted
// and a miss published, whatever the key holds.
func lcsLookup(c *Ctx, key []byte) (Value, bool) {
	v, found := c.Table().Get(key)
	c.Shard.Stats.countLookup(found)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
	}
	return v, found
}

// lcsTable fills t, row-major with len(b)+1 columns, with the length of the
// longest common subsequence of every pair of prefixes of a and b.
func lcsTable(a, b []byte, t []uint32) {
	w := len(b) + 1
	clear(t[:w])
	for i := 1; i <= len(a); i++ {
		prev, cur := t[(i-1)*w:i*w], t[i*w:(i+1)*w]
		cur[0] = 0
		ai := a[i-1]
		for j := 1; j < w; j++ {
			switch {
			case ai == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
	}
}

// lcsWalk goes back through t from its last cell, as Redis does (up on a
// strict gain, else left), filling out, when given, with the common
// subsequence, and calls match for each run of matched bytes, last first,
// of at least minLen bytes: its first and last offsets in a, then in b.
func lcsWalk(a, b []byte, t []uint32, out []byte, minLen int64, match func(as, ae, bs, be int)) {
	w := len(b) + 1
	i, j := len(a), len(b)
	n := len(out)
	open := false
	var as, ae, bs, be int
	for i > 0 && j > 0 {
		end := false
		if a[i-1] == b[j-1] {
			if out != nil {
				out[n-1] = a[i-1]
				n--
			}
			// A run ends at every step that is not a match, so a match
			// extends the open run backwards.
			if !open {
				open = true
				as, ae, bs, be = i-1, i-1, j-1, j-1
			} else {
				as--
				bs--
			}
			end = as == 0 || bs == 0
			i--
			j--
		} else {
			if t[(i-1)*w+j] > t[i*w+j-1] {
				i--
			} else {
				j--
			}
			end = open
		}
		if end {
			if int64(ae-as+1) >= minLen {
				match(as, ae, bs, be)
			}
			open = false
		}
	}
}
