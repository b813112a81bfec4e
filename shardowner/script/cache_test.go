package script

import (
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestLoadExistsEvalSHA(t *testing.T) {
	e := New(Options{})
	sha, err := e.Load([]byte("return 'loaded'"))
	if err != nil || sha != "b534286061d4b9e4026607613b95c06c06015ae8" {
		t.Fatalf("Load: %q %v", sha, err)
	}
	for _, s := range []string{sha, strings.ToUpper(sha)} {
		if !e.Exists(s) {
			t.Fatalf("Exists(%s) false", s)
		}
		w := resp.Writer{Proto: 2}
		if res := e.EvalSHA(s, nil, nil, newHost(), &w); string(w.B) != "$6\r\nloaded\r\n" || !res.Ran {
			t.Fatalf("EvalSHA(%s): %q %+v", s, w.B, res)
		}
	}
	for _, s := range []string{"ffd632c7d33e571e9f24556ebed26c3479a87130", "NotValidShaSUM", ""} {
		w := resp.Writer{Proto: 2}
		res := e.EvalSHA(s, nil, nil, newHost(), &w)
		if string(w.B) != "-NOSCRIPT No matching script. Please use EVAL.\r\n" || res.Ran || !res.Err {
			t.Fatalf("EvalSHA(%q): %q %+v", s, w.B, res)
		}
	}
	// EVAL caches what it runs under the body's SHA.
	eval(t, e, "return 1+1", 2, nil)
	if !e.Exists("a27e7e8a43702b7046d4f6a7ccf5b60cef6b9bd9") || e.Exists("a27e7e8a43702b7046d4f6a7ccf5b60cef6b9bda") {
		t.Fatal("SCRIPT EXISTS after EVAL")
	}
	if s := e.Script("A27E7E8A43702B7046D4F6A7CCF5B60CEF6B9BD9"); s == nil || string(s.Body) != "return 1+1" || s.Flags != FlagEvalCompat {
		t.Fatalf("Script: %+v", s)
	}
	if e.Len() != 2 {
		t.Fatalf("Len %d", e.Len())
	}
	e.Flush()
	if e.Len() != 0 || e.Exists(sha) {
		t.Fatal("Flush kept scripts")
	}
	if got, _ := eval(t, e, "return redis.call('ping')", 2, nil); got != "+PONG\r\n" {
		t.Fatalf("after Flush: %q", got)
	}
}

// EVAL scripts past EvalCacheSize push out the least recently used EVAL
// script; SCRIPT LOAD scripts stay.
func TestEvalCacheBound(t *testing.T) {
	e := New(Options{})
	loaded, _ := e.Load([]byte("return 'kept'"))
	body := func(i int) string { return "return " + strconv.Itoa(i) }
	for i := 0; i < EvalCacheSize; i++ {
		eval(t, e, body(i), 2, nil)
	}
	if e.Len() != EvalCacheSize+1 || e.Evicted() != 0 {
		t.Fatalf("Len %d Evicted %d", e.Len(), e.Evicted())
	}
	// Running script 0 again makes script 1 the oldest.
	eval(t, e, body(0), 2, nil)
	eval(t, e, body(EvalCacheSize), 2, nil)
	if e.Evicted() != 1 || e.Exists(SHA1Hex([]byte(body(1)))) || !e.Exists(SHA1Hex([]byte(body(0)))) {
		t.Fatalf("after one more: Evicted %d", e.Evicted())
	}
	// EVALSHA counts as a use too.
	w := resp.Writer{Proto: 2}
	e.EvalSHA(SHA1Hex([]byte(body(2))), nil, nil, newHost(), &w)
	eval(t, e, body(EvalCacheSize+1), 2, nil)
	if !e.Exists(SHA1Hex([]byte(body(2)))) || e.Exists(SHA1Hex([]byte(body(3)))) {
		t.Fatal("EVALSHA did not refresh the script")
	}
	// SCRIPT LOAD of an EVAL script makes it permanent.
	e.Load([]byte(body(4)))
	for i := 0; i < 2*EvalCacheSize; i++ {
		eval(t, e, "return 'x"+strconv.Itoa(i)+"'", 2, nil)
	}
	if !e.Exists(loaded) || !e.Exists(SHA1Hex([]byte(body(4)))) {
		t.Fatal("SCRIPT LOAD scripts evicted")
	}
	if e.Len() != EvalCacheSize+2 {
		t.Fatalf("Len %d, want %d", e.Len(), EvalCacheSize+2)
	}
	if e.Evicted() != 2+2*EvalCacheSize-1 {
		t.Fatalf("Evicted %d", e.Evicted())
	}
	n := 0
	for s := e.cache.head; s != nil; s = s.next {
		n++
	}
	if n != EvalCacheSize || e.cache.lruLen != EvalCacheSize {
		t.Fatalf("LRU list %d long, lruLen %d", n, e.cache.lruLen)
	}
	// A failed compile adds nothing.
	before := e.Len()
	eval(t, e, "return +", 2, nil)
	if e.Len() != before {
		t.Fatal("a script that does not compile was cached")
	}
}

func TestShebang(t *testing.T) {
	for _, c := range []struct {
		body  string
		flags Flags
		err   string
	}{
		{"return 1", FlagEvalCompat, ""},
		{"#!lua\nreturn 1", 0, ""},
		{"#!lua flags=no-writes\nreturn 1", FlagNoWrites, ""},
		{"#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\n", FlagNoWrites | FlagAllowOOM | FlagAllowStale | FlagNoCluster | FlagAllowCrossSlot, ""},
		{"#!lua flags=\nreturn 1", 0, ""},
		{"#!lua   flags=allow-oom  \nreturn 1", FlagAllowOOM, ""},
		{"#!lua \"flags=no-writes\"\nreturn 1", FlagNoWrites, ""},
		{"#!not-lua\nreturn 1", 0, "ERR Unexpected engine in script shebang: #!not-lua"},
		{"#!lua badger=data\nreturn 1", 0, "ERR Unknown lua shebang option: badger=data"},
		{"#!lua flags=allow-oom,what?\nreturn 1", 0, "ERR Unexpected flag in script shebang: what?"},
		{"#!lua flags=allow-oom,\nreturn 1", 0, "ERR Unexpected flag in script shebang: "},
		{"#!lua", 0, "ERR Invalid script shebang"},
		{"#!lua \"flags\nreturn 1", 0, "ERR Invalid engine in script shebang"},
		{"#!\nreturn 1", 0, "ERR Unexpected engine in script shebang: #!"},
	} {
		flags, _, err := ParseShebang([]byte(c.body))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.body, err, c.err)
			}
			continue
		}
		if err != nil || flags != c.flags {
			t.Errorf("%q: %v %v, want %v", c.body, flags, err, c.flags)
		}
	}
	e := New(Options{})
	got, _ := eval(t, e, "#!not-lua\nreturn 1", 2, nil)
	if got != "-ERR Unexpected engine in script shebang: #!not-lua\r\n" {
		t.Fatalf("EVAL: %q", got)
	}
	// The shebang's line counts: errors name the body's lines.
	got, _ = eval(t, e, "#!lua\nreturn a", 2, nil)
	if !strings.HasPrefix(got, "-ERR user_script:2: ") {
		t.Fatalf("line after shebang: %q", got)
	}
	got, _ = eval(t, e, "#!lua flags=no-writes\nreturn 1", 2, nil)
	if got != ":1\r\n" {
		t.Fatalf("shebang script: %q", got)
	}
	if FlagNoWrites.String() != "no-writes" || (FlagAllowOOM|FlagNoCluster).String() != "allow-oom,no-cluster" {
		t.Fatal("Flags.String")
	}
}

