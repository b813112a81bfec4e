package kvtable

// expSet is the dense set of refs of the entries that have a TTL. An entry
// with a TTL records its position here (expidx), so removal is a swap with
// the last element. It is chunked so that growth never copies a big array.

const (
	expChunkShift = 14
	expChunkLen   = 1 << expChunkShift
	expChunkMask  = expChunkLen - 1
)

type expSet struct {
	chunks [][]uint32 // full-size chunks are blocks of pool
	n      int
	pool   *blockPool
}

func (e *expSet) at(i int) uint32 { return e.chunks[i>>expChunkShift][i&expChunkMask] }

func (e *expSet) set(i int, ref uint32) { e.chunks[i>>expChunkShift][i&expChunkMask] = ref }

// push appends ref and returns its position.
func (e *expSet) push(ref uint32) int {
	i := e.n
	c := i >> expChunkShift
	switch {
	case c == len(e.chunks) && c == 0:
		e.chunks = append(e.chunks, make([]uint32, 16))
	case c == len(e.chunks):
		e.chunks = append(e.chunks, blockU32(e.pool.get(false)))
	case i&expChunkMask == len(e.chunks[c]):
		// Only the first chunk starts short; it doubles up to full size.
		old := e.chunks[c]
		if n := 2 * len(old); n < expChunkLen {
			e.chunks[c] = make([]uint32, n)
		} else {
			e.chunks[c] = blockU32(e.pool.get(false))
		}
		copy(e.chunks[c], old)
	}
	e.set(i, ref)
	e.n++
	return i
}

// pop removes the last element, dropping chunks beyond one spare.
func (e *expSet) pop() {
	e.n--
	if keep := e.n>>expChunkShift + 2; len(e.chunks) > keep {
		if last := e.chunks[len(e.chunks)-1]; len(last) == expChunkLen {
			e.pool.put(blockOf(last))
		}
		e.chunks[len(e.chunks)-1] = nil
		e.chunks = e.chunks[:len(e.chunks)-1]
	}
}

func (e *expSet) bytes() int {
	n := 0
	for _, c := range e.chunks {
		n += 4 * len(c)
	}
	return n
}
