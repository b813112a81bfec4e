package script

import (
	"sync"
	"sync/atomic"
)

// Registry is the server's script cache as clients see it: the bodies of
// every script SCRIPT LOAD or EVAL added, by SHA, shared by all shards.
// Each shard's Engine compiles what it runs into its own cache; the
// registry is what lets EVALSHA find a script that EVAL or SCRIPT LOAD
// added on another shard, and what SCRIPT EXISTS, SCRIPT FLUSH and INFO
// read. A shard touches it when it meets a script its engine has not
// compiled, and once per run to see whether SCRIPT FLUSH emptied it
// (Generation): a script that runs again and again reads one atomic.
type Registry struct {
	mu        sync.Mutex
	bodies    map[string]*entry
	evalOrder []string // SHAs of EVAL-only scripts, oldest first
	bytes     int
	evicted   uint64
	gen       atomic.Uint64
}

type entry struct {
	body     []byte
	evalOnly bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{bodies: make(map[string]*entry)} }

// Generation counts the flushes: an engine compiled its scripts under the
// generation it saw, and flushes itself when the registry's has moved on.
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// Add records body under sha: for ever when load (SCRIPT LOAD, which also
// makes an EVAL-only script permanent), else as an EVAL-only script, the
// oldest of which are dropped past EvalCacheSize. Oldest by when they were
// added, not last run as in Redis 7.4: a run that finds its script compiled
// on its shard does not touch the registry. A shard that still has a
// dropped script compiled runs it by EVALSHA until its own cache drops it.
func (r *Registry) Add(sha string, body []byte, load bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.bodies[sha]; e != nil {
		if load && e.evalOnly {
			e.evalOnly = false
			r.dropFromOrder(sha)
		}
		return
	}
	r.bodies[sha] = &entry{body: append([]byte(nil), body...), evalOnly: !load}
	r.bytes += len(body)
	if load {
		return
	}
	r.evalOrder = append(r.evalOrder, sha)
	for len(r.evalOrder) > EvalCacheSize {
		old := r.evalOrder[0]
		r.evalOrder = r.evalOrder[1:]
		r.bytes -= len(r.bodies[old].body)
		delete(r.bodies, old)
		r.evicted++
	}
}

func (r *Registry) dropFromOrder(sha string) {
	for i, s := range r.evalOrder {
		if s == sha {
			r.evalOrder = append(r.evalOrder[:i], r.evalOrder[i+1:]...)
			return
		}
	}
}

// Body returns the body of the script named sha (any case) and whether
// SCRIPT LOAD added it, or nil.
func (r *Registry) Body(sha string) (body []byte, loaded bool) {
	if len(sha) != 40 {
		return nil, false
	}
	sha = lowerSHA(sha)
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.bodies[sha]; e != nil {
		return e.body, !e.evalOnly
	}
	return nil, false
}

// Exists reports whether sha (any case) names a script (SCRIPT EXISTS).
func (r *Registry) Exists(sha string) bool {
	b, _ := r.Body(sha)
	return b != nil
}

// Flush forgets every script (SCRIPT FLUSH); each engine flushes itself
// when it next runs one (Generation).
func (r *Registry) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.bodies)
	r.evalOrder = r.evalOrder[:0]
	r.bytes = 0
	r.gen.Add(1)
}

// Stats are the registry's figures for INFO: number_of_cached_scripts,
// the bodies' bytes (used_memory_scripts_eval's main part) and
// evicted_scripts.
func (r *Registry) Stats() (scripts, bytes int, evicted uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies), r.bytes, r.evicted
}
