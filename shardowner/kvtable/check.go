package kvtable

import (
	"fmt"
	"math/bits"
)

// Check verifies the table's internal invariants: every slot points at a live
// entry whose key hashes to the slot's bucket, counts agree, chains are
// packed, the TTL wheel and the entries agree, the arena's counters match its
// pages, every page is laid out for the table's access tracking and its
// free list is whole, the bytes the pool counts (a Meter's share) match
// what the table holds, and the block pool's counters match its spans. It walks the whole table:
// for tests and fuzzing, not for a running server.
func (t *Table) Check() error {
	seen := map[uint32]bool{}
	for k := range 2 {
		ix := &t.ix[k]
		if ix.dir == nil {
			if ix.count != 0 {
				return fmt.Errorf("index %d: no buckets but count %d", k, ix.count)
			}
			continue
		}
		n := 0
		for b := uint32(0); b <= ix.mask; b++ {
			g := ix.bucket(b)
			if k == 0 && t.rehashIdx > int(b) && g != nil && g[0] != 0 {
				return fmt.Errorf("migrated bucket %d not empty", b)
			}
			for g != nil {
				full := 0
				for i := range slotsPerGroup {
					w := g[i]
					if w == 0 {
						continue
					}
					if full != i {
						return fmt.Errorf("bucket %d: chain not packed", b)
					}
					full++
					n++
					ref := uint32(w)
					if seen[ref] {
						return fmt.Errorf("ref %x indexed twice", ref)
					}
					seen[ref] = true
					it := t.ar.item(ref)
					if it[0] == 0 {
						return fmt.Errorf("slot points at free item %x", ref)
					}
					h := t.hash(entryKey(it))
					if h&hashHigh != w&hashHigh || uint32(h>>32)&ix.mask != b {
						return fmt.Errorf("key %q in wrong slot", entryKey(it))
					}
					if k == 1 && int(uint32(h>>32)&t.ix[0].mask) >= t.rehashIdx {
						return fmt.Errorf("key %q in the new index, its old bucket not migrated yet", entryKey(it))
					}
					if it[0]&hdrTTL != 0 {
						i := entryExpIdx(it)
						if s := i >> segShift; s == 0 || s >= int(t.exp.segNext) || i&(segWords-1) < segHead || t.exp.at(i) != ref {
							return fmt.Errorf("key %q: TTL wheel position %d wrong", entryKey(it), i)
						}
					}
				}
				next := uint32(g[linkWord])
				if next == 0 {
					break
				}
				if full != slotsPerGroup {
					return fmt.Errorf("bucket %d: link after a group with room", b)
				}
				g = ix.overflow(next)
				if g[0] == 0 {
					return fmt.Errorf("bucket %d: empty overflow group linked", b)
				}
			}
		}
		if n != ix.count {
			return fmt.Errorf("index %d: %d slots, count %d", k, n, ix.count)
		}
	}
	nttl := 0
	for ref := range seen {
		if t.ar.item(ref)[0]&hdrTTL != 0 {
			nttl++
		}
	}
	if nttl != t.exp.n {
		return fmt.Errorf("%d keys with TTL, TTL wheel holds %d", nttl, t.exp.n)
	}
	if err := t.checkWheel(); err != nil {
		return err
	}
	var used, capa [numClasses]int
	bytes := 0
	if (t.acc != nil) != (t.ar.pre == accessBytes) || t.ar.pre != 0 && t.ar.pre != accessBytes {
		return fmt.Errorf("arena puts %d bytes before items, access tracking %v", t.ar.pre, t.acc != nil)
	}
	for i := 1; i < len(t.ar.pages); i++ {
		p := &t.ar.pages[i]
		if p.buf == nil {
			continue
		}
		bytes += p.held()
		if err := t.ar.checkPage(uint32(i), seen); err != nil {
			return err
		}
		live := 0
		for it := uint32(0); it < uint32(p.nitems); it++ {
			if seen[uint32(i)<<refItemBits|it] {
				live++
			}
		}
		if live != int(p.used) {
			return fmt.Errorf("page %d: %d live items, used %d", i, live, p.used)
		}
		if p.class != largeClass {
			used[p.class] += live
			capa[p.class] += int(p.nitems)
		}
	}
	if used != t.ar.used || capa != t.ar.capa {
		return fmt.Errorf("arena class counters out of step")
	}
	if bytes != t.ar.bytes {
		return fmt.Errorf("arena bytes %d, pages hold %d", t.ar.bytes, bytes)
	}
	if err := t.pool.checkErr(); err != nil {
		return err
	}
	if blocks := t.blocksHeld(); blocks != t.pool.inUse {
		return fmt.Errorf("table holds %d off-heap blocks, pool has %d in use", blocks, t.pool.inUse)
	}
	for k := range 2 {
		if w := chunkWordsHeld(t.ix[k].dir) + chunkWordsHeld(t.ix[k].ovf); w != t.ix[k].words {
			return fmt.Errorf("index %d holds %d words, counts %d", k, w, t.ix[k].words)
		}
	}
	if held := t.heldBytes(); int64(held) != t.pool.held {
		return fmt.Errorf("table holds %d bytes, its pool counts %d", held, t.pool.held)
	}
	return t.checkAggregates(seen)
}

