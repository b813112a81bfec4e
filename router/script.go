package router

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/journal"
	"github.com/corekv/corekv/shardowner/script"
)

// Scripts: EVAL, EVALSHA, EVAL_RO and EVALSHA_RO run on the shard of
// their keys (the dispatcher routes them as any command with keys; one
// with no key runs on the client's own shard; on a server of several
// shards, once their runs showed they keep to it: scriptplan.go) as one
// command: the Lua
// code and every command it calls run in one go on the shard's thread, so
// nothing else runs in between. The commands it calls pass through Call
// like any other, so they are counted, journaled, watched and notified;
// their records go into one part of the journal that the script's end
// closes as MULTI … EXEC when there is more than one (as Redis wraps a
// script's effects). There a command over a key of another shard is
// refused: keys under one hash tag stay on one shard. A script whose
// declared keys span shards runs as a transaction instead (scriptplan.go).

// Scripts is the process's script registry: what SCRIPT LOAD and EVAL
// added, for every shard (script.Registry).
var Scripts = script.NewRegistry()

// scriptRun is a shard's scripting state: its engine and the host its
// scripts call commands through. It lives in Shard.Scripting, made at the
// shard's first script.
type scriptRun struct {
	engine *script.Engine
	gen    uint64 // the registry's generation the engine's cache is of
	host   scriptHost
	// functions holds the shard's function libraries (function.go); nil
	// until its first FUNCTION command. A core's scratch keyspace uses
	// its shard's.
	functions *script.Engine
}

// scriptHost runs the commands a script calls (script.Host).
type scriptHost struct {
	ctx    shardowner.Ctx
	w      resp.Writer
	origin Origin
	guard  script.Guard
	state  script.ServerState
	keyPos []int
	num    []byte
	// On the scratch keyspace: the plan whose gathered keys the script
	// may touch, and what stops it when it touches another (scriptplan.go).
	scratch *plan
	stop    func()
	argv    [][]byte // the script's command (EVAL …), while it runs
	watch   *script.Watch
	// track: the script's client tracks its keys (Origin.Track); once a
	// command it runs reads, its declared keys are tracked, as in Redis
	// 7.0 (the keys that command names are not).
	track bool
	keys  [][]byte // its declared keys, while it runs
	// monHeld: a scratch run's MONITOR lines, shown once the run stands.
	monHeld monitorHeld
}

// monitorHeld keeps the MONITOR lines of a run on the scratch keyspace:
// a run that stops at a key it lacks runs again, and only the run that
// stands is shown.
type monitorHeld struct {
	buf   []byte
	ends  []int // each argument's end in buf
	lines []heldLine
	argv  [][]byte // scratch for show
}

type heldLine struct {
	client   int64 // the script's client, for its command; 0: a command it ran
	db, args int   // args: how many of ends are the line's
}

func (m *monitorHeld) hold(client int64, db int, argv [][]byte) {
	for _, a := range argv {
		m.buf = append(m.buf, a...)
		m.ends = append(m.ends, len(m.buf))
	}
	m.lines = append(m.lines, heldLine{client: client, db: db, args: len(argv)})
}

// show shows the held lines to mon, or drops them when mon is nil.
func (m *monitorHeld) show(mon ScriptMonitor) {
	start, at := 0, 0
	for _, l := range m.lines {
		m.argv = m.argv[:0]
		for _, end := range m.ends[at : at+l.args] {
			m.argv = append(m.argv, m.buf[start:end])
			start = end
		}
		at += l.args
		switch {
		case mon == nil:
		case l.client != 0:
			mon.ShowScript(l.client, l.db, m.argv)
		default:
			mon.ShowScriptCall(l.db, m.argv)
		}
	}
	clear(m.argv)
	m.buf, m.ends, m.lines = m.buf[:0], m.ends[:0], m.lines[:0]
}

// readsAny is ReadsOthers for scripts: a script may touch keys it does not
// declare, so it holds its shard whole against transactions.
func readsAny([][]byte) bool { return true }

