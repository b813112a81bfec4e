package kvtable

import (
	"bytes"
	"errors"
	"hash/maphash"
	"math/bits"
	"runtime"
	"unsafe"
)

// Clock is the shard's notion of now, in Unix milliseconds. The shard loop
// sets it once per turn; the table reads it to decide expiry.
type Clock struct {
	Ms int64
}

// Kind is the type of the value an entry holds, as TYPE names it.
type Kind uint8

// Kinds of value.
const (
	KindNone Kind = iota
	KindString
	KindHash
	KindSet
	KindList
	KindZSet
	KindStream
)

// Value is an entry as handlers see it.
//
// Str aliases table memory: it is valid only until the next write to the
// table (any Set…, WriteAt, Append, AddInt, Delete, Clear, ActiveExpire). Get, Exists, Scan and RandomKey never move another key's
// bytes, so values read one after another stay valid together. Its capacity
// is its length, so an append copies rather than writing into the table.
type Value struct {
	Kind     Kind
	Str      []byte // the string when !IsInt
	Int      int64  // the value when IsInt
	IsInt    bool   // string stored as a 64-bit integer (Redis's "int" encoding)
	ExpireAt int64  // absolute Unix ms; 0 means no TTL
	Verbatim bool   // string stored as given, never integer-encoded (SetVerbatim)
	Grown    bool   // string built by APPEND or SETRANGE (SetVerbatim with grown set)
	Unshared bool   // integer that is its own object, never a shared one (SetUnsharedInt)

	// An aggregate (hash, set) is either packed, its elements one byte
	// string in Str (SetPacked), or big, a table of its own in Big (SetBig).
	Big    *Table
	IntSet bool // a packed set of integers (Redis's "intset")
}

const (
	// rehashPerOp is how many non-empty buckets each operation migrates
	// while the index is being resized.
	rehashPerOp = 2
	// rehashPerTick is the same for each Tick.
	rehashPerTick = 256
	hashHigh      = 0xffffffff_00000000
)

var seed = maphash.MakeSeed()

// Table maps keys to values for one database of one shard. It is owned by
// one goroutine and does no locking.
//
// The memory it holds per key is in byte pages and uint64 arrays, none of
// which contains a Go pointer, so the garbage collector never scans it.
type Table struct {
	clock     *Clock
	ix        [2]index // ix[1] is in use only while rehashing
	rehashIdx int      // next bucket of ix[0] to migrate; -1 when not rehashing
	scanning  int      // Scans calling back, and Freeze: lookups then leave a resize where it is
	frozen    int      // Freeze: no resize starts either (walk.go)
	ar        arena
	exp       wheel
	expired   uint64 // keys deleted because they expired
	// KeepExpired: a read finds an expired key missing but leaves it in
	// place (CLIENT PAUSE holds deletions back with writes).
	KeepExpired bool

	// objs holds the big aggregates of entries with the obj encoding;
	// objFree lists its unused positions.
	objs    []*Table
	objFree []uint32
	objTick int // the last of objs that Tick looked after

	// Order, on the table of a big sorted set, holds its members in score
	// order; its pages go with the table.
	Order *Order
	// List, on the table of a big list, is its index (see listnode.go).
	List []byte

	// lastRaw is the raw string that Insert, Splice, WriteAt or RawString
	// found last, which the next of them on the same key (pushes and pops at one
	// end node of a list) finds without a lookup while no item has been
	// freed since.
	lastRaw struct {
		w     uint64 // slot word; 0: none
		frees uint64 // ar.frees when w was taken
		n     int
		key   [16]byte
	}

	// hint, hintLen and hintHash are HintHash's key and its hash.
	hint     *byte
	hintLen  int
	hintHash uint64

	watcher Watcher // nil unless a key of the table is watched
	// OnExpire, when set, is called with the key of each entry that
	// expires, before it goes (keyspace notifications); like a Watcher it
	// must not change the table, and the key is valid during the call only.
	OnExpire func(key []byte)
	// OnNew, likewise, is called with the key of each entry a write
	// creates.
	OnNew func(key []byte)

	// acc, when set, is the policy the per-key access data follows
	// (access.go); nil on a table that tracks none.
	acc *Access
	// NoTouch, while set, keeps reads and writes from updating access
	// data: the shard sets it around commands that must not count as an
	// access (TYPE, TTL, OBJECT…) and for CLIENT NO-TOUCH clients.
	NoTouch bool

	pool     *blockPool // the off-heap blocks of ix, ar and exp (and of Order's pages)
	rng      uint64
	sink     uint64 // where ActiveExpire's read-ahead loads go, so they are not optimised away
	hashMask uint64 // all ones; tests clear bits to force collisions
}

// NewTable returns an empty table whose expiry reads clock. Its off-heap
// memory is unmapped by Clear, or once the table is unreachable.
func NewTable(clock *Clock) *Table {
	t := newTable(clock, new(blockPool))
	runtime.AddCleanup(t, (*blockPool).collect, t.pool)
	return t
}

// newTable returns an empty table whose off-heap blocks come from pool,
// which whoever passes it releases.
func newTable(clock *Clock, pool *blockPool) *Table {
	t := &Table{clock: clock, rng: 0x9e3779b97f4a7c15, hashMask: ^uint64(0), pool: pool}
	t.reset()
	return t
}