// checkAggregates verifies that every packed aggregate is well formed and
// not empty, that every big one has a table of its own, not empty, and that
// the objects slice holds those tables and nothing else.
func (t *Table) checkAggregates(seen map[uint32]bool) error {
	owner := map[uint32]bool{}
	for ref := range seen {
		it := t.ar.item(ref)
		kind := Kind(it[0] & hdrKindMask)
		if kind == KindString {
			continue
		}
		v := t.value(it)
		switch it[0] & hdrEncMask {
		case encObj:
			i := le.Uint32(it[valueOff(it):])
			if int(i) >= len(t.objs) || t.objs[i] == nil || owner[i] {
				return fmt.Errorf("key %q: object %d missing or shared", entryKey(it), i)
			}
			owner[i] = true
			if t.objs[i].Len() == 0 && kind != KindStream {
				return fmt.Errorf("key %q: empty big aggregate", entryKey(it))
			}
			if err := t.objs[i].Check(); err != nil {
				return fmt.Errorf("key %q: %v", entryKey(it), err)
			}
			if kind == KindStream {
				if err := checkStream(t.objs[i]); err != nil {
					return fmt.Errorf("key %q: %v", entryKey(it), err)
				}
			}
			if kind == KindList {
				if err := checkList(t.objs[i]); err != nil {
					return fmt.Errorf("key %q: %v", entryKey(it), err)
				}
			}
		case encRaw:
			ok := false
			switch {
			case v.IntSet:
				ok = kind == KindSet && ValidIntSet(v.Str)
			case kind == KindHash, kind == KindZSet:
				ok = ValidPacked(v.Str, 2)
			case kind == KindSet, kind == KindList:
				ok = ValidPacked(v.Str, 1)
			}
			if !ok {
				return fmt.Errorf("key %q: malformed packed aggregate", entryKey(it))
			}
		default:
			return fmt.Errorf("key %q: aggregate with integer encoding", entryKey(it))
		}
	}
	for i, o := range t.objs {
		if o != nil && !owner[uint32(i)] {
			return fmt.Errorf("object %d held by no key", i)
		}
	}
	return nil
}

// blocksHeld counts the pool blocks the table's structures, and those of
// its Order's pages, which share its pool, point at.
func (t *Table) blocksHeld() int {
	n := 0
	if t.Order != nil {
		n += t.Order.Pages.blocksHeld()
	}
	for i := range t.ar.pages {
		if t.ar.pages[i].offHeap {
			n++
		}
	}
	for k := range 2 {
		for _, c := range t.ix[k].dir {
			if len(c) == chunkWords {
				n++
			}
		}
		for _, c := range t.ix[k].ovf {
			if len(c) == chunkWords {
				n++
			}
		}
	}
	for _, c := range t.exp.segs {
		if len(c) == segChunkWords {
			n++
		}
	}
	return n
}

// checkErr verifies the pool's counters against its spans' bitmaps.
func (p *blockPool) checkErr() error {
	inUse, warm, ahead := 0, 0, p.nextAhead
	for _, s := range p.spans {
		if s.base == nil {
			continue
		}
		if s.warm&^s.free != 0 || s.releasing&s.free != 0 || s.ahead&^s.free != 0 || s.ahead&s.warm != 0 {
			return fmt.Errorf("span %p: free %#x warm %#x releasing %#x ahead %#x", s.base, s.free, s.warm, s.releasing, s.ahead)
		}
		inUse += spanBlocks - bits.OnesCount32(s.free|s.releasing)
		warm += bits.OnesCount32(s.warm)
		ahead += bits.OnesCount32(s.ahead)
	}
	if inUse != p.inUse || warm != p.warm || ahead != p.ahead {
		return fmt.Errorf("pool counts %d in use, %d warm and %d ahead, spans say %d, %d and %d",
			p.inUse, p.warm, p.ahead, inUse, warm, ahead)
	}
	return nil
}