func TestCheckRun(t *testing.T) {
	for _, c := range []struct {
		flags Flags
		ro    bool
		s     ServerState
		want  Error
	}{
		{FlagEvalCompat, false, ServerState{OOM: true, ReadOnlyReplica: true}, ""},
		{FlagEvalCompat, false, ServerState{StaleReplica: true}, ErrMasterDown},
		{0, false, ServerState{}, ""},
		{0, false, ServerState{OOM: true}, ErrOOMScript},
		{FlagAllowOOM, false, ServerState{OOM: true}, ""},
		{FlagNoWrites, false, ServerState{OOM: true}, ""},
		{0, true, ServerState{}, ErrROCommand},
		{FlagNoWrites, true, ServerState{}, ""},
		{0, false, ServerState{ReadOnlyReplica: true}, ErrReadOnlyRepl},
		{0, false, ServerState{ReadOnlyReplica: true, ObeyClient: true}, ""},
		{FlagNoWrites, false, ServerState{ReadOnlyReplica: true}, ""},
		{0, false, ServerState{StaleReplica: true}, ErrStaleScript},
		{FlagAllowStale | FlagNoWrites, false, ServerState{StaleReplica: true}, ""},
		{FlagNoCluster, false, ServerState{Cluster: true}, ErrNoCluster},
		{0, false, ServerState{Disk: DiskRDB}, ErrMisconfRDB},
		{0, false, ServerState{Disk: DiskAOF, AOFError: "No space left on device"}, ErrMisconfAOF + "No space left on device"},
		{0, false, ServerState{NoGoodReplicas: true}, ErrNoReplicas},
	} {
		if got := CheckRun(c.flags, c.ro, c.s); got != c.want {
			t.Errorf("CheckRun(%v, %v, %+v) = %q, want %q", c.flags, c.ro, c.s, got, c.want)
		}
	}
}