// reset empties t, keeping its clock, pool, random state, hash mask, page
// limit, expired count, watcher, hooks and access tracking.
func (t *Table) reset() {
	limit, pre := t.ar.pageLimit, t.ar.pre
	*t = Table{clock: t.clock, rehashIdx: -1, frozen: t.frozen, scanning: t.scanning, rng: t.rng, hashMask: t.hashMask, pool: t.pool, expired: t.expired,
		watcher: t.watcher, OnExpire: t.OnExpire, OnNew: t.OnNew, acc: t.acc, NoTouch: t.NoTouch}
	t.ar.pool = t.pool
	t.ar.pageLimit = limit
	t.ar.pre = pre
	t.exp = newWheel(t.pool)
}

func (t *Table) hash(key []byte) uint64 {
	if t.hint != nil && unsafe.SliceData(key) == t.hint && len(key) == t.hintLen {
		return t.hintHash & t.hashMask
	}
	return maphash.Bytes(seed, key) & t.hashMask
}

func (t *Table) rehashing() bool { return t.rehashIdx >= 0 }

// rand returns a pseudo-random number (wyrand).
func (t *Table) rand() uint64 {
	t.rng += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(t.rng, t.rng^0xe7037ed1a0b428db)
	return hi ^ lo
}

// lookup returns the slot word of key, or 0.
func (t *Table) lookup(h uint64, key []byte) uint64 {
	h32 := uint32(h >> 32)
	for k := range 2 {
		ix := &t.ix[k]
		if ix.dir == nil {
			break
		}
		b := h32 & ix.mask
		if k == 0 && t.rehashIdx > int(b) {
			continue
		}
		g := ix.bucket(b)
		for g != nil {
			for i := range slotsPerGroup {
				x := g[i]
				if x == 0 {
					break
				}
				if uint32(x>>32) == h32 && bytes.Equal(entryKey(t.ar.item(uint32(x))), key) {
					return x
				}
			}
			next := uint32(g[linkWord])
			if next == 0 {
				break
			}
			g = ix.overflow(next)
		}
	}
	return 0
}

// bucketOf returns the bucket of ix that slot word w belongs to, and whether
// ix can hold it at all.
func (t *Table) bucketOf(k int, w uint64) (uint32, bool) {
	ix := &t.ix[k]
	if ix.dir == nil {
		return 0, false
	}
	b := uint32(w>>32) & ix.mask
	return b, k == 1 || t.rehashIdx <= int(b)
}

// unindex removes slot word w from the index.
func (t *Table) unindex(w uint64) {
	for k := range 2 {
		if b, ok := t.bucketOf(k, w); ok && t.ix[k].remove(b, w) {
			t.maybeShrink()
			return
		}
	}
	panic("kvtable: slot missing from index")
}

// reindex points the slot holding word old at ref.
func (t *Table) reindex(old uint64, ref uint32) {
	w := old&hashHigh | uint64(ref)
	for k := range 2 {
		if b, ok := t.bucketOf(k, old); ok && t.ix[k].replace(b, old, w) {
			return
		}
	}
	panic("kvtable: slot missing from index")
}

func (t *Table) insert(h uint64, ref uint32) {
	if !t.rehashing() {
		ix := &t.ix[0]
		if ix.dir == nil {
			*ix = newIndex(1, t.pool)
		} else if ix.count >= maxLoad*int(ix.mask+1) && t.frozen == 0 {
			t.startRehash(2 * (ix.mask + 1))
		}
	}
	// While a resize runs, a key whose old bucket the rehash has not reached
	// yet goes into the old index, which the rehash empties in bucket order.
	// So the new index's chunks are written in the cursor's order, a couple
	// per thousand buckets migrated. Sending every new key to the new index,
	// at random buckets, would hand out and fault in most of its chunks
	// within the first few thousand inserts, in one or two loop turns of a
	// pipelining client (bench/results/2026-12-01-design-measurements.md).
	// The price: the old index holds a little more on average before the
	// rehash empties it.
	ix := &t.ix[0]
	if t.rehashing() && t.rehashIdx > int(uint32(h>>32)&ix.mask) {
		ix = &t.ix[1]
	}
	ix.insert(uint32(h>>32)&ix.mask, h&hashHigh|uint64(ref))
}

func (t *Table) maybeShrink() {
	ix := &t.ix[0]
	if t.rehashing() || t.frozen > 0 || ix.mask == 0 || ix.count*minLoadDiv >= int(ix.mask+1) {
		return
	}
	n := uint32(1)
	for 2*ix.count > maxLoad*int(n) {
		n *= 2
	}
	t.startRehash(n)
}

func (t *Table) startRehash(buckets uint32) {
	t.ix[1] = newIndex(buckets, t.pool)
	t.rehashIdx = 0
}

// rehashStep migrates up to n non-empty buckets of ix[0] into ix[1],
// visiting at most 10n empty ones. It inlines, so that an operation on a
// table not being resized pays no call.
func (t *Table) rehashStep(n int) {
	if t.rehashIdx >= 0 && t.scanning == 0 {
		t.migrate(n)
	}
}

