package router

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
)

// Scripts over several shards. A script whose declared keys live on more
// than one shard runs as a transaction over them (scriptTxn) whose body is
// a gathering plan (gather.go): the keys' values come to the client's home
// core, the script runs there whole on the scratch keyspace, and what it
// changed goes back to the keys' shards, all under the transaction's locks.
//
// A script may also touch keys it does not declare. On the scratch
// keyspace such a key is missing, so the run stops at its first touch of
// one, before anything it did leaves the scratch keyspace; the
// transaction then takes that key as well and runs the script again from
// its start. Taking a key later than the others breaks the order locks
// are taken in, so the transaction lets go of everything and takes the
// larger set again, in order. Data may change while it holds nothing, and
// a script that then touches other keys would go round again: after
// scriptLockRounds such rounds it takes every shard whole, where nothing
// changes between runs and each new key is gathered without a lock.

// scriptLockRounds is how many times a script's transaction takes its keys
// before it takes every shard whole instead.
const scriptLockRounds = 3

// maxScriptExtraKeys bounds the keys a script may touch beyond those it
// declares when its keys span shards: each one costs a run of the script.
const maxScriptExtraKeys = 128

// scriptPlan is what a gathering plan keeps when its command is a script.
type scriptPlan struct {
	extra   Args // keys gathered beyond the declared ones, from earlier runs
	missing Args // keys the run touched that were not gathered
	// retry marks a plan whose transaction (scriptTxn) runs the script
	// again with the missing keys; inside EXEC, whose locks are fixed, a
	// missing key is an error instead.
	retry bool
	// otherDB: the script touched a key of another database than its
	// command's (SELECT), which a plan cannot gather.
	otherDB bool
}

// has reports whether key of database db is one the plan gathered.
func (p *plan) has(db int, key []byte) bool {
	if db != p.db {
		return false
	}
	for i := range p.gkeys {
		if bytes.Equal(p.gkeys[i].key, key) {
			return true
		}
	}
	return false
}

