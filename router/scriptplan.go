package router

import (
	"bytes"
	"context"
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
// touch of one it lacks stops the script (Engine.SetInterrupt). It returns
// what ends that.
func (p *plan) scratchRun(r *scriptRun) (end func()) {
	ctx, cancel := context.WithCancel(context.Background())
	r.host.scratch, r.host.stop = p, cancel
	r.engine.SetInterrupt(ctx)
	return func() {
		r.engine.SetInterrupt(nil)
		cancel()
		r.host.scratch, r.host.stop = nil, nil
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
// the plan's database can be gathered; one of another makes the run fail
// for good.
func (p *plan) lack(db int, key []byte) {
	if db != p.db {
		p.script.retry = false
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
}

// startScriptSplit runs a script whose declared keys span shards as a
// transaction over them.
func startScriptSplit(ex Exec, s *Slot, cmd *Command, db, proto int, argv [][]byte) {
	b := new(scriptTxn)
	n := ex.Shards()
	b.Begin(s.Client, proto, n, s)
	b.cmd, b.db = cmd, db
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
	p := s.mem
	missing := p.script.missing.Len()
	if missing == 0 || !p.script.retry {
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