func (t *Table) migrate(n int) {
	old, nw := &t.ix[0], &t.ix[1]
	empty := 10 * n
	for n > 0 && empty > 0 {
		if old.count == 0 {
			t.rehashIdx = int(old.mask) + 1
			break
		}
		b := uint32(t.rehashIdx)
		if old.dir[b>>chunkShift] == nil {
			// A chunk never written or already migrated.
			t.rehashIdx = int(b|chunkMask) + 1
			empty--
		} else {
			g := old.bucket(b)
			if g[0] == 0 {
				empty--
			} else {
				n--
				for x := g; ; {
					for i := 0; i < slotsPerGroup && x[i] != 0; i++ {
						w := x[i]
						nw.insert(uint32(w>>32)&nw.mask, w)
						old.count--
					}
					next := uint32(x[linkWord])
					if next == 0 {
						break
					}
					x = old.overflow(next)
				}
				clear(g)
			}
			t.rehashIdx++
			if b&chunkMask == chunkMask || b == old.mask {
				old.dropChunk(b >> chunkShift)
			}
		}
		if t.rehashIdx > int(old.mask) {
			break
		}
	}
	if t.rehashIdx > int(old.mask) {
		old.release()
		t.ix[0], t.ix[1] = t.ix[1], index{}
		t.rehashIdx = -1
	}
}

// Tick is the table's periodic upkeep, for the shard's timer: it advances a
// resize in progress by a bounded number of buckets, so that an idle table
// finishes it, and gives part of the memory freed since the last Tick back to
// the kernel. It does the same for a few of its big aggregates in turn, and
// settles the table's meter (Meter.Settle).
func (t *Table) Tick() {
	t.rehashStep(rehashPerTick)
	t.pool.decay()
	if m := t.pool.meter; m != nil {
		m.Settle()
	}
	for range min(objsPerTick, len(t.objs)) {
		t.objTick = (t.objTick + 1) % len(t.objs)
		if o := t.objs[t.objTick]; o != nil {
			o.Tick()
		}
	}
}

// objsPerTick is how many big aggregates each Tick looks after: a shard with
// many of them visits each every few seconds, and no Tick grows with their
// number.
const objsPerTick = 8

func (t *Table) isExpired(it []byte) bool {
	return it[0]&hdrTTL != 0 && entryExpire(it) <= t.clock.Ms
}

// Get returns the live value of key; an expired key is deleted on the way.
func (t *Table) Get(key []byte) (v Value, found bool) {
	found = t.Load(key, &v)
	return v, found
}

// Load is Get writing the value into *v (the zero Value when key is
// missing): a hot handler's Value is then written once, not copied out
// through each caller.
func (t *Table) Load(key []byte, v *Value) bool {
	t.rehashStep(rehashPerOp)
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		*v = Value{}
		return false
	}
	it := t.ar.item(uint32(w))
	if t.isExpired(it) {
		if !t.KeepExpired {
			t.expireSlot(w, false)
		}
		*v = Value{}
		return false
	}
	if t.acc != nil {
		t.touch(it)
	}
	t.decode(it, v)
	return true
}

// Peek returns key's value as stored, expired or not, and the arena ref of
// its entry, which stays while the value is changed in place; it touches,
// expires and migrates nothing (DEBUG OBJECT, which sees a key the expiry
// has not reached yet, as Redis's does).
func (t *Table) Peek(key []byte) (v Value, ref uint32, found bool) {
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return Value{}, 0, false
	}
	t.decode(t.ar.item(uint32(w)), &v)
	return v, uint32(w), true
}

// Exists reports whether key holds a live value.
func (t *Table) Exists(key []byte) bool {
	_, ok := t.Get(key)
	return ok
}

// ErrFull is what a write returns, changing nothing, when the table's arena
// has no page left for the entry: a ref addresses at most 2^20 pages.
var ErrFull = errors.New("kvtable: the table's arena has no page left")

// SetString stores val under key with the given expiry, replacing any value.
// A value that is a canonical 64-bit decimal integer is stored as an integer.
// val may alias a Value.Str of this table.
func (t *Table) SetString(key, val []byte, expireAt int64) error {
	if n, ok := CanonicalInt(val); ok {
		return t.SetInt(key, n, expireAt)
	}
	return t.put(key, byte(KindString)|encRaw, val, 0, expireAt)
}

// SetVerbatim stores val under key as a string exactly as given, even when it
// reads as an integer (Value.Verbatim). grown records that APPEND or SETRANGE
// built it (Value.Grown), which is what OBJECT ENCODING reports as "raw".
func (t *Table) SetVerbatim(key, val []byte, expireAt int64, grown bool) error {
	hdr := byte(KindString) | encRaw | hdrVerbatim
	if grown {
		hdr = byte(KindString) | encRaw | hdrGrown
	}
	return t.put(key, hdr, val, 0, expireAt)
}

// SetInt stores n under key as an integer-encoded string.
func (t *Table) SetInt(key []byte, n int64, expireAt int64) error {
	return t.put(key, byte(KindString)|encInt, nil, n, expireAt)
}

// AddInt adds by to the integer-encoded string under key in place, keeping
// its TTL, and returns the sum: one lookup and no re-put, where Get then
// SetInt take two. ok is false, changing nothing, when the key is missing or
// expired, holds anything else, or the sum would overflow; the caller then
// takes the general path. The sum is a new integer, never an unshared one.
func (t *Table) AddInt(key []byte, by int64) (n int64, ok bool) {
	t.rehashStep(rehashPerOp)
	_, it := t.live(key, hdrKindMask|hdrEncMask, byte(KindString)|encInt)
	if it == nil {
		return 0, false
	}
	// The entry's key is key: its value follows it, no need to read the
	// key's length back.
	off := prefixLen(it[0]) + uvarintLen(len(key)) + len(key)
	old := int64(le.Uint64(it[off:]))
	n = old + by
	if (n > old) != (by > 0) {
		return 0, false // overflow
	}
	it[0] &^= hdrUnshared
	le.PutUint64(it[off:], uint64(n))
	t.touched(key, true)
	return n, true
}

