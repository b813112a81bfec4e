package script

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Watch is a shard's running script as other goroutines see it: since
// when it runs, whether it wrote, and a request to stop it. SCRIPT KILL,
// sent on any core, reads and kills through it while the shard's thread is
// inside the script (Redis's busy script), which answers its own clients
// only from the look SetWhileBusy gives the watch.
//
// The engine it is given to (Options.Watch) stops a killed script within
// killCheckEvery Lua instructions: the interpreter asks its context
// whether to stop at every instruction, and the watch's context is that
// question, answered from an atomic flag once every so many asks.
type Watch struct {
	// state is the running script's start, in ms of its caller's clock,
	// above runBits bits of its number (runs are numbered from 1); 0: none
	// runs. One word, so that a run costs one store to begin and one to end.
	state atomic.Uint64
	wrote atomic.Bool
	kill  atomic.Uint64 // killMark | the number of the run to stop
	ctx   watchCtx
	// function is set while the run is a function's (FCALL), whose name
	// and command FUNCTION STATS shows: kept under mu, in buffers the next
	// function's run reuses.
	function atomic.Bool
	mu       sync.Mutex
	fnName   string
	fnArgs   []byte
	fnEnds   []int
	// whileBusy runs on the script's thread at each check of the kill
	// flag (SetWhileBusy).
	whileBusy func()
	// killed: the run that ended last was stopped (Killed); on the
	// script's thread.
	killed bool
}

const (
	runBits  = 20
	runMask  = 1<<runBits - 1
	killMark = 1 << 63
)

// killCheckEvery is how many instructions pass between two reads of the
// kill flag: a power of two.
const killCheckEvery = 1 << 12

// NewWatch returns a watch of no running script.
func NewWatch() *Watch {
	w := &Watch{}
	w.ctx.w = w
	w.ctx.open = make(chan struct{})
	w.ctx.after = make(map[uint64]func())
	return w
}

// SetWhileBusy gives the watch what its thread runs from inside a script,
// every killCheckEvery instructions: the server's look at whether the
// script has run long enough to answer other clients meanwhile. It is set
// once, before the thread runs scripts.
func (w *Watch) SetWhileBusy(f func()) { w.whileBusy = f }

// Running reports how long the running script has run at nowMs, 0 when
// none runs, whether it wrote, and its number, for Kill.
func (w *Watch) Running(nowMs int64) (ms int64, wrote bool, run uint64) {
	st := w.state.Load()
	if st == 0 {
		return 0, false, 0
	}
	return max(nowMs-int64(st>>runBits), 1), w.wrote.Load(), st & runMask
}

// Wrote notes that the running script wrote: SCRIPT KILL no longer stops
// it (UNKILLABLE), since what it did so far would stay.
func (w *Watch) Wrote() {
	if !w.wrote.Load() {
		w.wrote.Store(true)
	}
}

// Kill asks run, the script Running reported, to stop; a later run is not
// affected.
func (w *Watch) Kill(run uint64) {
	w.kill.Store(killMark | run)
	w.ctx.mu.Lock()
	after := make([]func(), 0, len(w.ctx.after))
	for _, f := range w.ctx.after {
		after = append(after, f)
	}
	clear(w.ctx.after)
	w.ctx.mu.Unlock()
	for _, f := range after {
		f() // cancels a coroutine's context, which calls its stop
	}
}

// Killed reports whether the run that ended last was stopped by Kill (or
// Stop); on the watched thread, after End.
func (w *Watch) Killed() bool { return w.killed }

// Stop stops the running script from its own thread (a host that found
// it cannot go on).
func (w *Watch) Stop() { w.Kill(w.ctx.run & runMask) }

// Begin and End frame a run of the engine the watch is given to, on its
// thread; nowMs is the caller's clock in ms, which Running's must be.
func (w *Watch) Begin(nowMs int64) {
	w.ctx.run++
	w.ctx.dead = false
	if w.wrote.Load() {
		w.wrote.Store(false)
	}
	w.state.Store(uint64(max(nowMs, 1))<<runBits | w.ctx.run&runMask)
}

// BeginFunction is Begin for a run of the function name, called by argv
// (FCALL …).
func (w *Watch) BeginFunction(nowMs int64, name string, argv [][]byte) {
	w.mu.Lock()
	w.fnName = name
	w.fnArgs, w.fnEnds = w.fnArgs[:0], w.fnEnds[:0]
	for _, a := range argv {
		w.fnArgs = append(w.fnArgs, a...)
		w.fnEnds = append(w.fnEnds, len(w.fnArgs))
	}
	w.mu.Unlock()
	w.function.Store(true)
	w.Begin(nowMs)
}

// Function reports whether the running script, if any, is a function
// (FCALL) rather than an EVAL script: each KILL stops only its own kind.
func (w *Watch) Function() bool { return w.function.Load() }

// RunningFunction returns the name and command of the function running,
// or false when none runs (FUNCTION STATS).
func (w *Watch) RunningFunction() (name string, argv [][]byte, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state.Load() == 0 || !w.function.Load() {
		return "", nil, false
	}
	start := 0
	for _, end := range w.fnEnds {
		argv = append(argv, append([]byte(nil), w.fnArgs[start:end]...))
		start = end
	}
	return w.fnName, argv, true
}

func (w *Watch) End() {
	w.state.Store(0)
	w.killed = w.ctx.dead
	w.ctx.dead = false
	if w.function.Load() {
		w.function.Store(false)
	}
	if w.ctx.anyAfter.Load() {
		w.ctx.mu.Lock()
		clear(w.ctx.after) // of coroutines left suspended
		w.ctx.anyAfter.Store(false)
		w.ctx.mu.Unlock()
	}
}

// errWatchKilled is the context error of a killed script; the error
// handler turns it into Redis's SCRIPT KILL error.
var errWatchKilled = errors.New("script killed")

// closedChan is the Done of a killed script.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// watchCtx is the context a watched engine's interpreter runs under.
// Coroutines get child contexts of it, which it cancels through AfterFunc
// when killed (the context package uses AfterFunc rather than a goroutine
// per child).
type watchCtx struct {
	w    *Watch
	run  uint64 // the running script's number, on the shard's thread
	asks uint32 // Done calls, on the shard's thread
	// dead: the running script was found killed; every instruction after
	// raises the error again, so that a pcall cannot go on past it.
	dead     bool
	open     chan struct{}
	mu       sync.Mutex
	after    map[uint64]func()
	next     uint64
	anyAfter atomic.Bool // after may hold some
}

func (c *watchCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *watchCtx) Value(any) any               { return nil }

func (c *watchCtx) killed() bool { return c.w.kill.Load() == killMark|c.run&runMask }

func (c *watchCtx) Done() <-chan struct{} {
	if c.dead {
		return closedChan
	}
	c.asks++
	if c.asks&(killCheckEvery-1) == 0 {
		if c.w.whileBusy != nil {
			c.w.whileBusy()
		}
		if c.killed() {
			c.dead = true
			return closedChan
		}
	}
	return c.open
}

func (c *watchCtx) Err() error {
	if c.killed() {
		return errWatchKilled
	}
	return nil
}

func (c *watchCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killed() {
		// Killed before the coroutine was made: Kill has run its list.
		// The context package calls AfterFunc holding the child's lock,
		// which its cancel takes: f runs on its own, as AfterFunc's
		// contract has it.
		go f()
		return func() bool { return false }
	}
	id := c.next
	c.next++
	c.after[id] = f
	c.anyAfter.Store(true)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.after[id]
		delete(c.after, id)
		return ok
	}
}

var _ context.Context = (*watchCtx)(nil)