// scriptKeys finds a script's declared keys: the numkeys arguments after
// the key count, none when the count is not a number of keys present (the
// script then answers the error).
func scriptKeys(dst []int, argv [][]byte) []int {
	n, ok := resp.ParseInt(argv[2])
	if !ok || n <= 0 || n > int64(len(argv)-3) {
		return dst
	}
	for i := 3; i < 3+int(n); i++ {
		dst = append(dst, i)
	}
	return dst
}

// scriptKind says what a script command names: EVAL's body, EVALSHA's
// SHA, or FCALL's function.
type scriptKind uint8

const (
	byBody scriptKind = iota
	bySHA
	byFunction
)

// scriptAtLoad returns Run for a script command (Command.RunAs's
// runner): what runs a script met in an append-only file (one an older
// Redis wrote), with no client, and no journal while loading.
func scriptAtLoad(kind scriptKind, ro bool) shardowner.Handler {
	return func(c *shardowner.Ctx, argv [][]byte) { runScript(c, argv, Origin{}, kind, ro) }
}

// scriptingOf returns shard sh's scripting state, making it at its first
// script, with the engine's cache emptied if SCRIPT FLUSH ran since.
func scriptingOf(sh *shardowner.Shard) *scriptRun {
	r, _ := sh.Scripting.(*scriptRun)
	if r == nil {
		w := watchOf(sh.ID)
		r = &scriptRun{engine: script.New(script.Options{Log: scriptLogger(sh), Watch: w}), gen: Scripts.Generation()}
		r.host.watch = w
		sh.Scripting = r
	}
	if g := Scripts.Generation(); g != r.gen {
		r.engine.Flush()
		r.gen = g
	}
	return r
}

// scriptLogger passes redis.log's lines to the shard's logger.
func scriptLogger(sh *shardowner.Shard) func(script.LogLevel, []byte) {
	return func(level script.LogLevel, msg []byte) {
		if sh.Log == nil {
			return
		}
		switch level {
		case script.LogWarning:
			sh.Log.Warn(string(msg))
		case script.LogNotice:
			sh.Log.Info(string(msg))
		}
	}
}

// scriptRunner returns the body of EVAL, EVALSHA or FCALL, and of their
// _RO forms (ro), as Command.RunAs, with Redis's order of checks.
func scriptRunner(kind scriptKind, ro bool) func(*shardowner.Ctx, [][]byte, Origin) bool {
	return func(c *shardowner.Ctx, argv [][]byte, o Origin) bool { return runScript(c, argv, o, kind, ro) }
}