// SetUnsharedInt is SetInt for an integer that is its own object, as a
// COPY's copy is in Redis even when Redis would share its value
// (Value.Unshared).
func (t *Table) SetUnsharedInt(key []byte, n int64, expireAt int64) error {
	return t.put(key, byte(KindString)|encInt|hdrUnshared, nil, n, expireAt)
}

// put stores an entry: raw for encRaw, n for encInt and encObj. It returns
// ErrFull, leaving every live key as it was (an expired key under the name
// is gone), when the entry needs an item the arena cannot give.
func (t *Table) put(key []byte, hdr byte, raw []byte, n int64, expireAt int64) error {
	t.rehashStep(rehashPerOp)
	h := t.hash(key)
	return t.store(h, t.lookup(h, key), key, hdr, raw, n, expireAt)
}

// AddMember stores key with an empty string value, as a big set's table
// holds its members, unless key already holds a live value, which it
// leaves as it is. It reports whether it stored the key.
func (t *Table) AddMember(key []byte) (bool, error) {
	t.rehashStep(rehashPerOp)
	h := t.hash(key)
	w := t.lookup(h, key)
	if w != 0 {
		if it := t.ar.item(uint32(w)); !t.isExpired(it) {
			if t.acc != nil {
				t.touch(it)
			}
			return false, nil
		}
	}
	if err := t.store(h, w, key, byte(KindString)|encRaw, nil, 0, 0); err != nil {
		return false, err
	}
	return true, nil
}

// store is put once key's hash h and slot word w (0: none) are known.
func (t *Table) store(h, w uint64, key []byte, hdr byte, raw []byte, n int64, expireAt int64) error {
	ttl := expireAt != 0
	if ttl {
		hdr |= hdrTTL
	}
	size := entrySize(len(key), hdr&hdrEncMask, len(raw), ttl)
	if w != 0 && t.isExpired(t.ar.item(uint32(w))) {
		// Expiry deletes the old key, as for any other command that finds
		// it; compacting could move the entry val aliases.
		t.expireSlot(w, false)
		w = 0
	}
	if w == 0 {
		ref := t.ar.alloc(size)
		if ref == 0 {
			return ErrFull
		}
		idx := 0
		if ttl {
			idx = t.exp.push(ref, expireAt, t.clock.Ms)
		}
		it := t.ar.item(ref)
		writeEntry(it, hdr, expireAt, idx, key, raw, n)
		if t.acc != nil {
			t.initAccess(it)
		}
		t.insert(h, ref)
		t.touched(key, true)
		if t.OnNew != nil {
			t.OnNew(key)
		}
		return nil
	}
	ref := uint32(w)
	it := t.ar.item(ref)
	old := it[0]
	if old&hdrTTL == hdr&hdrTTL && t.ar.fits(ref, size) {
		// Same layout up to the value: rewrite the value in place.
		t.dropObj(it)
		idx := 0
		if ttl {
			idx = t.wheelMove(ref, it, expireAt)
		}
		writePrefix(it, hdr, expireAt, idx)
		writeValue(it, valueOff(it), hdr&hdrEncMask, raw, n)
		if t.acc != nil {
			t.overwritten(it)
		}
		t.touched(key, true)
		return nil
	}
	nref := t.ar.alloc(size)
	if nref == 0 {
		return ErrFull
	}
	t.dropObj(it)
	idx := 0
	switch {
	case ttl && old&hdrTTL != 0:
		idx = t.wheelMove(nref, it, expireAt)
	case ttl:
		idx = t.exp.push(nref, expireAt, t.clock.Ms)
	case old&hdrTTL != 0:
		t.wheelRemove(entryExpIdx(it), entryExpire(it))
	}
	dst := t.ar.item(nref)
	writeEntry(dst, hdr, expireAt, idx, key, raw, n)
	if t.acc != nil {
		t.moveAccess(dst, it)
		t.overwritten(dst)
	}
	t.reindex(w, nref)
	t.touched(key, true)
	t.freeItem(ref, true)
	return nil
}

// maxSpare bounds the room WriteAt leaves after a value it grows.
const maxSpare = 64 << 20

// errNotRaw is WriteAt's answer for a key that holds no raw string.
var errNotRaw = errors.New("kvtable: WriteAt on a key without a raw string")

// WriteAt writes data into the string value of key at offset off, padding
// with zero bytes from the value's end to off, marks the value grown
// (Value.Grown) and returns its new length. The key must hold a live string
// stored as bytes, not as an integer: APPEND and SETRANGE read it with Get
// first.
//
// A value that outgrows its item moves to one with half its new size to
// spare (at most maxSpare), so that building a value by appends copies each
// byte a bounded number of times, as Redis's strings do; an empty value
// grows to its exact size. It returns ErrFull, changing nothing, when the
// arena has no room for the bigger item.
func (t *Table) WriteAt(key []byte, off int, data []byte) (int, error) {
	t.rehashStep(rehashPerOp)
	w, it := t.liveRaw(key)
	if it == nil {
		return 0, errNotRaw
	}
	return t.writeAt(key, w, it, off, data)
}

