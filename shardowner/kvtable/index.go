package kvtable

// The index is a power-of-two array of buckets. A bucket is a group of 8
// uint64 words: 7 slots and a link to an overflow group (0: none). A slot is
//
//	hash>>32 (high 32 bits) | arena ref (low 32 bits)
//
// and 0 when empty. A key's bucket is the low bits of its stored hash, so
// rehashing and scanning never read the arena. The slots of a bucket's chain
// are packed: no empty slot comes before a full one, and an overflow group is
// unlinked as soon as it is empty, so a lookup stops at the first empty slot.
//
// Groups live in chunks of chunkGroups groups (64 KiB, one off-heap block),
// allocated when first written, so that growing a big table never allocates
// or zeroes the whole new array in one operation. Overflow groups have chunks
// of their own. A chunk of full size is always a block of the table's pool;
// a shorter one (a small table's only chunk, the first overflow chunk while
// it grows) is on the Go heap.

const (
	slotsPerGroup = 7
	wordsPerGroup = 8
	linkWord      = 7
	chunkShift    = 10
	chunkGroups   = 1 << chunkShift
	chunkMask     = chunkGroups - 1
	chunkWords    = chunkGroups * wordsPerGroup

	// maxLoad is the mean number of keys per bucket that starts a growth;
	// minLoad (as a fraction 1/minLoadDiv) starts a shrink.
	maxLoad    = 5
	minLoadDiv = 2
)

type index struct {
	dir   [][]uint64 // chunks of buckets; nil chunk: all its buckets empty
	mask  uint32     // buckets-1
	count int

	ovf     [][]uint64 // chunks of overflow groups; group 0 is never used
	ovfNext uint32     // next overflow group never handed out
	ovfFree uint32     // first free overflow group, linked through linkWord
	words   int        // words allocated, for memory accounting
	pool    *blockPool
}

func newIndex(buckets uint32, pool *blockPool) index {
	ix := index{mask: buckets - 1, ovfNext: 1, pool: pool}
	ix.dir = make([][]uint64, (buckets+chunkMask)>>chunkShift)
	if buckets < chunkGroups {
		ix.dir[0] = make([]uint64, buckets*wordsPerGroup)
		ix.grew(int(buckets * wordsPerGroup))
	}
	return ix
}

// grew records that the index holds n words more (fewer, for n < 0).
func (ix *index) grew(n int) {
	ix.words += n
	ix.pool.count(8 * n)
}

// bucket returns bucket b's first group, nil if its chunk is not allocated.
func (ix *index) bucket(b uint32) []uint64 {
	c := ix.dir[b>>chunkShift]
	if c == nil {
		return nil
	}
	o := (b & chunkMask) * wordsPerGroup
	return c[o : o+wordsPerGroup : o+wordsPerGroup]
}

// bucketForWrite is bucket, allocating the chunk if needed.
func (ix *index) bucketForWrite(b uint32) []uint64 {
	if ix.dir[b>>chunkShift] == nil {
		ix.dir[b>>chunkShift] = blockWords(ix.pool.get(true))
		ix.grew(chunkWords)
	}
	return ix.bucket(b)
}

func (ix *index) overflow(id uint32) []uint64 {
	c := ix.ovf[id>>chunkShift]
	o := (id & chunkMask) * wordsPerGroup
	return c[o : o+wordsPerGroup : o+wordsPerGroup]
}

