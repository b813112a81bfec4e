package kvtable

import "unsafe"

// Access data is what maxmemory eviction rates keys by: 24 bits per key, as
// Redis keeps in each object's lru field. A table that tracks access (a
// shard's database; never a big aggregate's own table) has accessBytes
// before every arena item, in the same page, so that they share the
// entry's cache line: a page's items are stride = size + accessBytes
// apart, and item(ref) still returns the entry's bytes only. The three
// bytes are little-endian and hold, per Access.LFU:
//
//	LRU  the shard's clock in seconds, mod 2^24, of the last access
//	LFU  minutes mod 2^16 of the last access (high 16 bits) and a
//	     logarithmic access counter (low 8 bits), which decays by one
//	     per DecayMinutes since that access
//
// A free item's free-list bytes are its own first bytes, as in any page;
// the access bytes before it mean nothing until an entry is written there.
//
// What touches a key (updates its access data, unless NoTouch is set),
// once the key is found live:
//
//	Load, Get, Exists; AddInt; WriteAt, Append, Insert, Splice,
//	RawString, MarkGrown; SetExpire; AddMember of a member already there;
//	Detach (of no consequence: the key goes)
//
// A write that stores a value (Set…, SetPacked, SetBig, AddMember) gives a
// new key the initial value: the clock now under LRU, a counter of
// lfuInitVal stamped now under LFU. Over a live key it is a new value:
// under LRU its clock is now, as Redis's new object's would be, NoTouch or
// not; under LFU the key keeps its counter, touched as an access (unless
// NoTouch), as Redis keeps the old object's lru. When an entry moves to
// another item (a write that outgrows its item, compaction), its access
// bytes move with it.
//
// Nothing else touches: Hash, HintHash, TouchBucket, TouchEntry, PeekBig,
// Probe, Modified, Scan, RandomKey, MemoryUsage, the snapshot walk
// (WalkAt), SampleEvict, and the accessors IdleMs, Freq, SetIdle and
// SetFreq.

// Access is the eviction policy's view of access data: the shard owns one,
// shared by its tracking tables, and may change it between commands (a
// CONFIG SET); the tables only read it.
type Access struct {
	LFU          bool // Redis's LFU policies; else LRU
	LogFactor    int  // lfu-log-factor
	DecayMinutes int  // lfu-decay-time; 0: counters never decay
}

const (
	accessBytes = 3
	accessMask  = 1<<(8*accessBytes) - 1
	lfuInitVal  = 5 // a new key's counter, as Redis's LFU_INIT_VAL
	lfuMax      = 255
	// lruTickMs is the resolution of the LRU clock, as Redis's.
	lruTickMs = 1000
)

// TrackAccess makes the table keep access data, per a, for every key; nil
// stops it. It panics unless the table holds no key (expired ones
// included): the data lives in the layout of the arena's pages, which an
// empty table drops and makes again. A table that does not track pays
// for access data no byte, and no more time than a nil check per access.
func (t *Table) TrackAccess(a *Access) {
	if t.Len() != 0 {
		panic("kvtable: TrackAccess on a table that holds keys")
	}
	// Pages an emptied table keeps for reuse have the old layout.
	for i := 1; i < len(t.ar.pages); i++ {
		if t.ar.pages[i].buf != nil {
			t.ar.release(uint32(i))
		}
	}
	t.acc = a
	t.ar.pre = 0
	if a != nil {
		t.ar.pre = accessBytes
	}
}

// TracksAccess reports whether the table keeps access data.
func (t *Table) TracksAccess() bool { return t.acc != nil }

// accessAt returns the access bytes of entry it, on a tracking table: the
// bytes before it in its page.
func accessAt(it []byte) *[accessBytes]byte {
	return (*[accessBytes]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(it)), -accessBytes))
}

// entryStart is where the bytes of entry it that a lookup reads begin: its
// access bytes on a tracking table, for prefetching.
func (t *Table) entryStart(it []byte) unsafe.Pointer {
	if t.acc != nil {
		return unsafe.Pointer(accessAt(it))
	}
	return unsafe.Pointer(unsafe.SliceData(it))
}

func getAccess(p *[accessBytes]byte) uint32 {
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
}

func setAccess(p *[accessBytes]byte, v uint32) {
	p[0], p[1], p[2] = byte(v), byte(v>>8), byte(v>>16)
}

// lruClock is the LRU clock at Unix ms ms: seconds, mod 2^24.
func lruClock(ms int64) uint32 { return uint32(ms/lruTickMs) & accessMask }

// lfuMinutes is the LFU time at Unix ms ms: minutes, mod 2^16.
func lfuMinutes(ms int64) uint32 { return uint32(ms/60000) & 0xffff }

// touch records an access to the live entry it, unless NoTouch is set.
// Callers check t.acc first, so that a table that tracks nothing pays a
// nil check and no call. Bytes that would not change are not written, so
// that reads within the same second leave the entry's cache line clean.
func (t *Table) touch(it []byte) {
	if !t.NoTouch {
		p := accessAt(it)
		if old, v := getAccess(p), t.accessed(getAccess(p)); v != old {
			setAccess(p, v)
		}
	}
}