func runScript(c *shardowner.Ctx, argv [][]byte, o Origin, kind scriptKind, ro bool) (failed bool) {
	sh := c.Shard
	if m := monitorOf(sh.ID); m != nil && o.Client != 0 && m.Monitoring() {
		// Shown before the commands it runs, as Redis shows it.
		if h := &scriptingOf(sh).host; h.scratch != nil {
			h.monHeld.hold(o.Client, c.DB, argv)
		} else {
			m.ShowScript(o.Client, c.DB, argv)
		}
	}
	var fn *script.Function
	switch kind {
	case bySHA:
		if len(argv[1]) != 40 {
			c.W.Err(script.ErrNoScript)
			return true
		}
	case byFunction:
		if fn = functionsOf(sh).FunctionNamed(argv[1]); fn == nil {
			c.W.Err("ERR Function not found")
			return true
		}
	}
	n, ok := resp.ParseInt(argv[2])
	switch {
	case !ok && kind == byFunction:
		c.W.Err("ERR Bad number of keys provided")
		return true
	case !ok:
		c.W.Err(resp.ErrNotInteger)
		return true
	case n > int64(len(argv)-3):
		c.W.Err("ERR Number of keys can't be greater than number of args")
		return true
	case n < 0:
		c.W.Err("ERR Number of keys can't be negative")
		return true
	}
	r := scriptingOf(sh)
	var s *script.Script
	var flags script.Flags
	if fn != nil {
		flags = fn.Flags
	} else {
		var err resp.Error
		if s, err = r.find(argv[1], kind == bySHA); err != "" {
			c.W.Err(err)
			return true
		}
		flags = s.Flags
	}
	h := &r.host
	mem := sh
	if h.scratch != nil {
		// The scratch keyspace has no memory of its own to count: the
		// core's shard answers for it.
		mem = h.scratch.own
	}
	h.state = script.ServerState{OOM: mem.MemLimited() && !mem.MakeRoom()}
	if refusal := script.CheckRun(flags, ro, h.state); refusal != "" {
		if refusal == script.ErrOOMScript && !o.Held {
			// Redis refuses it before it runs, as any command that may
			// add to memory; inside EXEC it says why.
			refusal = shardowner.ErrOOM
		}
		c.W.Err(refusal)
		return true
	}
	errs := c.W.Errors
	h.guard = script.NewGuard(flags, ro)
	h.ctx = shardowner.Ctx{Shard: sh, DB: c.DB, Scripted: true}
	h.argv = argv
	h.origin = Origin{Client: o.Client, Held: o.Held, Seq: o.Seq, NoTouch: o.NoTouch}
	h.track = o.Track && h.scratch == nil
	keys, args := argv[3:3+n], argv[3+n:]
	h.keys = keys
	if fn != nil {
		if h.watch != nil {
			h.watch.BeginFunction(sh.Clock.Ms, fn.Name, argv)
		}
		r.functions.Call(fn, keys, args, h, c.W)
	} else {
		if h.watch != nil {
			h.watch.Begin(sh.Clock.Ms)
		}
		r.engine.Run(s, keys, args, h, c.W)
	}
	if h.watch != nil {
		h.watch.End()
	}
	h.ctx, h.argv, h.keys = shardowner.Ctx{}, nil, nil
	if j := sh.Journal; j != nil {
		j.End() // the request the script came in is no record's frame
		if h.stoppedForShutdown() {
			// SHUTDOWN NOSAVE stopped it: the server ends without
			// keeping what it did, in the append-only file too.
			j.DropTx(journal.ScriptOwner)
		} else if !o.Held {
			// A script's one write needs no block; more are one MULTI …
			// EXEC, numbered as a transaction of one part. Inside EXEC
			// they are EXEC's.
			var id uint64
			parts := 0
			if j.Records(journal.ScriptOwner) > 1 {
				id, parts = journalIDs.Add(1), 1
			}
			j.EndTx(journal.ScriptOwner, id, parts)
		}
	}
	return c.W.Errors != errs
}

// find returns the script EVAL's body or EVALSHA's name names: from the
// engine's cache, else compiled from the body, or from the registry's
// copy of what another shard added. A body EVAL compiles here joins the
// registry.
func (r *scriptRun) find(arg []byte, bySHA bool) (*script.Script, resp.Error) {
	e := r.engine
	if !bySHA {
		before := e.Len()
		s, err := e.Compile(arg)
		if err != nil {
			return nil, err.(script.Error)
		}
		if e.Len() != before {
			Scripts.Add(s.SHA, s.Body, false)
		}
		return s, ""
	}
	if s := e.ScriptNamed(arg); s != nil {
		return s, ""
	}
	body, loaded := Scripts.Body(string(arg))
	if body == nil {
		return nil, script.ErrNoScript
	}
	if loaded {
		e.Load(body)
		return e.Script(script.SHA1Hex(body)), ""
	}
	s, err := e.Compile(body)
	if err != nil {
		return nil, err.(script.Error)
	}
	return s, ""
}