// Guard refuses as scriptCall does, and lets a script that has written go
// on writing whatever the memory.
func TestGuard(t *testing.T) {
	get := Command{Known: true, ArityOK: true}
	set := Command{Known: true, ArityOK: true, Write: true, DenyOOM: true}
	publish := Command{Known: true, ArityOK: true, MayReplicate: true}
	oom := ServerState{OOM: true}
	for _, c := range []struct {
		g    Guard
		c    Command
		s    ServerState
		want Error
	}{
		{Guard{}, Command{}, ServerState{}, ErrUnknownCommand},
		{Guard{}, Command{Known: true}, ServerState{}, ErrWrongArity},
		{Guard{}, Command{Known: true, ArityOK: true, NoScript: true}, ServerState{}, ErrNotAllowed},
		{Guard{ReadOnly: true}, set, ServerState{}, ErrWriteReadOnly},
		{Guard{ReadOnly: true}, publish, ServerState{}, ErrWriteReadOnly},
		{Guard{ReadOnly: true}, get, ServerState{}, ""},
		{Guard{}, set, oom, ErrOOM},
		{Guard{}, get, oom, ""},
		{Guard{AllowOOM: true}, set, oom, ""},
		{Guard{}, set, ServerState{ReadOnlyReplica: true}, ErrReadOnly},
		{Guard{}, set, ServerState{Disk: DiskRDB}, ErrMisconfRDBWrite},
		{Guard{}, set, ServerState{Disk: DiskAOF, AOFError: "x"}, "MISCONF Errors writing to the AOF file: x"},
		{Guard{}, set, ServerState{NoGoodReplicas: true}, ErrNoReplicas},
		{Guard{}, get, ServerState{StaleReplica: true}, ErrStale},
		{Guard{}, Command{Known: true, ArityOK: true, Stale: true}, ServerState{StaleReplica: true}, ""},
	} {
		g := c.g
		if got := g.Check(c.c, c.s); got != c.want {
			t.Errorf("%+v.Check(%+v, %+v) = %q, want %q", c.g, c.c, c.s, got, c.want)
		}
	}
	g := NewGuard(FlagEvalCompat, false)
	if g.Check(set, ServerState{}) != "" || !g.Wrote() {
		t.Fatal("first write")
	}
	if got := g.Check(set, oom); got != "" {
		t.Fatalf("write after a write, over maxmemory: %q", got)
	}
	if g := NewGuard(FlagNoWrites, false); !g.ReadOnly || g.AllowCrossSlot {
		t.Fatalf("no-writes guard %+v", g)
	}
	if g := NewGuard(FlagEvalCompat|FlagNoWrites, true); !g.ReadOnly || !g.AllowCrossSlot || g.AllowOOM {
		t.Fatalf("EVAL_RO guard %+v", g)
	}
	// Through a host: the texts reach the script as Redis's.
	e := New(Options{})
	h := newHost()
	h.guard = NewGuard(FlagNoWrites, false)
	got, res := eval(t, e, "return redis.call('set', 'x', 1)", 2, h)
	if !strings.HasPrefix(got, "-ERR Write commands are not allowed from read-only scripts. script: ") || !res.Counted {
		t.Fatalf("read-only script: %q %+v", got, res)
	}
	got, _ = eval(t, e, "local t = redis.pcall('set', 'x', 1) return t.err", 2, h)
	if got != bulk("ERR Write commands are not allowed from read-only scripts.") {
		t.Fatalf("pcall: %q", got)
	}
	h.guard = Guard{}
	h.state = oom
	got, _ = eval(t, e, "local t = redis.pcall('set','x','y') return t['err']", 2, h)
	if got != bulk("OOM command not allowed when used memory > 'maxmemory'.") {
		t.Fatalf("OOM: %q", got)
	}
	got, res = eval(t, e, "return redis.pcall('set','x','y')", 2, h)
	if got != "-OOM command not allowed when used memory > 'maxmemory'.\r\n" || !res.Counted {
		t.Fatalf("OOM returned: %q %+v", got, res)
	}
}