// Append writes data at the end of the string value of key as WriteAt does,
// when that leaves it at most maxLen bytes long: one lookup, where reading
// the length first takes two. ok is false, changing nothing, when the key is
// missing or expired, holds an integer-encoded string or another type, or
// the value would pass maxLen; the caller then takes the general path. With
// ok, err is WriteAt's.
func (t *Table) Append(key, data []byte, maxLen int) (n int, ok bool, err error) {
	t.rehashStep(rehashPerOp)
	w, it := t.live(key, hdrKindMask|hdrEncMask, byte(KindString)|encRaw)
	if it == nil {
		return 0, false, nil
	}
	vl, _ := getUvarint(it[valueOff(it):])
	if vl+len(data) > maxLen {
		return 0, false, nil
	}
	n, err = t.writeAt(key, w, it, vl, data)
	return n, true, err
}

// Insert puts data into the raw string value of key at off (at most its
// length; -1: at its end), moving the bytes from off on after it, when that leaves the
// value at most maxLen bytes long; the room a grown item keeps spare never
// goes past maxLen either. ok is false, changing nothing, when the key is
// missing or expired, holds an integer-encoded string or another type, off
// is past the value's end, or the value would pass maxLen. With ok, err is
// ErrFull when the arena has no room for a bigger item, changing nothing.
func (t *Table) Insert(key []byte, off int, data []byte, maxLen int) (ok bool, err error) {
	t.rehashStep(rehashPerOp)
	w, it := t.liveRaw(key)
	if it == nil {
		return false, nil
	}
	voff := valueOff(it)
	vl, ln := getUvarint(it[voff:])
	end := vl + len(data)
	if off < 0 {
		off = vl
	}
	if off > vl || end > maxLen {
		return false, nil
	}
	ref := uint32(w)
	nln := uvarintLen(end)
	need := voff + nln + end
	dst, nref := it, ref
	if need > len(it) {
		spare := 0
		if vl > 0 {
			spare = min(need/2, maxSpare, maxLen-end)
		}
		if nref = t.ar.alloc(need + spare); nref == 0 {
			return true, ErrFull
		}
		dst = t.ar.item(nref)
		copy(dst, it[:voff])
	}
	// Tail first, then head: both only ever move towards the end. A head
	// that stays where it is (an append in place) is not copied onto itself.
	val := it[voff+ln : voff+ln+vl]
	copy(dst[voff+nln+off+len(data):], val[off:])
	if nref != ref || nln != ln {
		copy(dst[voff+nln:], val[:off])
	}
	copy(dst[voff+nln+off:], data)
	putUvarint(dst[voff:], end)
	t.rewritten(key, w, ref, nref, dst)
	t.rememberRaw(key, w&hashHigh|uint64(nref))
	return true, nil
}

// liveRaw is live for a raw string: found through lastRaw when that is
// still key's entry, else looked up and remembered.
func (t *Table) liveRaw(key []byte) (uint64, []byte) {
	const mask, want = hdrKindMask | hdrEncMask, byte(KindString) | encRaw
	if last := &t.lastRaw; last.w != 0 && last.frees == t.ar.frees && bytes.Equal(last.key[:last.n], key) {
		it := t.ar.item(uint32(last.w))
		if it[0]&mask == want && !t.isExpired(it) && bytes.Equal(entryKey(it), key) {
			if t.acc != nil {
				t.touch(it)
			}
			return last.w, it
		}
	}
	w, it := t.live(key, mask, want)
	if it != nil {
		t.rememberRaw(key, w)
	}
	return w, it
}

// rememberRaw makes the entry at slot word w, key's, lastRaw.
func (t *Table) rememberRaw(key []byte, w uint64) {
	if last := &t.lastRaw; len(key) <= len(last.key) {
		last.w, last.frees, last.n = w, t.ar.frees, copy(last.key[:], key)
	}
}

// RawString returns the raw string under key, which stays valid until the
// table changes, as Get would for it; ok is false when key holds none. It is
// Get for the nodes of a list (see lastRaw).
func (t *Table) RawString(key []byte) (val []byte, ok bool) {
	_, it := t.liveRaw(key)
	if it == nil {
		return nil, false
	}
	voff := valueOff(it)
	vl, ln := getUvarint(it[voff:])
	return it[voff+ln : voff+ln+vl : voff+ln+vl], true
}

// rewritten finishes a write of key's string in place or into a bigger
// item: dst, at nref, is its entry now, ref its item before; the entry's
// slot word was w.
func (t *Table) rewritten(key []byte, w uint64, ref, nref uint32, dst []byte) {
	dst[0] = dst[0]&^hdrVerbatim | hdrGrown
	t.touched(key, true)
	if nref != ref {
		if dst[0]&hdrTTL != 0 {
			t.exp.set(entryExpIdx(dst), nref)
		}
		t.moveAccess(dst, t.ar.item(ref))
		t.reindex(w, nref)
		t.freeItem(ref, true)
	}
}

// MarkGrown makes the raw string under key read as Redis's "raw" encoding
// whatever its length, as a write into it does, without changing its bytes
// or counting as a change for WATCH: Redis unshares a string before SETBIT
// or BITFIELD write into it, whether the bits change or not. It reports
// false when key holds no raw string.
func (t *Table) MarkGrown(key []byte) bool {
	_, it := t.live(key, hdrKindMask|hdrEncMask, byte(KindString)|encRaw)
	if it == nil {
		return false
	}
	it[0] = it[0]&^hdrVerbatim | hdrGrown
	return true
}

