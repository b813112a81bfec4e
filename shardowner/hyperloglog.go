package shardowner

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// A HyperLogLog is a plain string in Redis's own layout, so that GET, SET,
// APPEND and replication see the bytes Redis would hold:
//
//	"HYLL" | encoding (0 dense, 1 sparse) | 3 unused | cached cardinality,
//	8 bytes little endian, the top bit of the last marking it stale
//
// then either 16384 six-bit registers packed little end first (dense), or
// runs of registers (sparse): ZERO 00xxxxxx (1..64 zeros), XZERO 01xxxxxx
// yyyyyyyy (1..16384 zeros), VAL 1vvvvvxx (1..4 registers of value 1..32).
// The sparse form is rewritten exactly as Redis rewrites it, run split and
// neighbours merged the same way, since clients and replicas see its bytes.
const (
	hllP           = 14
	hllQ           = 64 - hllP
	hllRegisters   = 1 << hllP
	hllHdrSize     = 16
	hllDenseSize   = hllHdrSize + (hllRegisters*6+7)/8
	hllDense       = 0
	hllSparse      = 1
	hllCardStale   = 0x80 // in the cardinality's last byte
	hllSparseMaxV  = 32
	hllSparseMaxVL = 4
	hllZeroMaxLen  = 64
	hllXZeroMaxLen = 16384
	hllAlphaInf    = 0.721347520444481703680 // 0.5/ln(2)
	hllHashSeed    = 0xadc83b19
)

// HyperLogLog errors, in Redis's words.
const (
	errHLLType    resp.Error = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errHLLCorrupt resp.Error = "INVALIDOBJ Corrupted HLL object detected"
	errHLLNoKey   resp.Error = "ERR The specified key does not exist"
	errHLLDecode  resp.Error = "ERR HLL encoding is not sparse"
)

// hllPool holds copies of HLL values being rewritten and merge registers.
var hllPool bytebufferpool.Pool

// hllEmpty is a new HLL: sparse, every register in one XZERO, a valid
// cached cardinality of 0.
var hllEmpty = []byte{'H', 'Y', 'L', 'L', hllSparse, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xff}