// The host sees the protocol and the replication the script chose.
func TestCallContext(t *testing.T) {
	e := New(Options{})
	h := newHost()
	eval(t, e, "redis.call('ping') redis.setresp(3) redis.set_repl(redis.REPL_AOF) redis.call('ping') redis.set_repl(redis.REPL_NONE) redis.call('ping')", 2, h)
	if len(h.ctxs) != 3 || h.ctxs[0].Resp != 2 || h.ctxs[0].Repl != ReplAll || h.ctxs[1].Resp != 3 || h.ctxs[1].Repl != ReplAOF || h.ctxs[2].Repl != ReplNone {
		t.Fatalf("contexts %+v", h.ctxs)
	}
	if h.ctxs[0].SHA != SHA1Hex([]byte("redis.call('ping') redis.setresp(3) redis.set_repl(redis.REPL_AOF) redis.call('ping') redis.set_repl(redis.REPL_NONE) redis.call('ping')")) {
		t.Fatal("SHA")
	}
	// Each run starts in RESP2 with everything replicated.
	h.ctxs = nil
	eval(t, e, "redis.call('ping')", 2, h)
	if h.ctxs[0].Resp != 2 || h.ctxs[0].Repl != ReplAll {
		t.Fatalf("next run %+v", h.ctxs[0])
	}
}

func TestLog(t *testing.T) {
	var lines []string
	e := New(Options{Log: func(level LogLevel, msg []byte) { lines = append(lines, strconv.Itoa(int(level))+" "+string(msg)) }})
	eval(t, e, "redis.log(redis.LOG_WARNING, 'a', 1, nil, 'b') redis.log(0, 'dbg') redis.log('2', 'n')", 2, nil)
	if strings.Join(lines, "|") != "3 a 1 b|0 dbg|2 n" {
		t.Fatalf("lines %q", lines)
	}
}

// math.random goes on from script to script; math.randomseed restarts it.
func TestMathRandom(t *testing.T) {
	e := New(Options{})
	a, _ := eval(t, e, "return tostring(math.random())", 2, nil)
	b, _ := eval(t, e, "return tostring(math.random())", 2, nil)
	if a == b {
		t.Fatal("the same number twice")
	}
	// The first draw from the default state: 851401618 / (2^31-1).
	if a != bulk("0.39646477363839") {
		t.Fatalf("first draw %q", a)
	}
	s1, _ := eval(t, e, "math.randomseed(ARGV and 10) return {math.random(100), math.random(5, 10), tostring(math.random())}", 2, nil)
	s2, _ := eval(t, e, "math.randomseed(10) return {math.random(100), math.random(5, 10), tostring(math.random())}", 2, nil)
	s3, _ := eval(t, e, "math.randomseed(20) return {math.random(100), math.random(5, 10), tostring(math.random())}", 2, nil)
	if s1 != s2 || s1 == s3 {
		t.Fatalf("seeded: %q %q %q", s1, s2, s3)
	}
	// Numeric strings are accepted as Lua accepts them.
	if got, _ := eval(t, e, "math.randomseed('10') return math.random(100)", 2, nil); !strings.HasPrefix(got, ":") {
		t.Fatalf("string seed: %q", got)
	}
}
