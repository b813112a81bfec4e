package router

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Gathering: a command whose keys span shards and that has no split of its
// own (SplitGather: the set algebra, SMOVE, …) runs whole on the client's
// home core. Inside its transaction, which holds every key it names, it
//
//  1. gathers the values of its keys from their shards (corekv.dumps, one
//     part per shard);
//  2. restores them into a scratch keyspace of the home core (Exec.Scratch)
//     and runs the command's own handler there, so its reply and effects are
//     exactly those of the single-shard command;
//  3. writes back, one key at a time, every key whose value the command
//     changed, wrote (WATCH: a write of the same value touches the key) or
//     published events for (corekv.restore, whose "del" mode removes a
//     key). The scratch keyspace publishes no keyspace
//     notification: it records them (Shard.StartRecording), and each key's
//     write-back publishes its events on the key's owner, the keys in the
//     order of their first event, so that subscribers see what the
//     single-shard command would have published.
//
// Values travel whole, so the cost grows with their size: the price of
// running such a command over several shards.

var (
	cmdDumps     = LookupString("corekv.dumps")
	wordAny      = []byte("any")
	wordReplaceW = []byte("replace")
	wordDel      = []byte("del")
	wordNone     = []byte("none")
)

// gatherKey is one distinct key of a gathering plan: its shard, its value
// as gathered (nil: missing) and as the command left it.
type gatherKey struct {
	shard    int
	key      []byte
	old, new []byte
	write    bool // to write back: changed, or published events
	changed  bool
	// events: the command's events for the key, p.gevents[evFrom:evTo];
	// first: the place of its first among all the command's events.
	evFrom, evTo, first int
}

// gather starts step 1.
func (p *plan) gather(ex Exec, s *Slot) {
	p.gkeys = p.gkeys[:0]
	for i, k := range p.keyPos {
		dup := false
		for _, g := range p.gkeys {
			if bytes.Equal(g.key, p.argv[k]) {
				dup = true
				break
			}
		}
		if !dup {
			p.gkeys = append(p.gkeys, gatherKey{shard: p.keyShard[i], key: p.argv[k]})
		}
	}
	n := ex.Shards()
	for i := range p.script.extra.Len() {
		key := p.script.extra.Arg(i)
		if !p.has(p.db, key) {
			p.gkeys = append(p.gkeys, gatherKey{shard: ShardOf(key, n), key: key})
		}
	}
	p.begin()
	for sh := range p.parts {
		p.sub = append(p.sub[:0], cmdDumps.NameBytes())
		for _, g := range p.gkeys {
			if g.shard == sh {
				p.sub = append(p.sub, g.key)
			}
		}
		if len(p.sub) > 1 {
			p.send(ex, s, sh, cmdDumps, p.db, p.sub)
		}
	}
	p.partDone(ex, s)
}

// gatherStep moves a gathering plan on once every part of a round is back.
func (p *plan) gatherStep(ex Exec, s *Slot) {
	if p.phase == 0 {
		p.phase = 1
		if e := p.firstError(); e != nil {
			p.done(ex, s, e)
			return
		}
		p.gathered()
		p.release(ex)
		if !p.runScratch(ex, s) {
			p.lacked(ex, s)
			return
		}
	} else if e := p.firstError(); e != nil {
		// The shard had no room for the value: answer that, as the
		// single-shard command would.
		p.done(ex, s, e)
		return
	} else {
		p.release(ex)
	}
	p.writeNext(ex, s)
}

// gathered copies the values the parts answered into the plan.
func (p *plan) gathered() {
	p.gbuf = p.gbuf[:0]
	type span struct{ start, end int }
	spans := make([]span, len(p.gkeys))
	for sh, c := range p.parts {
		if c == nil {
			continue
		}
		n, h := arrayHeader(c.Reply)
		r := c.Reply[h:]
		for i := range p.gkeys {
			if p.gkeys[i].shard != sh || n == 0 {
				continue
			}
			n--
			l := elemLen(r)
			spans[i] = span{-1, -1}
			if !isNull(r[:l]) {
				body := bulkBody(r)
				spans[i] = span{len(p.gbuf), len(p.gbuf) + len(body)}
				p.gbuf = append(p.gbuf, body...)
			}
			r = r[l:]
		}
	}
	for i := range p.gkeys {
		p.gkeys[i].old = nil
		if spans[i].start >= 0 {
			p.gkeys[i].old = p.gbuf[spans[i].start:spans[i].end:spans[i].end]
		}
	}
}