// Splice replaces the cut bytes at off of the raw string value of key with
// data, in place, when the new value fits the entry's item; it never moves
// the entry. ok is false, changing nothing, when the key is missing or
// expired, holds an integer-encoded string or another type, [off, off+cut)
// is not within the value, or the new value does not fit: the caller then
// writes the whole value. A value that does not grow always fits.
func (t *Table) Splice(key []byte, off, cut int, data []byte) (ok bool) {
	t.rehashStep(rehashPerOp)
	_, it := t.liveRaw(key)
	if it == nil {
		return false
	}
	voff := valueOff(it)
	vl, ln := getUvarint(it[voff:])
	if off < 0 || cut < 0 || off > vl-cut {
		return false
	}
	end := vl - cut + len(data)
	nln := uvarintLen(end)
	if voff+nln+end > len(it) {
		return false
	}
	// The head moves only when the length's own size changes; whichever
	// part moves towards the front goes first, so neither overwrites the
	// other before it moves.
	head, tail := it[voff+ln:voff+ln+off], it[voff+ln+off+cut:voff+ln+vl]
	headAt, tailAt := voff+nln, voff+nln+off+len(data)
	if nln <= ln {
		if nln < ln {
			copy(it[headAt:], head)
		}
		copy(it[tailAt:], tail)
	} else {
		copy(it[tailAt:], tail)
		copy(it[headAt:], head)
	}
	copy(it[voff+nln+off:], data)
	putUvarint(it[voff:], end)
	it[0] = it[0]&^hdrVerbatim | hdrGrown
	t.touched(key, true)
	return true
}

// live returns the slot word and entry of key when it is live and its
// header, masked with mask, is want; the entry is nil otherwise.
func (t *Table) live(key []byte, mask, want byte) (uint64, []byte) {
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return 0, nil
	}
	it := t.ar.item(uint32(w))
	if it[0]&mask != want || t.isExpired(it) {
		return 0, nil
	}
	if t.acc != nil {
		t.touch(it)
	}
	return w, it
}

// writeAt is WriteAt on the entry it of key at slot word w.
func (t *Table) writeAt(key []byte, w uint64, it []byte, off int, data []byte) (int, error) {
	ref := uint32(w)
	voff := valueOff(it)
	vl, ln := getUvarint(it[voff:])
	end := max(vl, off+len(data))
	nln := uvarintLen(end)
	need := voff + nln + end
	dst, nref := it, ref
	if need > len(it) {
		spare := 0
		if vl > 0 {
			spare = min(need/2, maxSpare)
		}
		if nref = t.ar.alloc(need + spare); nref == 0 {
			return 0, ErrFull
		}
		dst = t.ar.item(nref)
		copy(dst, it[:voff+ln+vl])
	}
	if nln != ln {
		copy(dst[voff+nln:], dst[voff+ln:voff+ln+vl])
	}
	val := dst[voff+nln:]
	if off > vl {
		clear(val[vl:off])
	}
	copy(val[off:], data)
	putUvarint(dst[voff:], end)
	t.rewritten(key, w, ref, nref, dst)
	return end, nil
}

// SetExpire sets (or with 0 removes) the expiry of a live key and reports
// whether the key was there. Adding a TTL can need a bigger item: when the
// arena cannot give one it returns ErrFull and changes nothing.
func (t *Table) SetExpire(key []byte, expireAt int64) (bool, error) {
	t.rehashStep(rehashPerOp)
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return false, nil
	}
	ref := uint32(w)
	it := t.ar.item(ref)
	if t.isExpired(it) {
		t.expireSlot(w, true)
		return false, nil
	}
	if t.acc != nil {
		t.touch(it)
	}
	had := it[0]&hdrTTL != 0
	switch {
	case had && expireAt != 0:
		writePrefix(it, it[0], expireAt, t.wheelMove(ref, it, expireAt))
		t.touched(key, true)
		return true, nil
	case !had && expireAt == 0:
		return true, nil
	}
	// The TTL fields come or go: everything after them moves.
	tail := it[prefixLen(it[0]):entryLen(it)]
	hdr := it[0] ^ hdrTTL
	pre := prefixLen(hdr)
	dst, nref := it, ref
	if !t.ar.fits(ref, pre+len(tail)) {
		nref = t.ar.alloc(pre + len(tail))
		switch {
		case nref != 0:
			dst = t.ar.item(nref)
		case expireAt != 0:
			return true, ErrFull
		default:
			// Dropping the TTL shrinks the entry: it stays where it is.
			nref = ref
		}
	}
	idx := 0
	if expireAt != 0 {
		idx = t.exp.push(nref, expireAt, t.clock.Ms)
	} else {
		t.wheelRemove(entryExpIdx(it), entryExpire(it))
	}
	copy(dst[pre:], tail)
	writePrefix(dst, hdr, expireAt, idx)
	t.touched(key, true)
	if nref != ref {
		t.moveAccess(dst, it)
		t.reindex(w, nref)
		t.freeItem(ref, true)
	}
	return true, nil
}