// murmur64A is MurmurHash64A, reading the blocks little endian, as Redis
// hashes HLL elements.
func murmur64A(key []byte, seed uint64) uint64 {
	const m, r = 0xc6a4a7935bd1e995, 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen is the register an element falls into and the value it offers:
// one more than the zeros below the lowest set bit of the hash's rest, at
// most hllQ+1.
func hllPatLen(ele []byte) (index int, count uint8) {
	h := murmur64A(ele, hllHashSeed)
	index = int(h & (hllRegisters - 1))
	h = h>>hllP | 1<<hllQ
	return index, uint8(bits.TrailingZeros64(h) + 1)
}

// denseGet reads register i of packed registers r.
func denseGet(r []byte, i int) uint8 {
	b, fb := i*6/8, uint(i*6&7)
	v := uint(r[b]) >> fb
	if b+1 < len(r) {
		v |= uint(r[b+1]) << (8 - fb)
	}
	return uint8(v & 63)
}

// denseSet writes register i of packed registers r.
func denseSet(r []byte, i int, val uint8) {
	b := i * 6 / 8
	denseSetAt(r[b:], uint(i*6&7), val)
}

// denseSetAt writes a register that starts at bit fb of r[0].
func denseSetAt(r []byte, fb uint, val uint8) {
	r[0] = r[0]&^byte(63<<fb) | val<<fb
	if len(r) > 1 {
		r[1] = r[1]&^byte(63>>(8-fb)) | val>>(8-fb)
	}
}

// hllValid is Redis's check that a string may be used as an HLL. Sparse
// runs are checked only as they are read.
func hllValid(s []byte) bool {
	return len(s) >= hllHdrSize && s[0] == 'H' && s[1] == 'Y' && s[2] == 'L' && s[3] == 'L' &&
		s[4] <= hllSparse && (s[4] != hllDense || len(s) == hllDenseSize)
}

// hllLookup reads key for an HLL command: found is false for a missing key;
// ok is false, with the error written, for a value that is not an HLL.
// read counts the lookup and publishes a miss, as Redis's read lookups do.
func hllLookup(c *Ctx, key []byte, read bool) (s []byte, found, ok bool) {
	v, found := c.Table().Get(key)
	if read {
		c.Shard.Stats.countLookup(found)
		if !found {
			c.Notify(NotifyKeyMiss, "keymiss", key)
		}
	}
	if !found {
		return nil, false, true
	}
	if v.Kind != KindString {
		c.W.Err(resp.ErrWrongType)
		return nil, true, false
	}
	if v.IsInt || !hllValid(v.Str) {
		c.W.Err(errHLLType)
		return nil, true, false
	}
	return v.Str, true, true
}

// sparseOp decodes the sparse opcode at s[p]: its registers, value and
// length in bytes. An XZERO cut short by the end reads its second byte as
// zero, as Redis reads the terminator past a string's end.
func sparseOp(s []byte, p int) (run, val, oplen int) {
	switch op := s[p]; {
	case op&0xc0 == 0:
		return int(op&0x3f) + 1, 0, 1
	case op&0xc0 == 0x40:
		lo := 0
		if p+1 < len(s) {
			lo = int(s[p+1])
		}
		return int(op&0x3f)<<8 | lo + 1, 0, 2
	default:
		return int(op&3) + 1, int(op>>2&0x1f) + 1, 1
	}
}

func sparseVal(val, run int) byte { return byte((val-1)<<2|(run-1)) | 0x80 }

// appendZeros appends a ZERO, or an XZERO past ZERO's reach, of n registers.
func appendZeros(dst []byte, n int) []byte {
	if n > hllZeroMaxLen {
		return append(dst, byte((n-1)>>8)|0x40, byte(n-1))
	}
	return append(dst, byte(n-1))
}

// sparseToDense appends to dst the dense form of the sparse HLL s, with its
// header. ok is false when the runs do not cover the registers exactly.
func sparseToDense(dst, s []byte) ([]byte, bool) {
	start := len(dst)
	dst = append(dst, s[:hllHdrSize]...)
	dst = append(dst, make([]byte, hllDenseSize-hllHdrSize)...)
	d := dst[start:]
	d[4] = hllDense
	regs := d[hllHdrSize:]
	idx := 0
	for p := hllHdrSize; p < len(s); {
		run, val, oplen := sparseOp(s, p)
		p += oplen
		if val != 0 {
			if idx+run > hllRegisters {
				return dst, false // a value past the last register: corrupt
			}
			for ; run > 0; run-- {
				denseSet(regs, idx, uint8(val))
				idx++
			}
		} else {
			idx += run
		}
	}
	return dst, idx == hllRegisters
}

// hllEdit is an HLL being rewritten. A sparse value SET by a client may
// run on past the runs that cover the registers; no update reaches that far
// (hllMargin), so such a tail stays where it is, in rest, and is not moved
// at every update: Redis's result, without the time it costs.
type hllEdit struct {
	b, tmp *bytebufferpool.ByteBuffer // the value up to rest; scratch
	rest   []byte
}

// hllMargin is more than one update of sparse runs reads or moves past the
// opcode that covers the last register.
const hllMargin = 32

func newHLLEdit(s []byte) hllEdit {
	e := hllEdit{b: hllPool.Get(), tmp: hllPool.Get()}
	cut := len(s)
	// Below the dense size, moving a tail costs no more than a dense
	// update's copy would, and the walk is not worth it.
	if s[4] == hllSparse && len(s) > hllDenseSize {
		cut = min(cut, sparseCoverEnd(s)+hllMargin)
	}
	e.b.B = append(e.b.B[:0], s[:cut]...)
	e.rest = s[cut:]
	return e
}

// value is the whole value, rest appended; it ends the edit.
func (e *hllEdit) value() []byte {
	e.b.B = append(e.b.B, e.rest...)
	e.rest = nil
	return e.b.B
}

func (e *hllEdit) release() {
	hllPool.Put(e.b)
	hllPool.Put(e.tmp)
}

// sparseCoverEnd is the offset just past the opcode of s that covers the
// last register, or len(s) when none does.
func sparseCoverEnd(s []byte) int {
	idx := 0
	for p := hllHdrSize; p < len(s); {
		run, _, oplen := sparseOp(s, p)
		idx += run
		p += oplen
		if idx >= hllRegisters {
			return min(p, len(s))
		}
	}
	return len(s)
}

// set is hllSet with at least hllMargin bytes of the value past the
// covering opcode in hand.
func (e *hllEdit) set(index int, count uint8, maxBytes int64) int {
	if len(e.rest) > 0 && e.b.B[4] == hllSparse && len(e.b.B)-sparseCoverEnd(e.b.B) < hllMargin {
		k := min(len(e.rest), hllMargin)
		e.b.B = append(e.b.B, e.rest[:k]...)
		e.rest = e.rest[k:]
	}
	return hllSet(e, index, count, maxBytes)
}

// hllSet raises register index of the HLL in e to count, sparse or dense,
// as Redis's hllSparseSet and hllDenseSet do: 1 when it changed, 0 when it
// held as much, -1 when the sparse runs are corrupt. A sparse HLL turns
// dense when count is past what a VAL holds or the runs would pass
// maxBytes.
func hllSet(e *hllEdit, index int, count uint8, maxBytes int64) int {
	s := e.b.B
	if s[4] == hllDense {
		return hllDenseRaise(s[hllHdrSize:], index, count)
	}
	if count > hllSparseMaxV {
		return hllPromote(e, index, count)
	}
	// Find the opcode covering index, and the one before it.
	first, span, prev, p := 0, 0, -1, hllHdrSize
	for p < len(s) {
		var oplen int
		span, _, oplen = sparseOp(s, p)
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= len(s) {
		return -1
	}
	run, val, oplen := sparseOp(s, p)
	switch {
	case val != 0 && val >= int(count):
		return 0
	case run == 1 && oplen == 1:
		// A lone register, zero or not, takes the new value in place.
		s[p] = sparseVal(int(count), 1)
	default:
		// Split the run into what comes before index, index, and after.
		var seq [5]byte
		n := seq[:0]
		last := first + run - 1
		if val == 0 {
			if index != first {
				n = appendZeros(n, index-first)
			}
			n = append(n, sparseVal(int(count), 1))
			if index != last {
				n = appendZeros(n, last-index)
			}
		} else {
			if index != first {
				n = append(n, sparseVal(val, index-first))
			}
			n = append(n, sparseVal(int(count), 1))
			if index != last {
				n = append(n, sparseVal(val, last-index))
			}
		}
		delta := len(n) - oplen
		if delta > 0 && int64(len(s)+len(e.rest)+delta) > maxBytes {
			return hllPromote(e, index, count)
		}
		// The tail moves first, then the runs go in. An XZERO cut short
		// by the end leaves the value delta longer, as in Redis, which
		// may drop the last byte of the runs.
		oldLen, tail := len(s), min(p+oplen, len(s))
		if delta > 0 {
			s = append(s, n[:delta]...)
		}
		if tail < oldLen {
			copy(s[p+len(n):], s[tail:oldLen])
		}
		s = s[:oldLen+delta]
		copy(s[p:], n)
	}
	// Merge equal neighbouring VALs around the change, five opcodes at most.
	if prev < 0 {
		p = hllHdrSize
	} else {
		p = prev
	}
	for scan := 5; p < len(s) && scan > 0; scan-- {
		if s[p]&0x80 == 0 {
			_, _, oplen := sparseOp(s, p)
			p += oplen
			continue
		}
		if p+1 < len(s) && s[p+1]&0x80 != 0 {
			r1, v1, _ := sparseOp(s, p)
			r2, v2, _ := sparseOp(s, p+1)
			if v1 == v2 && r1+r2 <= hllSparseMaxVL {
				s[p+1] = sparseVal(v1, r1+r2)
				s = append(s[:p], s[p+1:]...)
				continue
			}
		}
		p++
	}
	e.b.B = s
	return 1
}

// hllDenseRaise sets register index of regs to count when that is more.
func hllDenseRaise(regs []byte, index int, count uint8) int {
	if denseGet(regs, index) >= count {
		return 0
	}
	denseSet(regs, index, count)
	return 1
}

// hllPromote turns the sparse HLL in e dense, then sets the register.
func hllPromote(e *hllEdit, index int, count uint8) int {
	e.value()
	d, ok := sparseToDense(e.tmp.B[:0], e.b.B)
	if !ok {
		return -1
	}
	e.tmp.B, e.b.B = e.b.B, d
	return hllDenseRaise(e.b.B[hllHdrSize:], index, count)
}

// hllHisto counts the registers of the HLL s by value; invalid reports
// sparse runs that do not cover the registers exactly.
func hllHisto(s []byte, h *[64]int) (invalid bool) {
	if s[4] == hllDense {
		regs := s[hllHdrSize:]
		for i := range hllRegisters {
			h[denseGet(regs, i)]++
		}
		return false
	}
	idx := 0
	for p := hllHdrSize; p < len(s); {
		run, val, oplen := sparseOp(s, p)
		idx += run
		h[val] += run
		p += oplen
	}
	return idx != hllRegisters
}

// hllTau and hllSigma are the corrections of Ertl's estimator, which Redis
// uses; the float64 conversions keep each step rounded on its own, as C
// computes it, so that estimates match Redis's to the bit.
func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zp == z {
			return z / 3
		}
	}
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zp := z
		z += float64(x * y)
		y += y
		if zp == z {
			return z
		}
	}
}