// scratchRun readies the scratch keyspace's scripting for a run of p's
// script: its host checks every key against what p gathered, and a
// touch of one it lacks stops the script, as SCRIPT KILL does (through
// the core's watch; without one, Engine.SetInterrupt). It returns what
// ends that.
func (p *plan) scratchRun(r *scriptRun) (end func()) {
	// MONITOR sees the run that stands, not one that stopped for a key.
	showHeld := func() {
		var mon ScriptMonitor
		if p.script.missing.Len() == 0 {
			mon = monitorOf(p.own.ID)
		}
		r.host.monHeld.show(mon)
	}
	if w := r.host.watch; w != nil {
		r.host.scratch, r.host.stop = p, w.Stop
		return func() {
			r.host.scratch, r.host.stop = nil, nil
			showHeld()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.host.scratch, r.host.stop = p, cancel
	r.engine.SetInterrupt(ctx)
	return func() {
		r.engine.SetInterrupt(nil)
		cancel()
		r.host.scratch, r.host.stop = nil, nil
		showHeld()
	}
}

// scratchKeys checks, for a script running on the scratch keyspace, that
// the keys the command names were gathered. A missing one is noted and
// stops the script; it reports false then.
func (h *scriptHost) scratchKeys(cmd *Command, argv [][]byte) bool {
	p := h.scratch
	h.keyPos = cmd.KeyIndexes(h.keyPos[:0], argv)
	ok := true
	for _, i := range h.keyPos {
		if !p.has(h.ctx.DB, argv[i]) {
			ok = false
			p.lack(h.ctx.DB, argv[i])
		}
	}
	if to, key, moves := otherDB(cmd, argv, len(h.ctx.Shard.DBs)); moves && !p.has(to, key) {
		ok = false
		p.lack(to, key)
	}
	if !ok {
		h.stop()
	}
	return ok
}

// lack notes a key the script touched that was not gathered. Only keys of
// the plan's database can be gathered.
func (p *plan) lack(db int, key []byte) {
	if db != p.db {
		p.script.otherDB = true
	}
	p.script.missing.Append([][]byte{key})
}

// lacked ends a plan whose script touched keys it had not gathered: with
// no reply for its transaction to run it again, or with the error.
func (p *plan) lacked(ex Exec, s *Slot) {
	if p.script.retry {
		p.done(ex, s, nil)
		return
	}
	p.done(ex, s, errReply(errScriptUndeclared))
}

// scriptTxn is the transaction of a script whose keys span shards.
type scriptTxn struct {
	Txn
	cmd    *Command
	db     int
	args   Args
	keyPos []int
	extra  Args // keys found beyond the declared ones
	rounds int  // runs so far
	habit  *scriptHabit
	// pinned: the script selects another database, so it runs on one
	// shard, held whole, as a part (scriptHabit.pinned).
	pinned bool
}

// pinShard is the shard a pinned script runs on: that of its first
// declared key, or the client's own.
func (b *scriptTxn) pinShard(ex Exec) int {
	if len(b.keyPos) == 0 {
		return ex.Own().ID
	}
	return ShardOf(b.args.Arg(b.keyPos[0]), ex.Shards())
}

// keptToOneShard reports whether every key the script touched beyond
// those it declares is sure to live on their shard (a script that declares
// none must have touched none). known is false when the declared keys span shards:
// the run then says nothing about runs whose keys share one.
func (b *scriptTxn) keptToOneShard(n int) (local, known bool) {
	argv := b.args.Argv()
	if len(b.keyPos) == 0 {
		return b.extra.Len() == 0, true
	}
	sh := ShardOf(argv[b.keyPos[0]], n)
	for _, k := range b.keyPos[1:] {
		if ShardOf(argv[k], n) != sh {
			return false, false
		}
	}
	// A key it did not declare may share the shard by chance this run and
	// not the next (BullMQ's job keys); only one under a declared key's
	// hash tag is sure to.
	for i := range b.extra.Len() {
		if !sharesTag(b.extra.Arg(i), argv, b.keyPos) {
			return false, true
		}
	}
	return true, true
}

// sharesTag reports whether key has the hash tag of one of argv's keys at
// keyPos.
func sharesTag(key []byte, argv [][]byte, keyPos []int) bool {
	tag := HashTag(key)
	if len(tag) == len(key) {
		return false // no tag: it is its own, and not a declared key
	}
	for _, k := range keyPos {
		if bytes.Equal(HashTag(argv[k]), tag) {
			return true
		}
	}
	return false
}

// startScriptSplit runs a script as a transaction over its declared keys:
// they span shards, or its runs have not shown yet that it keeps to its
// keys' shard (RunsOnShard).
func startScriptSplit(ex Exec, s *Slot, cmd *Command, db, proto int, argv [][]byte) {
	b := new(scriptTxn)
	n := ex.Shards()
	b.Begin(s.Client, proto, n, s)
	b.cmd, b.db = cmd, db
	b.habit = habitOf(argv)
	b.args.Set(argv)
	b.keyPos = cmd.KeyIndexes(b.keyPos[:0], argv)
	for _, k := range b.keyPos {
		b.LockKey(ShardOf(argv[k], n), db, argv[k])
	}
	// The body starts once every lock is granted, so that a run that
	// needs more keys can let go of them all (Restart).
	b.Start(ex, b)
}

// Run runs the script over its keys' values (TxnBody).
func (b *scriptTxn) Run(ex Exec, t *Txn, touched bool) {
	if b.cmd.Flags&FlagReadonly == 0 {
		t.Writes()
	}
	if b.pinned {
		t.Submit(ex, b.pinShard(ex), b.cmd, b.db, b.args.Argv())
		return
	}
	b.rounds++
	inner := t.NewPart(ex)
	p := newPlan(ex, inner, b.cmd, b.db, t.proto, b.args.Argv())
	p.script.extra.Set(b.extra.Argv())
	p.script.retry = true
	p.gather(ex, inner)
}

// PartDone answers the script's reply, or runs it again with the keys it
// lacked (TxnBody).
func (b *scriptTxn) PartDone(ex Exec, t *Txn, s *Slot) {
	if b.pinned {
		t.Finish(ex, s.Reply)
		ex.FreeSlot(s)
		return
	}
	p := s.mem
	if p.script.otherDB {
		// It changed nothing yet: run it where a script of one shard
		// runs, holding that shard whole, and so from now on.
		b.pinned = true
		b.habit.pinned.Store(true)
		ex.FreeSlot(s)
		t.LockShard(b.pinShard(ex))
		t.Restart(ex)
		return
	}
	missing := p.script.missing.Len()
	if missing == 0 {
		if local, known := b.keptToOneShard(ex.Shards()); known {
			b.habit.noteRun(local)
		}
		t.Finish(ex, s.Reply)
		ex.FreeSlot(s)
		return
	}
	n := ex.Shards()
	whole := true
	for i := range missing {
		key := p.script.missing.Arg(i)
		sh := ShardOf(key, n)
		whole = whole && t.whole[sh]
		b.extra.Append([][]byte{key})
		if !t.whole[sh] {
			t.LockKey(sh, b.db, key)
		}
	}
	ex.FreeSlot(s)
	switch {
	case b.extra.Len() > maxScriptExtraKeys:
		t.Finish(ex, errReply(errScriptTooManyKeys))
	case whole:
		b.Run(ex, t, false)
	case b.rounds >= scriptLockRounds:
		for sh := range n {
			t.LockShard(sh)
		}
		t.Restart(ex)
	default:
		t.Restart(ex)
	}
}

// Where a script runs on a server of several shards. One whose declared
// keys share a shard may still touch keys it does not declare, of any
// shard; on its keys' shard it could not take them, and what it wrote
// before could not be undone. So a script starts out running as a
// transaction, as if its keys spanned shards, and its runs there show
// whether it keeps to its declared keys' shard (every key it touched is one
// of them or under one's hash tag, or, declaring none, it touched none). After scriptLocalRuns runs
// that did, it runs on that shard, with no hop. One that did not, or that
// later touches a key of another shard there (refused: errScriptOtherShard),
// runs as a transaction from then on. One that selects another database,
// whose keys a plan cannot gather, runs on its first key's shard, held
// whole (pinned).

// scriptLocalRuns is how many runs as a transaction that keep to one shard
// make a script run on its shard.
const scriptLocalRuns = 8

// maxScriptHabits bounds the scripts whose runs are remembered; past it
// all are forgotten and learnt again.
const maxScriptHabits = 4096

// scriptHabit is what the runs of one script showed. It is shared by the
// cores: its fields are atomic.
type scriptHabit struct {
	localRuns atomic.Int32
	crossed   atomic.Bool
	// pinned: the script selects another database, which a transaction
	// over several shards cannot gather: it runs on its keys' shard.
	pinned atomic.Bool
}

func (h *scriptHabit) onShard() bool {
	return h.pinned.Load() || !h.crossed.Load() && h.localRuns.Load() >= scriptLocalRuns
}

// scriptHabits is the process's scripts' habits, by EVAL's body or
// EVALSHA's name as sent; gen moves when they are forgotten.
var scriptHabits struct {
	mu  sync.Mutex
	m   map[string]*scriptHabit
	gen atomic.Uint64
}

// habitOf returns the habit of the script argv runs, made at its first run.
func habitOf(argv [][]byte) *scriptHabit {
	scriptHabits.mu.Lock()
	defer scriptHabits.mu.Unlock()
	h := scriptHabits.m[string(argv[1])]
	if h == nil {
		if scriptHabits.m == nil || len(scriptHabits.m) >= maxScriptHabits {
			scriptHabits.m = make(map[string]*scriptHabit)
			scriptHabits.gen.Add(1)
		}
		h = new(scriptHabit)
		scriptHabits.m[string(argv[1])] = h
	}
	return h
}

// ForgetScriptHabits forgets what every script's runs showed (SCRIPT FLUSH).
func ForgetScriptHabits() {
	scriptHabits.mu.Lock()
	scriptHabits.m = nil
	scriptHabits.gen.Add(1)
	scriptHabits.mu.Unlock()
}

// ScriptHabits is a core's copy of the scripts' habits it has looked up,
// so that a script's run on its shard takes no lock.
type ScriptHabits struct {
	m   map[string]*scriptHabit
	gen uint64
}

// RunsOnShard reports whether the script argv runs (EVAL and the like),
// whose declared keys share a shard, runs there: otherwise it runs as a
// transaction (StartSplit).
func (c *ScriptHabits) RunsOnShard(argv [][]byte) bool {
	if g := scriptHabits.gen.Load(); c.m == nil || c.gen != g {
		c.m, c.gen = make(map[string]*scriptHabit), g
	}
	h := c.m[string(argv[1])]
	if h == nil {
		h = habitOf(argv)
		if len(c.m) >= maxScriptHabits {
			clear(c.m)
		}
		c.m[string(argv[1])] = h
	}
	return h.onShard()
}

// noteRun notes how a run as a transaction went: whether every key it
// touched lived on the shard of its declared keys (none when it declares
// none).
func (h *scriptHabit) noteRun(local bool) {
	if !local {
		h.crossed.Store(true)
	} else if h.localRuns.Load() < scriptLocalRuns {
		h.localRuns.Add(1)
	}
}