// Delete removes key and reports whether it held a live value.
func (t *Table) Delete(key []byte) bool {
	t.rehashStep(rehashPerOp)
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return false
	}
	if t.isExpired(t.ar.item(uint32(w))) {
		t.expireSlot(w, true)
		return false
	}
	t.touched(key, false)
	t.unindex(w)
	t.dropEntry(uint32(w), true)
	return true
}

// dropEntry releases what the entry ref holds, once its slot is gone.
// compact lets the arena move other entries to fill the hole; the read
// paths (Get, RandomKey) pass false so that values they returned earlier
// stay where they are.
func (t *Table) dropEntry(ref uint32, compact bool) {
	it := t.ar.item(ref)
	if it[0]&hdrTTL != 0 {
		t.wheelRemove(entryExpIdx(it), entryExpire(it))
	}
	t.dropObj(it)
	t.freeItem(ref, compact)
}

func (t *Table) freeItem(ref uint32, compact bool) {
	c := t.ar.pages[ref>>refItemBits].class
	t.ar.free(ref)
	if compact {
		t.compactStep(c)
	}
}

// dropObj releases the object an obj-encoded entry refers to, and the
// memory it holds unless Detach took it.
func (t *Table) dropObj(it []byte) {
	if it[0]&hdrEncMask != encObj {
		return
	}
	i := le.Uint32(it[valueOff(it):])
	if o := t.objs[i]; o != nil {
		o.drop()
	}
	t.objs[i] = nil
	t.objFree = append(t.objFree, i)
}

// drop clears a big aggregate that is being deleted. As Redis frees a big
// value in a background thread, the kernel's freeing of its pages runs on
// another goroutine: deleting a 10M-element hash costs the shard no more
// than a small one.
func (t *Table) drop() {
	t.pool.releaseAsync(true) // with the blocks of Order's pages
	t.reset()
}

// SetPacked stores blob, the packed elements of an aggregate of the given
// kind, under key with the given expiry, replacing any value; intset marks
// a set of integers. blob may alias a Value.Str of this table.
func (t *Table) SetPacked(key []byte, kind Kind, intset bool, blob []byte, expireAt int64) error {
	hdr := byte(kind) | encRaw
	if intset {
		hdr |= hdrIntSet
	}
	return t.put(key, hdr, blob, 0, expireAt)
}

// SetBig stores big, an aggregate of the given kind in a table of its own,
// under key with the given expiry, replacing any value. t owns big from
// then on: deleting or overwriting the key clears it. When t has a meter,
// big's bytes are counted by it from then on (SetMeter).
func (t *Table) SetBig(key []byte, kind Kind, big *Table, expireAt int64) error {
	var i uint32
	if k := len(t.objFree); k > 0 {
		i = t.objFree[k-1]
		t.objFree = t.objFree[:k-1]
		t.objs[i] = big
	} else {
		i = uint32(len(t.objs))
		t.objs = append(t.objs, big)
	}
	if err := t.put(key, byte(kind)|encObj, nil, int64(i), expireAt); err != nil {
		t.objs[i] = nil
		t.objFree = append(t.objFree, i)
		return err
	}
	if m := t.pool.meter; m != nil && big.pool.meter != m {
		big.SetMeter(m)
	}
	return nil
}

// Detach deletes key as Delete does, but hands the table of a big
// aggregate to the caller instead of clearing it, so that RENAME and MOVE
// can store it under another key with SetBig.
func (t *Table) Detach(key []byte) bool {
	if _, it := t.live(key, hdrEncMask, encObj); it != nil {
		t.objs[le.Uint32(it[valueOff(it):])] = nil
	}
	return t.Delete(key)
}

// LimitPages caps the pages the table's arena may hold at n, below the 2^20
// a ref can address, so that tests can fill a table cheaply.
func (t *Table) LimitPages(n int) { t.ar.pageLimit = min(n, maxPages) }

// Len is the number of keys, counting expired ones not yet reclaimed.
func (t *Table) Len() int { return t.ix[0].count + t.ix[1].count }

// ExpiresLen is the number of keys with a TTL.
func (t *Table) ExpiresLen() int { return t.exp.n }

// Clear removes every key. The pages of its big aggregates go back to the
// kernel from another goroutine (see drop).
func (t *Table) Clear() {
	if t.watcher != nil {
		t.watcher.Clearing()
	}
	for _, o := range t.objs {
		if o != nil {
			o.drop()
		}
	}
	t.pool.release() // with the blocks of Order's pages
	t.reset()
}

// MemoryUsage returns the bytes key costs: its arena item (with its access
// bytes on a tracking table), its index slot and, with a TTL, its place in
// the TTL wheel. An expired key is deleted; a live one is not touched.
func (t *Table) MemoryUsage(key []byte) (int, bool) {
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return 0, false
	}
	it := t.ar.item(uint32(w))
	if t.isExpired(it) {
		t.expireSlot(w, false)
		return 0, false
	}
	n := len(it) + int(t.ar.pre) + 8
	if it[0]&hdrTTL != 0 {
		n += 4
	}
	if it[0]&hdrEncMask == encObj {
		n += t.objs[le.Uint32(it[valueOff(it):])].ArenaBytes() + int(unsafe.Sizeof(Table{}))
	}
	return n, true
}

