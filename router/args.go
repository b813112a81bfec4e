package router

// Args owns a copy of a command's arguments, or of several commands' one
// after another: their bytes in one buffer and where each argument ends. It
// hands them out as [][]byte views into storage of its own, so a holder that
// is recycled (a waiter, a parked command, a plan) keeps and reads arguments
// without allocating once its buffers have grown to the commands it sees.
//
// The views are valid until the next Set, Append or Reset; each Argv or
// Slice reuses the same vector.
type Args struct {
	buf  []byte
	ends []int
	view [][]byte
}

// Set makes a hold a copy of argv alone.
func (a *Args) Set(argv [][]byte) {
	a.buf, a.ends = a.buf[:0], a.ends[:0]
	a.Append(argv)
}

// Append adds a copy of argv after the arguments a holds.
func (a *Args) Append(argv [][]byte) {
	// Grown in locals and stored once: a store into a holder on the heap
	// costs a write barrier check each time.
	buf, ends := a.buf, a.ends
	for _, x := range argv {
		buf = append(buf, x...)
		ends = append(ends, len(buf))
	}
	a.buf, a.ends = buf, ends
}

// Len is how many arguments a holds.
func (a *Args) Len() int { return len(a.ends) }

// Bytes is the size of the arguments a holds.
func (a *Args) Bytes() int { return len(a.buf) }

// Arg is argument i.
func (a *Args) Arg(i int) []byte {
	start := 0
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.buf[start:a.ends[i]]
}

// Argv is every argument a holds.
func (a *Args) Argv() [][]byte { return a.Slice(0, len(a.ends)) }

// Slice is the n arguments from the from-th on.
func (a *Args) Slice(from, n int) [][]byte {
	view, buf, ends := a.view[:0], a.buf, a.ends
	start := 0
	if from > 0 {
		start = ends[from-1]
	}
	for _, end := range ends[from : from+n] {
		view = append(view, buf[start:end])
		start = end
	}
	a.view = view
	return view
}

// Reset empties a. Buffers that one unusual command grew past what is
// worth keeping are left to the collector.
func (a *Args) Reset() {
	if cap(a.buf) > batchKeep {
		// The views point into it too.
		a.buf, a.view = nil, nil
	}
	if cap(a.ends) > argsKeep {
		a.ends, a.view = nil, nil
	}
	a.buf, a.ends, a.view = a.buf[:0], a.ends[:0], a.view[:0]
}

// Large reports whether a's buffers grew past what a recycled holder
// keeps.
func (a *Args) Large() bool { return cap(a.buf) > batchKeep || cap(a.ends) > argsKeep }