// Call runs a command a script called (script.Host): Guard's checks, then
// the command on this shard through Call, its reply in the script's
// protocol appended to dst.
func (h *scriptHost) Call(cc script.CallContext, argv [][]byte, dst []byte) []byte {
	h.w = resp.Writer{B: dst, Proto: cc.Resp}
	w := &h.w
	cmd := Lookup(argv[0])
	var sc script.Command
	if cmd != nil && !cmd.Internal {
		flags := cmd.Flags
		sc.Known, sc.ArityOK = true, cmd.ArityOK(len(argv))
		if len(cmd.Subcommands) > 0 && len(argv) > 1 {
			if sub := cmd.Subcommand(argv[1]); sub != nil {
				flags |= sub.Flags
				sc.ArityOK = sc.ArityOK && sub.ArityOK(len(argv))
			}
		}
		sc.NoScript = flags&FlagNoScript != 0 && !(cmd.Home == HomeDebug && ScriptDebugAllowed.Load())
		sc.Write = flags&FlagWrite != 0
		sc.MayReplicate = cmd == cmdPFCount || cmd == cmdPublish || cmd == cmdSPublish
		sc.DenyOOM = flags&FlagDenyOOM != 0
		sc.Stale = flags&FlagStale != 0
	}
	if e := h.guard.Check(sc, h.state); e != "" {
		w.Err(e)
		return w.B
	}
	sh := h.ctx.Shard
	switch cmd.Route {
	case RouteHome:
		h.home(cmd, argv)
		h.show(cmd, argv)
		return w.B
	case RouteAll:
		if sh.Count > 1 {
			w.Err(errScriptAllShards)
			return w.B
		}
	case RouteCursor:
		if h.scratch != nil {
			// SCAN's cursor names a shard, not a key to gather.
			w.Err(errScriptAllShards)
			return w.B
		}
		if cur, ok := shardowner.ParseCursor(argv[1]); ok && int(cur%uint64(sh.Count)) != sh.ID {
			w.Err(script.ErrNonLocalKey)
			return w.B
		}
	default:
		if h.scratch != nil {
			if !h.scratchKeys(cmd, argv) {
				w.Err(errScriptUndeclared)
				return w.B
			}
		} else if sh.Count > 1 {
			h.keyPos = cmd.KeyIndexes(h.keyPos[:0], argv)
			foreign := false
			for _, i := range h.keyPos {
				foreign = foreign || ShardOf(argv[i], sh.Count) != sh.ID
			}
			if _, key, ok := otherDB(cmd, argv, len(sh.DBs)); ok && ShardOf(key, sh.Count) != sh.ID {
				foreign = true
			}
			if foreign {
				// Its next runs go over several shards (scriptplan.go).
				habitOf(h.argv).crossed.Store(true)
				w.Err(errScriptOtherShard)
				return w.B
			}
		}
	}
	if sc.Write && h.watch != nil {
		h.watch.Wrote()
	}
	h.ctx.W = w
	Call(&h.ctx, cmd, argv, h.origin, Now())
	h.ctx.W = nil
	if h.track && cmd.FlagsFor(argv)&FlagReadonly != 0 {
		h.track = false
		for _, k := range h.keys {
			h.ctx.Shard.TrackKey(h.origin.Client, k)
		}
	}
	h.show(cmd, argv)
	return w.B
}

// show shows a command the script ran to MONITOR, once it has run (a
// SELECT in the database it chose), but for those Redis keeps from
// monitors.
func (h *scriptHost) show(cmd *Command, argv [][]byte) {
	m := monitorOf(h.ctx.Shard.ID)
	if m == nil || !m.Monitoring() || cmd.FlagsFor(argv)&(FlagAdmin|FlagSkipMonitor) != 0 {
		return
	}
	if h.scratch != nil {
		h.monHeld.hold(0, h.ctx.DB, argv)
		return
	}
	m.ShowScriptCall(h.ctx.DB, argv)
}

// The refusals of commands a script may not run here.
const (
	errScriptOtherShard resp.Error = "ERR Script attempted to access a key of another shard than the one it runs on: " +
		"outside MULTI its next runs go over several shards (keys under one hash tag stay on one)"
	errScriptAllShards resp.Error = "ERR Script attempted to run a command over every shard, " +
		"which a script runs only when the server has one"
	errScriptHome resp.Error = "ERR This command is not run from scripts"
	// A script over several shards inside MULTI, whose locks are taken
	// before it runs, touched a key it did not declare.
	errScriptUndeclared resp.Error = "ERR Script attempted to access a key it did not declare, " +
		"on another shard, where it cannot take it: declare every key the script uses"
	errScriptTooManyKeys resp.Error = "ERR Script touched more keys it did not declare than a script " +
		"over several shards may: declare the keys it uses"
)