// ArenaBytes returns the bytes the table holds: arena pages, index arrays,
// the TTL wheel and page descriptors, and those of its big aggregates.
func (t *Table) ArenaBytes() int {
	n := t.ar.bytes + 8*(t.ix[0].words+t.ix[1].words) + t.exp.bytes() +
		cap(t.ar.pages)*int(unsafe.Sizeof(page{})) + 8*cap(t.objs) + t.Order.bytes() + cap(t.List)
	for _, o := range t.objs {
		if o != nil {
			n += o.ArenaBytes() + int(unsafe.Sizeof(Table{}))
		}
	}
	return n
}

// OffHeapBytes returns the memory the table, and its big aggregates, have
// mapped outside the Go heap and not given back: blocks in use, warm ones
// and those faulted in ahead.
func (t *Table) OffHeapBytes() int {
	n := (t.pool.inUse + t.pool.warm + t.pool.ahead) * blockBytes // Order's pages' included
	for _, o := range t.objs {
		if o != nil {
			n += o.OffHeapBytes()
		}
	}
	return n
}

// RandomKey returns a random live key, each about as likely as any other.
// The key aliases table memory, as Value.Str does. Expired keys it meets are
// deleted.
func (t *Table) RandomKey() ([]byte, bool) {
	for range 100 {
		if t.Len() == 0 {
			return nil, false
		}
		w := t.randomSlot()
		it := t.ar.item(uint32(w))
		if t.isExpired(it) {
			t.expireSlot(w, false)
			continue
		}
		return entryKey(it), true
	}
	// Mostly expired keys: look at every bucket.
	for k := range 2 {
		ix := &t.ix[k]
		for b := uint32(0); ix.dir != nil && b <= ix.mask; b++ {
			var key []byte
			t.eachSlot(ix, b, func(w uint64) bool {
				if it := t.ar.item(uint32(w)); !t.isExpired(it) {
					key = entryKey(it)
				}
				return key == nil
			})
			if key != nil {
				return key, true
			}
		}
	}
	return nil, false
}

// eachSlot calls fn on the slots of bucket b until fn returns false.
func (t *Table) eachSlot(ix *index, b uint32, fn func(w uint64) bool) {
	g := ix.bucket(b)
	for g != nil {
		for i := 0; i < slotsPerGroup && g[i] != 0; i++ {
			if !fn(g[i]) {
				return
			}
		}
		next := uint32(g[linkWord])
		if next == 0 {
			return
		}
		g = ix.overflow(next)
	}
}

// randomChain is the chain length up to which randomSlot picks every key
// with the same chance; keys of longer chains (rare at maxLoad) are a little
// less likely.
const randomChain = 16

// randomTries bounds randomSlot's probes, sent randomProbes at a time.
const (
	randomTries  = 64
	randomProbes = 8
)

// randomSlot returns a random slot word; the table must not be empty. It
// picks a random bucket and a random position below randomChain, and keeps
// the slot there if the bucket's chain reaches it: every slot of every chain
// is then equally likely, where taking any slot of the first non-empty
// bucket would favour keys in short chains and after runs of empty buckets.
// After a bounded number of misses (a table that shrank, nearly all empty
// buckets) it takes the first non-empty bucket from a random start.
func (t *Table) randomSlot() uint64 {
	ix := t.randomIndex()
	for range randomTries / randomProbes {
		// Each probe is likely a cache miss, and few hit: the probes of a
		// round are asked for at once, so that their misses overlap.
		var rs [randomProbes]uint64
		var sink uint64
		for i := range rs {
			rs[i] = t.rand()
			if g := ix.bucket(uint32(rs[i]) & ix.mask); g != nil {
				sink += prefetch(unsafe.Pointer(&g[0]))
			}
		}
		t.sink += sink
		for _, r := range rs {
			if w, ok := t.slotAt(ix, uint32(r)&ix.mask, int((r>>32)%randomChain)); ok {
				return w
			}
		}
	}
	b := uint32(t.rand()) & ix.mask
	for {
		if g := ix.bucket(b); g != nil && g[0] != 0 {
			n := 0
			t.eachSlot(ix, b, func(uint64) bool { n++; return true })
			w, _ := t.slotAt(ix, b, int(t.rand()%uint64(n)))
			return w
		}
		b = (b + 1) & ix.mask
	}
}

// randomIndex returns the index a random key is in: while resizing, each
// with the chance of its share of the keys. The table must not be empty.
func (t *Table) randomIndex() *index {
	k := 0
	if t.rehashing() && t.rand()%uint64(t.Len()) < uint64(t.ix[1].count) {
		k = 1
	}
	if t.ix[k].count == 0 {
		k = 1 - k
	}
	return &t.ix[k]
}

// slotAt returns the slot at position i of bucket b's chain, if the chain
// is that long.
func (t *Table) slotAt(ix *index, b uint32, i int) (uint64, bool) {
	g := ix.bucket(b)
	if g == nil {
		return 0, false
	}
	for {
		if i < slotsPerGroup {
			return g[i], g[i] != 0
		}
		if g[slotsPerGroup-1] == 0 {
			return 0, false
		}
		next := uint32(g[linkWord])
		if next == 0 {
			return 0, false
		}
		g = ix.overflow(next)
		i -= slotsPerGroup
	}
}

// CanonicalInt parses b as Redis decides whether a string can be stored as an
// integer: optional '-', no leading zeros, no '+', fits in int64, at most 20
// bytes, and prints back to the same bytes.
func CanonicalInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	d := b
	if neg {
		d = b[1:]
		if len(d) == 0 {
			return 0, false
		}
	}
	if d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false
	}
	var n uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}