// runScratch runs the command on the scratch keyspace with the gathered
// values, keeps its reply in p.reply and marks the keys to write back:
// those it changed, wrote or published events for. It reports false for a
// script that touched a key not gathered (scriptplan.go): nothing is to be
// written back then. It runs through Call
// like any command on a shard, as a part of its plan for s (the plan's call
// is counted on the home core); the scratch keyspace has no journal, since
// the write-backs are journaled on the shards where they land.
func (p *plan) runScratch(ex Exec, s *Slot) bool {
	sc := ex.Scratch()
	var w resp.Writer
	// In the plan's database: a script's host checks its keys against
	// what was gathered there.
	ctx := shardowner.Ctx{Shard: sc, DB: p.db, W: &w}
	for _, g := range p.gkeys {
		if g.old != nil {
			shardowner.InternalRestore(&ctx, [][]byte{cmdRestore.NameBytes(), g.key, g.old, wordAny})
			w.B = w.B[:0]
		}
	}
	w.Proto = p.proto
	sc.StartRecording()
	script := p.cmd.RunAs != nil
	stopped := false // by SHUTDOWN NOSAVE, which keeps nothing it did
	if script {
		r := scriptingOf(sc)
		p.own = ex.Own()
		if own, _ := p.own.Scripting.(*scriptRun); own != nil {
			r.functions = own.functions // FCALL finds the shard's libraries
		}
		sc.MoveStats(nil, -1) // what the plans before it counted there
		end := p.scratchRun(r)
		Call(&ctx, p.cmd, p.argv, Origin{Client: s.Client, Part: true}, Now())
		end()
		// Its inner calls were counted on the scratch keyspace: they
		// are the shard's once the run stands (the script itself is
		// counted where its client's core runs it).
		var to *shardowner.Shard
		if p.script.missing.Len() == 0 {
			to = p.own
		}
		sc.MoveStats(to, p.cmd.StatID(p.argv))
		stopped = r.host.stoppedForShutdown()
	} else {
		Call(&ctx, p.cmd, p.argv, Origin{Client: s.Client, Part: true}, Now())
	}
	events := sc.Recorded()
	if p.script.missing.Len() > 0 {
		for _, t := range sc.DBs {
			t.Clear()
		}
		return false
	}
	p.reply = append(p.reply[:0], w.B...)
	p.newBuf = p.newBuf[:0]
	p.keyEvents(events)
	for i := range p.gkeys {
		g := &p.gkeys[i]
		g.new, g.changed = nil, false
		g.write = !stopped && (g.evTo > g.evFrom || sc.Touched(g.key))
	}
	if !stopped && (p.cmd.Flags&FlagWrite != 0 || script && p.cmd.Flags&FlagReadonly == 0) {
		for i := range p.gkeys {
			g := &p.gkeys[i]
			w.B, w.Proto = w.B[:0], 2
			shardowner.InternalDump(&ctx, [][]byte{cmdDump.NameBytes(), g.key})
			g.new = nil
			if !isNull(w.B) {
				body := bulkBody(w.B)
				start := len(p.newBuf)
				p.newBuf = append(p.newBuf, body...)
				g.new = p.newBuf[start:len(p.newBuf):len(p.newBuf)]
			}
			g.changed = !bytes.Equal(g.old, g.new) || (g.old == nil) != (g.new == nil)
			g.write = g.write || g.changed
		}
	}
	slices.SortStableFunc(p.gkeys, func(a, b gatherKey) int { return cmp.Compare(a.first, b.first) })
	for _, t := range sc.DBs {
		t.Clear()
	}
	return true
}

// keyEvents copies the events the scratch run recorded into the plan, each
// key's together, in their order.
func (p *plan) keyEvents(events []shardowner.RecordedEvent) {
	p.evBuf = p.evBuf[:0]
	for _, e := range events {
		p.evBuf = append(append(p.evBuf, e.Class...), e.Event...)
	}
	p.gevents = p.gevents[:0]
	for i := range p.gkeys {
		g := &p.gkeys[i]
		g.evFrom, g.first = len(p.gevents), len(events)
		off := 0
		for j, e := range events {
			at := off
			off += len(e.Class) + len(e.Event)
			if !bytes.Equal(e.Key, g.key) {
				continue
			}
			g.first = min(g.first, j)
			mid := at + len(e.Class)
			p.gevents = append(p.gevents, p.evBuf[at:mid:mid], p.evBuf[mid:off:off])
		}
		g.evTo = len(p.gevents)
	}
}

// writeNext writes back the next key to write back, or answers once none is
// left.
func (p *plan) writeNext(ex Exec, s *Slot) {
	for i := range p.gkeys {
		g := &p.gkeys[i]
		if !g.write {
			continue
		}
		g.write = false
		p.begin()
		switch {
		case g.new == nil && !g.changed:
			// Events only: keymiss for a key the command read.
			p.sub = append(p.sub[:0], cmdRestore.NameBytes(), g.key, nil, wordNone)
		case g.new == nil:
			p.sub = append(p.sub[:0], cmdRestore.NameBytes(), g.key, nil, wordDel)
		default:
			p.sub = append(p.sub[:0], cmdRestore.NameBytes(), g.key, g.new, wordReplaceW)
		}
		p.sub = append(p.sub, p.gevents[g.evFrom:g.evTo]...)
		p.send(ex, s, g.shard, cmdRestore, p.db, p.sub)
		p.partDone(ex, s)
		return
	}
	p.done(ex, s, p.reply)
}
