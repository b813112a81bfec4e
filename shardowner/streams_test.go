package shardowner

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/streamnode"
)

func init() {
	for name, h := range map[string]Handler{
		"xadd": XAdd, "xlen": XLen, "xrange": XRange, "xrevrange": XRevRange, "xdel": XDel,
		"xtrim": XTrim, "xsetid": XSetID, "xinfo": XInfo,
	} {
		handlers[name] = h
	}
}

// TestStreamScript checks replies against what redis-server 7.0 answers.
func TestStreamScript(t *testing.T) {
	c := newTestCtx()
	entry := func(id string, fv ...string) string { return arr(bulk(id), bulks(fv...)) }
	runScript(t, c, []step{
		{"xadd s 1-1 a 1 b 2", bulk("1-1")},
		{"xadd s 1-* a 3 b 4", bulk("1-2")},
		{"xadd s 5 c x", bulk("5-0")},
		{"xadd s 5 c x", errr(streamnode.ErrAddNotGreater)},
		{"xadd s 0-0 a b", errr(streamnode.ErrAddZero)},
		{"xadd s 9 a", errr(resp.ErrWrongArgs("xadd"))},
		{"xadd s maxlen -1 * a b", errr(errMaxlenNeg)},
		{"xadd s maxlen 1 limit 5 * a b", errr(errLimitNoApprox)},
		{"xadd s limit 5 * a b", errr(errLimitNoTrim)},
		{"xadd s maxlen 1 minid 1 * a b", errr(errTrimBoth)},
		{"xadd nokey nomkstream * a b", null},
		{"xlen s", num(3)},
		{"xrange s - +", arr(entry("1-1", "a", "1", "b", "2"), entry("1-2", "a", "3", "b", "4"), entry("5-0", "c", "x"))},
		{"xrevrange s + - count 2", arr(entry("5-0", "c", "x"), entry("1-2", "a", "3", "b", "4"))},
		{"xrange s (1-1 5", arr(entry("1-2", "a", "3", "b", "4"), entry("5-0", "c", "x"))},
		{"xrange s - + count 0", nullA},
		{"xrange nokey - +", arr()},
		{"xrange s (18446744073709551615-18446744073709551615 +", errr(streamnode.ErrRangeStart)},
		{"xrange s - + cnt 1", errr(resp.ErrSyntax)},
		{"xdel s 1-2 9-9", num(1)},
		{"xdel s 1-x", errr(streamnode.ErrInvalidID)},
		{"xlen s", num(2)},
		{"type s", "+stream\r\n"},
		{"object encoding s", bulk("stream")},
		{"xsetid s 4-0", errr(errSetIDSmaller)},
		{"xsetid s 7-0 entriesadded 1", errr(errSetIDAdded)},
		{"xsetid s 7-0 maxdeletedid 8-0", errr(errSetIDMaxDel)},
		{"xsetid s 7-0 entriesadded 10 maxdeletedid 6-0", ok},
		{"xsetid nokey 7-0", errr(resp.ErrNoSuchKey)},
		{"xadd s 7-0 a b", errr(streamnode.ErrAddNotGreater)},
		{"xtrim s maxlen 1", num(1)},
		{"xrange s - +", arr(entry("5-0", "c", "x"))},
		{"xtrim s minid 6", num(1)},
		{"xlen s", num(0)},
		{"exists s", num(1)},
		{"xtrim s foo bar", errr(resp.ErrSyntax)},
		{"xtrim s limit 1", errr(errLimitNoTrim)},
		{"xtrim s limit 0", errr(errXTrimNoTrim)},
		{"set str x", ok},
		{"xadd str * a b", errr(resp.ErrWrongType)},
		{"xrange str - +", errr(resp.ErrWrongType)},
	})
	if err := c.Table().Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStreamModel runs random XADD, XDEL and XTRIM on streams with small
// nodes against a model (a slice of entries), checking the stream's entries,
// its length and its table after each step. An approximate trim may keep
// more than asked: the model then takes what was kept, checking that only a
// prefix went, that at least maxlen entries are left (MAXLEN ~) and that
// whole nodes went (no entry of a node stays once the node is gone).
func TestStreamModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		c := newTestCtx()
		c.Shard.Enc.StreamNodeMaxEntries.Store(int64(r.IntN(6)))
		c.Shard.Enc.StreamNodeMaxBytes.Store(int64([]int{0, 60, 200, 4096}[r.IntN(4)]))
		type ent struct {
			id string
			fv []string
		}
		var model []ent
		ms := uint64(1)
		for step := range 300 {
			switch op := r.IntN(10); {
			case op < 5:
				ms += uint64(r.IntN(3))
				fv := []string{"f", strconv.Itoa(r.IntN(1000))}
				if r.IntN(3) == 0 {
					fv = append(fv, "g"+strconv.Itoa(r.IntN(3)), "v")
				}
				reply := do(c, append([]string{"xadd", "s", strconv.FormatUint(ms, 10) + "-*"}, fv...)...)
				id := reply[len(reply)-2-len(reply[4:len(reply)-2]) : len(reply)-2]
				if reply[0] != '$' {
					t.Fatalf("round %d step %d: xadd: %q", round, step, reply)
				}
				model = append(model, ent{id, fv})
			case op < 7 && len(model) > 0:
				k := r.IntN(len(model))
				if got := do(c, "xdel", "s", model[k].id); got != num(1) {
					t.Fatalf("round %d step %d: xdel %s: %q", round, step, model[k].id, got)
				}
				model = append(model[:k], model[k+1:]...)
			case op < 9:
				maxlen := r.IntN(len(model) + 2)
				if r.IntN(2) == 0 {
					want := max(len(model)-maxlen, 0)
					if got := do(c, "xtrim", "s", "maxlen", strconv.Itoa(maxlen)); got != num(int64(want)) {
						t.Fatalf("round %d step %d: xtrim maxlen %d: %q, want %d", round, step, maxlen, got, want)
					}
					model = model[want:]
				} else {
					got := do(c, "xtrim", "s", "maxlen", "~", strconv.Itoa(maxlen))
					n, _ := strconv.Atoi(got[1 : len(got)-2])
					if n > len(model) || len(model)-n < min(maxlen, len(model)) {
						t.Fatalf("round %d step %d: xtrim maxlen ~ %d of %d: %q", round, step, maxlen, len(model), got)
					}
					model = model[n:]
				}
			default:
				if len(model) > 0 {
					k := r.IntN(len(model))
					want := k
					if got := do(c, "xtrim", "s", "minid", model[k].id); got != num(int64(want)) {
						t.Fatalf("round %d step %d: xtrim minid %s: %q, want %d", round, step, model[k].id, got, want)
					}
					model = model[k:]
				}
			}
			var want []string
			for _, e := range model {
				want = append(want, arr(bulk(e.id), bulks(e.fv...)))
			}
			if got := do(c, "xrange", "s", "-", "+"); len(model) > 0 && got != arr(want...) {
				t.Fatalf("round %d step %d: xrange:\n%q\nwant\n%q", round, step, got, arr(want...))
			}
			if got := do(c, "xlen", "s"); got != num(int64(len(model))) {
				t.Fatalf("round %d step %d: xlen %q, want %d", round, step, got, len(model))
			}
			if err := c.Table().Check(); err != nil {
				t.Fatalf("round %d step %d: %v", round, step, err)
			}
		}
	}
}

// TestStreamObey: a command from the append-only file may pair an exact
// trim with LIMIT, as Redis propagates XADD and XTRIM with "~" (the LIMIT
// kept, the "~" made "="); a client may not.
func TestStreamObey(t *testing.T) {
	c := newTestCtx()
	for i := 1; i <= 5; i++ {
		do(c, "xadd", "s", strconv.Itoa(i)+"-0", "f", "v")
	}
	if got := do(c, "xadd", "s", "maxlen", "=", "2", "limit", "1", "6-0", "f", "v"); got != errr(errLimitNoApprox) {
		t.Fatalf("client: %q", got)
	}
	c.Obey = true
	if got := do(c, "xadd", "s", "maxlen", "=", "2", "limit", "1", "6-0", "f", "v"); got != bulk("6-0") {
		t.Fatalf("from the file: %q", got)
	}
	if got := do(c, "xtrim", "s", "minid", "=", "6", "limit", "1"); got != num(1) {
		t.Fatalf("from the file: %q", got)
	}
	if got := do(c, "xlen", "s"); got != num(1) {
		t.Fatalf("xlen %q", got)
	}
}
