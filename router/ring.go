package router

import "sync/atomic"

// cacheLine pads the ring's hot fields apart so the producer's and the
// consumer's writes never share a line.
type cacheLine [64]byte

// Ring is a bounded single-producer single-consumer queue of batches between
// two cores. Push is called only by the producing core, Pop only by the
// consuming core. Each side keeps a private copy of the other's position and
// refreshes it only when the ring looks full (or empty), so in the steady
// state a push or pop touches one shared cache line.
type Ring struct {
	_          cacheLine
	head       atomic.Uint64 // next slot to pop; written by the consumer
	_          cacheLine
	tail       atomic.Uint64 // next slot to push; written by the producer
	_          cacheLine
	cachedHead uint64 // producer's copy of head
	_          cacheLine
	cachedTail uint64 // consumer's copy of tail
	_          cacheLine
	buf        []*Batch
	mask       uint64
}

// NewRing returns a ring holding up to size batches; size is rounded up to a
// power of two.
func NewRing(size int) *Ring {
	n := 1
	for n < size {
		n <<= 1
	}
	return &Ring{buf: make([]*Batch, n), mask: uint64(n - 1)}
}

// Push publishes b and reports false, publishing nothing, when the ring is
// full. The store of tail is the publication: everything written to b before
// it is visible to the consumer that loads tail.
func (r *Ring) Push(b *Batch) bool {
	t := r.tail.Load()
	if t-r.cachedHead > r.mask {
		r.cachedHead = r.head.Load()
		if t-r.cachedHead > r.mask {
			return false
		}
	}
	r.buf[t&r.mask] = b
	r.tail.Store(t + 1)
	return true
}

// Pop takes the oldest batch, or nil when the ring is empty.
func (r *Ring) Pop() *Batch {
	h := r.head.Load()
	if h == r.cachedTail {
		r.cachedTail = r.tail.Load()
		if h == r.cachedTail {
			return nil
		}
	}
	b := r.buf[h&r.mask]
	r.buf[h&r.mask] = nil
	r.head.Store(h + 1)
	return b
}

// Empty reports whether the ring holds nothing. Either side may call it; the
// sleeping check before epoll_wait relies on it reading the shared tail.
func (r *Ring) Empty() bool {
	return r.head.Load() == r.tail.Load()
}

// Mesh holds the rings between every ordered pair of n cores: Mesh.To(i, j)
// carries batches from core i to core j.
type Mesh struct {
	n     int
	rings []*Ring
}

// NewMesh returns the rings for n cores, each holding up to size batches.
func NewMesh(n, size int) *Mesh {
	m := &Mesh{n: n, rings: make([]*Ring, n*n)}
	for i := range m.rings {
		if i/n != i%n {
			m.rings[i] = NewRing(size)
		}
	}
	return m
}

// To returns the ring from core i to core j (nil when i == j).
func (m *Mesh) To(i, j int) *Ring { return m.rings[i*m.n+j] }