// hllEstimate is the cardinality of registers counted by value.
func hllEstimate(h *[64]int) uint64 {
	const m = float64(hllRegisters)
	z := float64(m * hllTau((m-float64(h[hllQ+1]))/m))
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(h[0])/m))
	return uint64(math.Round(hllAlphaInf * m * m / z))
}

// hllMerge raises each of the 16384 registers in max to the HLL s's; ok is
// false for sparse runs that do not cover the registers exactly.
func hllMerge(max, s []byte) bool {
	if s[4] == hllDense {
		regs := s[hllHdrSize:]
		for i := range hllRegisters {
			if v := denseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	idx := 0
	for p := hllHdrSize; p < len(s); {
		run, val, oplen := sparseOp(s, p)
		p += oplen
		if val == 0 {
			idx += run
			continue
		}
		if idx+run > hllRegisters {
			return false // a value past the last register: corrupt
		}
		for ; run > 0; run-- {
			if uint8(val) > max[idx] {
				max[idx] = uint8(val)
			}
			idx++
		}
	}
	return idx == hllRegisters
}

// hllStore writes the rewritten HLL s back under key: in place when it
// fits, else as a new value keeping the key's TTL.
func hllStore(c *Ctx, key, old, s []byte) bool {
	t := c.Table()
	if t.Splice(key, 0, len(old), s) {
		return true
	}
	v, _ := t.Get(key)
	return stored(c, t.SetVerbatim(key, s, v.ExpireAt, true))
}

func (c *Ctx) hllMaxBytes() int64 { return c.Shard.Enc.HLLSparseMaxBytes.Load() }

// PFAdd: PFADD key [element ...]. Replies 1 when the key was created or a
// register changed.
func PFAdd(c *Ctx, argv [][]byte) {
	key := argv[1]
	s, found, ok := hllLookup(c, key, false)
	if !ok {
		return
	}
	t := c.Table()
	updated := false
	if !found {
		if !stored(c, t.SetVerbatim(key, hllEmpty, 0, true)) {
			return
		}
		v, _ := t.Get(key)
		s, updated = v.Str, true
	}
	if s[4] == hllDense {
		// Registers change in place, two bytes at most each.
		regs := s[hllHdrSize:]
		for _, e := range argv[2:] {
			i, n := hllPatLen(e)
			if denseGet(regs, i) >= n {
				continue
			}
			b := i * 6 / 8
			var nb [2]byte
			w := nb[:copy(nb[:], regs[b:min(b+2, len(regs))])]
			denseSetAt(w, uint(i*6&7), n)
			t.Splice(key, hllHdrSize+b, len(w), w)
			updated = true
		}
	} else {
		e := newHLLEdit(s)
		defer e.release()
		maxBytes := c.hllMaxBytes()
		corrupt := false
		for _, ele := range argv[2:] {
			i, n := hllPatLen(ele)
			r := e.set(i, n, maxBytes)
			if r < 0 {
				corrupt = true
				break
			}
			updated = updated || r == 1
		}
		if updated && !corrupt {
			e.b.B[hllHdrSize-1] |= hllCardStale
		}
		// Redis unshares the string whether or not a register changes.
		if !updated {
			t.MarkGrown(key)
		} else if !hllStore(c, key, s, e.value()) {
			return
		}
		if corrupt {
			c.W.Err(errHLLCorrupt)
			return
		}
	}
	if updated {
		if s[4] == hllDense {
			stale := [1]byte{s[hllHdrSize-1] | hllCardStale}
			t.Splice(key, hllHdrSize-1, 1, stale[:])
		}
		c.Notify(NotifyString, "pfadd", key)
	}
	c.W.Int(b2i(updated))
}

// PFCount: PFCOUNT key [key ...]. One key answers its cached cardinality,
// computing and caching it when stale; several are merged into scratch
// registers and nothing is written.
func PFCount(c *Ctx, argv [][]byte) {
	if len(argv) > 2 {
		pfCountMany(c, argv[1:])
		return
	}
	key := argv[1]
	s, found, ok := hllLookup(c, key, true)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	t := c.Table()
	if s[hllHdrSize-1]&hllCardStale == 0 {
		// Redis unshares the string before it reads the cache.
		t.MarkGrown(key)
		c.W.Int(int64(binary.LittleEndian.Uint64(s[8:hllHdrSize])))
		return
	}
	var h [64]int
	if hllHisto(s, &h) {
		c.W.Err(errHLLCorrupt)
		return
	}
	card := hllEstimate(&h)
	var cb [8]byte
	binary.LittleEndian.PutUint64(cb[:], card)
	t.Splice(key, 8, 8, cb[:])
	c.Changed() // the cache is part of the value, and replays as PFCOUNT
	c.W.Int(int64(card))
}

func pfCountMany(c *Ctx, keys [][]byte) {
	b := hllPool.Get()
	defer hllPool.Put(b)
	b.B = append(b.B[:0], make([]byte, hllRegisters)...)
	for _, k := range keys {
		s, found, ok := hllLookup(c, k, true)
		if !ok {
			return
		}
		if found && !hllMerge(b.B, s) {
			c.W.Err(errHLLCorrupt)
			return
		}
	}
	var h [64]int
	for _, v := range b.B {
		h[v]++
	}
	c.W.Int(int64(hllEstimate(&h)))
}

// PFMerge: PFMERGE destkey [sourcekey ...]. The destination, itself one of
// the sources, takes the greatest of each register; it turns dense when a
// source is dense, as in Redis 7.0. Published as "pfadd", as Redis does.
func PFMerge(c *Ctx, argv [][]byte) {
	regs := hllPool.Get()
	defer hllPool.Put(regs)
	regs.B = append(regs.B[:0], make([]byte, hllRegisters)...)
	useDense := false
	for _, k := range argv[1:] {
		s, found, ok := hllLookup(c, k, true)
		if !ok {
			return
		}
		if !found {
			continue
		}
		useDense = useDense || s[4] == hllDense
		if !hllMerge(regs.B, s) {
			c.W.Err(errHLLCorrupt)
			return
		}
	}
	key := argv[1]
	v, found := c.Table().Get(key)
	old := hllEmpty
	if found {
		old = v.Str
	}
	e := newHLLEdit(old)
	defer e.release()
	if useDense && e.b.B[4] == hllSparse {
		e.value()
		var ok bool
		if e.tmp.B, ok = sparseToDense(e.tmp.B[:0], e.b.B); !ok {
			c.W.Err(errHLLCorrupt)
			return
		}
		e.b.B, e.tmp.B = e.tmp.B, e.b.B
	}
	maxBytes := c.hllMaxBytes()
	for i, n := range regs.B {
		if n == 0 {
			continue
		}
		if e.b.B[4] == hllDense {
			denseSet(e.b.B[hllHdrSize:], i, n)
		} else {
			e.set(i, n, maxBytes)
		}
	}
	nv := e.value()
	nv[hllHdrSize-1] |= hllCardStale
	if found {
		if !hllStore(c, key, old, nv) {
			return
		}
	} else if !stored(c, c.Table().SetVerbatim(key, nv, 0, true)) {
		return
	}
	c.Notify(NotifyString, "pfadd", key)
	c.W.OK()
}

// PFDebug: PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. GETREG and TODENSE
// leave a sparse HLL dense, as in Redis: the same registers in another
// layout, which WATCH does not see.
func PFDebug(c *Ctx, argv [][]byte) {
	key := argv[2]
	s, found, ok := hllLookup(c, key, false)
	if !ok {
		return
	}
	if !found {
		c.W.Err(errHLLNoKey)
		return
	}
	c.Table().MarkGrown(key)
	toDense := func() bool {
		if s[4] == hllDense {
			return true
		}
		b := hllPool.Get()
		defer hllPool.Put(b)
		var ok bool
		if b.B, ok = sparseToDense(b.B[:0], s); !ok {
			c.W.Err(errHLLCorrupt)
			return false
		}
		t := c.Table()
		w := t.Watching()
		t.SetWatcher(nil)
		stored := hllStore(c, key, s, b.B)
		t.SetWatcher(w)
		if !stored {
			return false
		}
		v, _ := t.Get(key)
		s = v.Str
		return true
	}
	switch sub := argv[1]; {
	case bytes.EqualFold(sub, []byte("getreg")):
		if !toDense() {
			return
		}
		c.W.Array(hllRegisters)
		for i := range hllRegisters {
			c.W.Int(int64(denseGet(s[hllHdrSize:], i)))
		}
	case bytes.EqualFold(sub, []byte("decode")):
		if s[4] != hllSparse {
			c.W.Err(errHLLDecode)
			return
		}
		out := hllPool.Get()
		defer hllPool.Put(out)
		out.B = out.B[:0]
		for p := hllHdrSize; p < len(s); {
			run, val, oplen := sparseOp(s, p)
			if len(out.B) > 0 {
				out.B = append(out.B, ' ')
			}
			switch {
			case val != 0:
				out.B = append(out.B, "v:"...)
				out.B = strconv.AppendInt(out.B, int64(val), 10)
				out.B = append(out.B, ',')
			case oplen == 2:
				out.B = append(out.B, "Z:"...)
			default:
				out.B = append(out.B, "z:"...)
			}
			out.B = strconv.AppendInt(out.B, int64(run), 10)
			p += oplen
		}
		c.W.Bulk(out.B)
	case bytes.EqualFold(sub, []byte("encoding")):
		if s[4] == hllDense {
			c.W.Simple("dense")
		} else {
			c.W.Simple("sparse")
		}
	case bytes.EqualFold(sub, []byte("todense")):
		conv := s[4] == hllSparse
		if !toDense() {
			return
		}
		c.W.Int(b2i(conv))
	default:
		c.W.Err(resp.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'"))
	}
}

// PFSelfTest: PFSELFTEST. Checks this implementation against itself: the
// packed registers read back as written, and a sparse HLL fed the same
// elements as a dense one holds the same registers and estimate.
func PFSelfTest(c *Ctx, argv [][]byte) {
	if err := hllSelfTest(); err != "" {
		c.W.Err(resp.Error("TESTFAILED " + err))
		return
	}
	c.W.OK()
}

func hllSelfTest() string {
	regs := make([]byte, hllDenseSize-hllHdrSize)
	for i := range hllRegisters {
		denseSet(regs, i, uint8(i*7%64))
	}
	for i := range hllRegisters {
		if denseGet(regs, i) != uint8(i*7%64) {
			return "Register error at " + strconv.Itoa(i)
		}
	}
	d, _ := sparseToDense(nil, hllEmpty)
	sparse, dense := newHLLEdit(hllEmpty), newHLLEdit(d)
	defer sparse.release()
	defer dense.release()
	var ele [8]byte
	for i := range 3000 {
		binary.LittleEndian.PutUint64(ele[:], uint64(i)*0x9e3779b97f4a7c15)
		idx, n := hllPatLen(ele[:])
		rs := sparse.set(idx, n, math.MaxInt64)
		rd := dense.set(idx, n, math.MaxInt64)
		if rs != rd {
			return "Sparse and dense disagree on a change at element " + strconv.Itoa(i)
		}
	}
	got, ok := sparseToDense(nil, sparse.value())
	if !ok || !bytes.Equal(got[hllHdrSize:], dense.value()[hllHdrSize:]) {
		return "Sparse and dense registers differ"
	}
	var hs, hd [64]int
	if hllHisto(sparse.b.B, &hs) || hllHisto(dense.b.B, &hd) || hllEstimate(&hs) != hllEstimate(&hd) {
		return "Sparse and dense estimates differ"
	}
	return ""
}