// home runs the connection and server commands a script may call, as
// Redis answers them inside a script: SELECT changes the script's
// database only.
func (h *scriptHost) home(cmd *Command, argv [][]byte) {
	w := &h.w
	switch cmd.Home {
	case HomeSelect:
		db, err := shardowner.DBIndex(argv[1], len(h.ctx.Shard.DBs))
		if err != "" {
			w.Err(err)
			return
		}
		h.ctx.DB = db
		w.OK()
	case HomePing:
		switch len(argv) {
		case 1:
			w.Simple("PONG")
		case 2:
			w.Bulk(argv[1])
		default:
			w.Err(resp.ErrWrongArgs("ping"))
		}
	case HomeEcho:
		w.Bulk(argv[1])
	case HomeDebug:
		// Only under DEBUG SET-DISABLE-DENY-SCRIPTS (Call's guard).
		switch {
		case len(argv) != 3:
			w.Err(errScriptHome)
		case resp.EqualFold(argv[1], "protocol"):
			if !w.DebugProtocol(argv[2]) {
				w.Err(resp.ErrDebugProtocolType)
			}
		case resp.EqualFold(argv[1], "sleep"):
			// The shard's thread sleeps, as Redis's does, and the script's
			// clock stands still meanwhile.
			time.Sleep(time.Duration(resp.ParseFloatPrefix(argv[2]) * float64(time.Second)))
			w.OK()
		default:
			w.Err(errScriptHome)
		}
	case HomeTime:
		now := time.Now()
		w.Array(2)
		h.num = strconv.AppendInt(h.num[:0], now.Unix(), 10)
		w.Bulk(h.num)
		h.num = strconv.AppendInt(h.num[:0], int64(now.Nanosecond()/1000), 10)
		w.Bulk(h.num)
	default:
		w.Err(errScriptHome)
	}
}

// The shards' running scripts (script.Watch), by shard ID, for SCRIPT KILL
// and the busy reply on any core; nil until WatchScripts. A core's scratch
// keyspace shares its shard's: they run on the same thread.
var scriptWatches []*script.Watch

// ScriptBusyAfter is busy-reply-threshold, in ms: a script that has run
// this long is busy, and SCRIPT KILL may stop it.
var ScriptBusyAfter atomic.Int64

// ScriptDebugAllowed is DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call
// DEBUG PROTOCOL and DEBUG SLEEP, as Redis's test suite has them do to see
// each reply type converted and the clock stand still. Of the commands scripts may not call, only DEBUG is let in:
// the others would run a script inside a script or touch the connection.
var ScriptDebugAllowed atomic.Bool

// ScriptMonitor shows MONITOR what scripts run, as Redis shows it: a
// script's command from its client as it starts, then each command it
// runs from "lua". The server gives each shard one (MonitorScripts),
// which the shard's thread asks.
type ScriptMonitor interface {
	Monitoring() bool
	ShowScript(client int64, db int, argv [][]byte)
	ShowScriptCall(db int, argv [][]byte)
}

// scriptMonitors are the shards' ScriptMonitors, by shard ID.
var scriptMonitors []ScriptMonitor

// MonitorScripts gives shard its ScriptMonitor; the server calls it before
// its shards start, after WatchScripts.
func MonitorScripts(shard int, m ScriptMonitor) { scriptMonitors[shard] = m }

func monitorOf(shard int) ScriptMonitor {
	if shard < len(scriptMonitors) {
		return scriptMonitors[shard]
	}
	return nil
}

// WatchScripts makes the watches of n shards; the server calls it before
// its shards start.
func WatchScripts(n int) {
	scriptMonitors = make([]ScriptMonitor, n)
	scriptWatches = make([]*script.Watch, n)
	for i := range scriptWatches {
		scriptWatches[i] = script.NewWatch()
	}
}

func watchOf(shard int) *script.Watch {
	if shard < len(scriptWatches) {
		return scriptWatches[shard]
	}
	return nil
}

// What KillScript did.
const (
	KillNotBusy = iota
	KillDone
	KillUnkillable
	// KillOtherKind: the busy script is a function and SCRIPT KILL was
	// asked, or an EVAL script and FUNCTION KILL.
	KillOtherKind
)

