package router

import (
	"slices"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/script"
)

// TestScriptKeys: a script's keys are the numkeys arguments after the
// count; a count that names no key present names none, so the script runs
// on its client's shard and answers the error there.
func TestScriptKeys(t *testing.T) {
	eval := LookupString("eval")
	for _, tc := range []struct {
		line string
		want []int
	}{
		{"EVAL s 0", nil},
		{"EVAL s 0 a b", nil},
		{"EVAL s 1 a b", []int{3}},
		{"EVAL s 2 a b", []int{3, 4}},
		{"EVAL s 3 a b", nil},
		{"EVAL s -1 a", nil},
		{"EVAL s x a", nil},
	} {
		var argv [][]byte
		for _, w := range strings.Fields(tc.line) {
			argv = append(argv, []byte(w))
		}
		if got := eval.KeyIndexes(nil, argv); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys at %v, want %v", tc.line, got, tc.want)
		}
	}
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro"} {
		c := LookupString(name)
		if c.RunAs == nil || c.Run == nil || c.ReadsOthers == nil || !c.ReadsOthers(nil) {
			t.Errorf("%s: a script runs through RunAs, loads through Run, and holds its shard whole", name)
		}
	}
}

// BenchmarkEvalSHA is EVALSHA of a one-call script on its shard through
// Call, as the shard runs it for a client: the script found in the engine's
// cache, its INCR through the call path.
func BenchmarkEvalSHA(b *testing.B) {
	e := newTestExec(1, false)
	sh := e.shards[0]
	sha, err := script.Check([]byte("return redis.call('INCR', KEYS[1])"))
	if err != nil {
		b.Fatal(err)
	}
	Scripts.Add(sha, []byte("return redis.call('INCR', KEYS[1])"), true)
	cmd := LookupString("evalsha")
	argv := [][]byte{[]byte("evalsha"), []byte(sha), []byte("1"), []byte("counter")}
	w := resp.Writer{Proto: 2}
	ctx := shardowner.Ctx{Shard: sh, W: &w}
	Call(&ctx, cmd, argv, Origin{Client: 1}, Now())
	b.ReportAllocs()
	for b.Loop() {
		w.B = w.B[:0]
		Call(&ctx, cmd, argv, Origin{Client: 1}, Now())
	}
	if w.B[0] != ':' {
		b.Fatalf("reply %q", w.B)
	}
}

// TestScriptHabits checks how a core learns where a script runs: as a
// transaction until scriptLocalRuns runs kept to one shard, as a
// transaction for good once one did not, on its shard when pinned, and
// everything forgotten on ForgetScriptHabits.
func TestScriptHabits(t *testing.T) {
	var c ScriptHabits
	local := [][]byte{[]byte("eval"), []byte("return 1"), []byte("0")}
	cross := [][]byte{[]byte("eval"), []byte("return 2"), []byte("0")}
	pinned := [][]byte{[]byte("eval"), []byte("return 3"), []byte("0")}
	for i := range scriptLocalRuns {
		if c.RunsOnShard(local) {
			t.Fatalf("on its shard after %d local runs", i)
		}
		habitOf(local).noteRun(true)
		habitOf(cross).noteRun(i != 3)
	}
	if !c.RunsOnShard(local) || c.RunsOnShard(cross) {
		t.Fatalf("after %d runs: local script on its shard %v, crossing one %v", scriptLocalRuns, c.RunsOnShard(local), c.RunsOnShard(cross))
	}
	habitOf(local).crossed.Store(true)
	habitOf(pinned).pinned.Store(true)
	if c.RunsOnShard(local) || !c.RunsOnShard(pinned) {
		t.Fatal("a script that crossed still runs on its shard, or a pinned one does not")
	}
	ForgetScriptHabits()
	if c.RunsOnShard(pinned) {
		t.Fatal("habits kept after ForgetScriptHabits")
	}
}