// checkWheel verifies the TTL wheel: every bucket's chain holds as many refs
// as it counts, each of an entry with a TTL that records that position, and
// each expiring before its bucket's slice ends (so that draining a bucket
// whose slice has ended deletes only expired keys); the counts per level,
// the total, the sum of expiry times and the due time agree.
func (t *Table) checkWheel() error {
	w := &t.exp
	total := 0
	var sumHi, sumLo uint64
	due := int64(noneDue)
	for l := range wheelLevels {
		sh := sliceShift(l)
		n := 0
		for q := w.next[l]; q < w.next[l]+wheelSlots; q++ {
			if w.levels[l] == nil {
				break
			}
			b := &w.levels[l][q&wheelMask]
			inChain := 0
			for s, first := b.head, true; s != 0; s, first = w.seg(s)[0], false {
				g := w.seg(s)
				if g[1] != uint32(l<<wheelBits|int(q&wheelMask)) {
					return fmt.Errorf("level %d slice %d: segment %d has bucket id %x", l, q, s, g[1])
				}
				refs := segRefs
				if first {
					refs = int(b.n-1)%segRefs + 1
				}
				for i := range refs {
					pos := int(s)<<segShift | segHead + i
					it := t.ar.item(g[segHead+i])
					if it[0] == 0 || it[0]&hdrTTL == 0 || entryExpIdx(it) != pos {
						return fmt.Errorf("level %d slice %d: position %d holds no entry with a TTL there", l, q, pos)
					}
					e := entryExpire(it)
					if l < wheelLevels-1 && e >= (q+1)<<sh {
						return fmt.Errorf("key %q expiring at %d in level %d slice %d", entryKey(it), e, l, q)
					}
					var c uint64
					sumLo, c = bits.Add64(sumLo, uint64(e), 0)
					sumHi += c
					inChain++
				}
			}
			if inChain != int(b.n) {
				return fmt.Errorf("level %d slice %d: chain holds %d refs, bucket counts %d", l, q, inChain, b.n)
			}
			n += inChain
		}
		if n != w.count[l] {
			return fmt.Errorf("level %d holds %d refs, counts %d", l, n, w.count[l])
		}
		if n > 0 {
			due = min(due, w.nextDue(l))
		}
		total += n
	}
	if total != w.n || sumHi != w.sumHi || sumLo != w.sumLo {
		return fmt.Errorf("wheel holds %d refs, counts %d; sums differ: %v", total, w.n, sumHi != w.sumHi || sumLo != w.sumLo)
	}
	if w.due > due {
		return fmt.Errorf("wheel due at %d, a bucket is due at %d", w.due, due)
	}
	return nil
}

// heldBytes counts afresh what a Meter counts for the table (see Meter):
// its arena items in use, index and overflow chunks, TTL-wheel chunks and level
// arrays, and those of its Order's pages, which share its pool.
func (t *Table) heldBytes() int {
	n := 0
	for i := range t.ar.pages {
		switch p := &t.ar.pages[i]; {
		case p.buf == nil:
		case p.class == largeClass:
			n += len(p.buf)
		default:
			n += int(p.used) * int(p.stride)
		}
	}
	for k := range 2 {
		n += 8 * (chunkWordsHeld(t.ix[k].dir) + chunkWordsHeld(t.ix[k].ovf))
	}
	for _, c := range t.exp.segs {
		n += 4 * len(c)
	}
	for _, lv := range t.exp.levels {
		if lv != nil {
			n += levelBytes
		}
	}
	if t.Order != nil {
		n += t.Order.Pages.heldBytes()
	}
	return n
}

func chunkWordsHeld(chunks [][]uint64) int {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	return n
}

// checkPage verifies the layout of page idx: every item has the table's
// access bytes before it and the page holds whole strides; its free list
// holds the items below bump that no slot points at, each once, with 0 in
// its first byte.
func (a *arena) checkPage(idx uint32, seen map[uint32]bool) error {
	p := &a.pages[idx]
	if p.pre != a.pre || p.stride != p.size+uint32(p.pre) {
		return fmt.Errorf("page %d: stride %d for items of %d bytes with %d before each, the arena puts %d",
			idx, p.stride, p.size, p.pre, a.pre)
	}
	if p.class == largeClass {
		if p.nitems != 1 || p.used != 1 || p.size <= maxClassSize || len(p.buf) != int(p.stride) {
			return fmt.Errorf("large page %d: %d items of %d bytes in %d", idx, p.nitems, p.size, len(p.buf))
		}
		return nil
	}
	if p.size != classSize[p.class] || p.nitems == 0 || len(p.buf) != int(p.nitems)*int(p.stride) || p.bump > p.nitems {
		return fmt.Errorf("page %d of class %d: %d items of %d bytes, stride %d, bump %d, in %d bytes",
			idx, p.class, p.nitems, p.size, p.stride, p.bump, len(p.buf))
	}
	free := 0
	onList := map[uint16]bool{}
	for f := p.free; f != 0; {
		it := f - 1
		if it >= p.bump || onList[f] || seen[idx<<refItemBits|uint32(it)] {
			return fmt.Errorf("page %d: free list holds item %d, past bump %d, twice or live", idx, it, p.bump)
		}
		onList[f] = true
		off := p.itemOff(uint32(it))
		if p.buf[off] != 0 {
			return fmt.Errorf("page %d: free item %d has header %#x", idx, it, p.buf[off])
		}
		f = le.Uint16(p.buf[off+1:])
		free++
	}
	if free != int(p.bump)-int(p.used) {
		return fmt.Errorf("page %d: %d items on the free list, %d handed out and %d live", idx, free, p.bump, p.used)
	}
	return nil
}