// The busy replies: a shard inside a script past busy-reply-threshold
// answers with the KILL that stops it.
const (
	ErrBusyEval     resp.Error = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrBusyFunction resp.Error = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// KillScript stops the scripts that are busy (past ScriptBusyAfter) and
// have not written, for SCRIPT KILL (function false) or FUNCTION KILL:
// KillDone if it stopped any, KillUnkillable if the only busy ones wrote,
// KillOtherKind if they are of the other kind, KillNotBusy if none is
// busy.
func KillScript(function bool) int {
	now, after := time.Now().UnixMilli(), ScriptBusyAfter.Load()
	outcome := KillNotBusy
	for _, w := range scriptWatches {
		ms, wrote, run := w.Running(now)
		switch {
		case ms == 0 || ms < after:
		case w.Function() != function:
			if outcome == KillNotBusy {
				outcome = KillOtherKind
			}
		case wrote:
			if outcome == KillNotBusy || outcome == KillOtherKind {
				outcome = KillUnkillable
			}
		default:
			w.Kill(run)
			outcome = KillDone
		}
	}
	return outcome
}

// BusyReply is what a command sent to shard gets while it runs a busy
// script, "" when it does not.
func BusyReply(shard int) resp.Error {
	if !ScriptBusy(shard) {
		return ""
	}
	if watchOf(shard).Function() {
		return ErrBusyFunction
	}
	return ErrBusyEval
}

// AnyBusyReply is BusyReply of the first shard that runs a busy script,
// "" when none does: SHUTDOWN then needs NOSAVE.
func AnyBusyReply() resp.Error {
	for sh := range scriptWatches {
		if e := BusyReply(sh); e != "" {
			return e
		}
	}
	return ""
}

// RunningFunction is the function a shard runs past busy-reply-threshold,
// for FUNCTION STATS: its name, its command, and how long it has run.
func RunningFunction() (name string, argv [][]byte, ms int64, ok bool) {
	now, after := time.Now().UnixMilli(), ScriptBusyAfter.Load()
	for _, w := range scriptWatches {
		d, _, _ := w.Running(now)
		if d == 0 || d < after {
			continue
		}
		if name, argv, ok = w.RunningFunction(); ok {
			return name, argv, d, true
		}
	}
	return "", nil, 0, false
}

// shuttingDown is set once StopBusyScripts has run: a script it stopped
// leaves nothing in the journal.
var shuttingDown atomic.Bool

// stoppedForShutdown reports whether the host's last run was stopped by
// StopBusyScripts, whose SHUTDOWN NOSAVE keeps nothing of it.
func (h *scriptHost) stoppedForShutdown() bool {
	return h.watch != nil && h.watch.Killed() && shuttingDown.Load()
}

// StopBusyScripts stops every busy script, written or not, for SHUTDOWN
// NOSAVE: the process ends without keeping what they did, and their
// shards must stop for it to end.
func StopBusyScripts() {
	shuttingDown.Store(true)
	now, after := time.Now().UnixMilli(), ScriptBusyAfter.Load()
	for _, w := range scriptWatches {
		if ms, _, run := w.Running(now); ms > 0 && ms >= after {
			w.Kill(run)
		}
	}
}

// ScriptBusy reports whether shard runs a busy script: what is sent there
// is answered with BUSY.
func ScriptBusy(shard int) bool {
	w := watchOf(shard)
	if w == nil {
		return false
	}
	ms, _, _ := w.Running(time.Now().UnixMilli())
	return ms > 0 && ms >= ScriptBusyAfter.Load()
}

// ServeWhileBusy has shard's thread run serve, at most once a
// millisecond, while a script it runs is past busy-reply-threshold: the
// core's look at its other clients, which Redis answers from inside a
// long script too. The server calls it before its shards start.
func ServeWhileBusy(shard int, serve func()) {
	w := watchOf(shard)
	if w == nil {
		return
	}
	var last int64
	w.SetWhileBusy(func() {
		now := time.Now().UnixMilli()
		if now == last {
			return
		}
		last = now
		if ms, _, _ := w.Running(now); ms > 0 && ms >= ScriptBusyAfter.Load() {
			serve()
		}
	})
}