// accessed returns access data v after an access now.
func (t *Table) accessed(v uint32) uint32 {
	if !t.acc.LFU {
		return lruClock(t.clock.Ms)
	}
	return lfuMinutes(t.clock.Ms)<<8 | t.lfuIncr(t.lfuDecayed(v))
}

// initAccess gives the new entry it the access data of a new key.
func (t *Table) initAccess(it []byte) {
	v := lruClock(t.clock.Ms)
	if t.acc.LFU {
		v = lfuMinutes(t.clock.Ms)<<8 | lfuInitVal
	}
	setAccess(accessAt(it), v)
}

// overwritten updates the access data of entry it, which a write has just
// given a new value (see the top of the file).
func (t *Table) overwritten(it []byte) {
	if !t.acc.LFU {
		setAccess(accessAt(it), lruClock(t.clock.Ms))
		return
	}
	t.touch(it)
}

// moveAccess copies the access data of entry src to dst, which takes its
// place.
func (t *Table) moveAccess(dst, src []byte) {
	if t.acc != nil {
		*accessAt(dst) = *accessAt(src)
	}
}

// lfuDecayed returns the counter of LFU data v, less one per DecayMinutes
// passed since its last access.
func (t *Table) lfuDecayed(v uint32) uint32 {
	c := v & 0xff
	d := t.acc.DecayMinutes
	if d <= 0 || c == 0 {
		return c
	}
	now, then := lfuMinutes(t.clock.Ms), v>>8
	elapsed := now - then
	if now < then {
		elapsed = 0xffff - then + now // as Redis counts a wrap
	}
	if periods := elapsed / uint32(d); periods < c {
		return c - periods
	}
	return 0
}

// lfuIncr returns counter c after an access: one more with a chance that
// falls as the counter grows past lfuInitVal, so that it grows with the
// logarithm of the accesses.
func (t *Table) lfuIncr(c uint32) uint32 {
	if c >= lfuMax {
		return lfuMax
	}
	base := int(c) - lfuInitVal
	if base <= 0 {
		return c + 1 // a chance of 1
	}
	p := 1 / float64(base*max(t.acc.LogFactor, 0)+1)
	if float64(t.rand()>>11)/(1<<53) < p {
		c++
	}
	return c
}

// idleMs is how long ago, in ms, access data v was last touched: under LRU
// to the clock's second, under LFU to its minute.
func (t *Table) idleMs(v uint32) int64 {
	if !t.acc.LFU {
		return int64((lruClock(t.clock.Ms)-v)&accessMask) * lruTickMs
	}
	now, then := lfuMinutes(t.clock.Ms), v>>8
	elapsed := now - then
	if now < then {
		elapsed = 0xffff - then + now
	}
	return int64(elapsed) * 60000
}

// peekLive returns the entry of key if it is live, nil otherwise, changing
// nothing (an expired key stays until something else deletes it).
func (t *Table) peekLive(key []byte) []byte {
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return nil
	}
	it := t.ar.item(uint32(w))
	if t.isExpired(it) {
		return nil
	}
	return it
}

// IdleMs returns how long ago key was last touched, in ms, as OBJECT
// IDLETIME reports it: to the second under LRU; under LFU, to the minute,
// from the time its counter keeps. ok is false when key is missing or
// expired. A table that tracks nothing answers 0 for every live key. It
// touches nothing.
func (t *Table) IdleMs(key []byte) (ms int64, ok bool) {
	it := t.peekLive(key)
	if it == nil || t.acc == nil {
		return 0, it != nil
	}
	return t.idleMs(getAccess(accessAt(it))), true
}

// Freq returns key's LFU counter, decayed to now (not stored back), as
// OBJECT FREQ reports it; 0 under LRU or on a table that tracks nothing.
// ok is false when key is missing or expired. It touches nothing.
func (t *Table) Freq(key []byte) (freq int, ok bool) {
	it := t.peekLive(key)
	if it == nil || t.acc == nil || !t.acc.LFU {
		return 0, it != nil
	}
	return int(t.lfuDecayed(getAccess(accessAt(it)))), true
}

// SetIdle makes key read as idle for the given seconds under LRU, as
// RESTORE's IDLETIME and a replica's load of an RDB file set it: its clock
// is now less seconds, which past 2^24-1 is 2^24-1. Negative seconds, LFU
// and a table that tracks nothing leave the key as it is. It reports
// whether key is live.
func (t *Table) SetIdle(key []byte, seconds int64) bool {
	it := t.peekLive(key)
	if it == nil {
		return false
	}
	if t.acc != nil && !t.acc.LFU && seconds >= 0 {
		s := uint32(min(seconds, accessMask))
		setAccess(accessAt(it), (lruClock(t.clock.Ms)-s)&accessMask)
	}
	return true
}

// SetFreq sets key's LFU counter to freq (at most 255), stamped now, as
// RESTORE's FREQ sets it. Negative freq, LRU and a table that tracks
// nothing leave the key as it is. It reports whether key is live.
func (t *Table) SetFreq(key []byte, freq int) bool {
	it := t.peekLive(key)
	if it == nil {
		return false
	}
	if t.acc != nil && t.acc.LFU && freq >= 0 {
		setAccess(accessAt(it), lfuMinutes(t.clock.Ms)<<8|uint32(min(freq, lfuMax)))
	}
	return true
}