// newOverflow returns the id of an empty overflow group. It may move the
// first overflow chunk, so group slices taken before it are stale.
func (ix *index) newOverflow() uint32 {
	if id := ix.ovfFree; id != 0 {
		g := ix.overflow(id)
		ix.ovfFree = uint32(g[linkWord])
		g[linkWord] = 0
		return id
	}
	id := ix.ovfNext
	ix.ovfNext++
	c := int(id >> chunkShift)
	need := int(id&chunkMask+1) * wordsPerGroup
	switch {
	case c == len(ix.ovf) && c == 0:
		ix.ovf = append(ix.ovf, make([]uint64, 4*wordsPerGroup))
		ix.grew(4 * wordsPerGroup)
	case c == len(ix.ovf):
		ix.ovf = append(ix.ovf, blockWords(ix.pool.get(true)))
		ix.grew(chunkWords)
	case need > len(ix.ovf[c]):
		// The first chunk grows by doubling so that a small table pays
		// little for its few overflow groups.
		old := ix.ovf[c]
		n := min(2*len(old), chunkWords)
		if n == chunkWords {
			ix.ovf[c] = blockWords(ix.pool.get(true))
		} else {
			ix.ovf[c] = make([]uint64, n)
		}
		copy(ix.ovf[c], old)
		ix.grew(n - len(old))
	}
	return id
}

// dropChunk forgets chunk c of dir, handing it back to the pool if it is
// one of its blocks.
func (ix *index) dropChunk(c uint32) {
	ch := ix.dir[c]
	ix.grew(-len(ch))
	if len(ch) == chunkWords {
		ix.pool.put(blockOf(ch))
	}
	ix.dir[c] = nil
}

// release empties the index, handing its blocks back to the pool (where
// they stay warm: an index rehashed away can hold a hundred overflow chunks,
// and none of them costs a system call here).
func (ix *index) release() {
	for _, chunks := range [2][][]uint64{ix.dir, ix.ovf} {
		for _, ch := range chunks {
			if len(ch) == chunkWords {
				ix.pool.put(blockOf(ch))
			}
		}
	}
	ix.grew(-ix.words)
	*ix = index{}
}

func (ix *index) freeOverflow(id uint32) {
	g := ix.overflow(id)
	clear(g)
	g[linkWord] = uint64(ix.ovfFree)
	ix.ovfFree = id
}

// insert adds slot word w to bucket b; the key must not be present.
func (ix *index) insert(b uint32, w uint64) {
	ix.count++
	g := ix.bucketForWrite(b)
	var gid uint32 // 0: the bucket's own group, else an overflow id
	for {
		for i := 0; i < slotsPerGroup; i++ {
			if g[i] == 0 {
				g[i] = w
				return
			}
		}
		next := uint32(g[linkWord])
		if next == 0 {
			break
		}
		g, gid = ix.overflow(next), next
	}
	id := ix.newOverflow()
	if gid == 0 {
		g = ix.bucket(b)
	} else {
		g = ix.overflow(gid)
	}
	g[linkWord] = uint64(id)
	ix.overflow(id)[0] = w
}

// remove deletes slot word w from bucket b, moving the chain's last slot
// into the hole so that the chain stays packed. It reports whether w was
// found.
func (ix *index) remove(b uint32, w uint64) bool {
	g := ix.bucket(b)
	if g == nil {
		return false
	}
	var hole []uint64
	holeI := 0
	var prevID, curID uint32 // ids of g and of the group before it (0: the bucket's own)
	for {
		n := 0
		for n < slotsPerGroup && g[n] != 0 {
			if g[n] == w {
				hole, holeI = g, n
			}
			n++
		}
		next := uint32(g[linkWord])
		if next != 0 {
			prevID, curID = curID, next
			g = ix.overflow(next)
			continue
		}
		// g is the chain's last group, and g[n-1] its last slot.
		if hole == nil {
			return false
		}
		hole[holeI] = g[n-1]
		g[n-1] = 0
		ix.count--
		if n == 1 && curID != 0 {
			pg := ix.bucket(b)
			if prevID != 0 {
				pg = ix.overflow(prevID)
			}
			pg[linkWord] = 0
			ix.freeOverflow(curID)
		}
		return true
	}
}

// replace swaps slot word old for w in bucket b.
func (ix *index) replace(b uint32, old, w uint64) bool {
	g := ix.bucket(b)
	for g != nil {
		for i := 0; i < slotsPerGroup && g[i] != 0; i++ {
			if g[i] == old {
				g[i] = w
				return true
			}
		}
		next := uint32(g[linkWord])
		if next == 0 {
			break
		}
		g = ix.overflow(next)
	}
	return false
}
