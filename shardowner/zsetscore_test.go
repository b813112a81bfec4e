package shardowner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// edgeScores are scores at the edges of the member table's score forms.
var edgeScores = []struct {
	s   float64
	len int
}{
	{0, 0}, {math.Copysign(0, -1), 8}, {1, 1}, {-1, 1}, {127, 1}, {128, 2}, {-128, 1}, {-129, 2},
	{32767, 2}, {32768, 3}, {-32768, 2}, {999_999, 3}, {1_764_547_200, 4}, {1_764_547_200_123, 6},
	{1 << 53, 7}, {-(1 << 53), 7}, {1<<55 - 4, 7}, {1 << 55, 8}, {-(1 << 55), 7}, {-(1 << 55) - 8, 8},
	{1 << 62, 8}, {0.5, 8}, {-1.5, 8}, {1e300, 8}, {math.MaxFloat64, 8}, {-math.MaxFloat64, 8},
	{math.SmallestNonzeroFloat64, 8}, {math.Inf(1), 8}, {math.Inf(-1), 8}, {0.1, 8},
}

// TestStoredScore: each score takes the length its form calls for and
// reads back as the very same float64.
func TestStoredScore(t *testing.T) {
	for _, e := range edgeScores {
		var b [maxScoreLen]byte
		n := putScore(&b, e.s)
		got := memberScore(b[:n])
		if n != e.len || math.Float64bits(got) != math.Float64bits(e.s) {
			t.Errorf("%v: %d bytes read back as %v, want %d bytes", e.s, n, got, e.len)
		}
	}
}

// TestScoreText: the integer shortcut writes what %.17g does, for the edge
// scores, integers around 2^53 and random doubles.
func TestScoreText(t *testing.T) {
	scores := []float64{1<<53 - 1, 1 << 53, 1<<53 + 2, -(1<<53 - 1), 1e15, 1e16, 1e17, 123456789012345678}
	for _, e := range edgeScores {
		scores = append(scores, e.s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		scores = append(scores, float64(rng.Int64N(1<<60)-1<<59), math.Float64frombits(rng.Uint64()),
			float64(rng.IntN(2000)-1000)/4)
	}
	for _, s := range scores {
		want := strconv.FormatFloat(s, 'g', 17, 64)
		switch {
		case math.IsInf(s, 1):
			want = "inf"
		case math.IsInf(s, -1):
			want = "-inf"
		}
		if got := string(appendScoreText(nil, s)); got != want && !math.IsNaN(s) {
			t.Fatalf("%v: %q, want %q", s, got, want)
		}
	}
}

// TestZSetScoreForms moves the members of a big sorted set through scores
// of every form and length, so that their member-table entries grow and
// shrink, checking order, ranks and scores.
func TestZSetScoreForms(t *testing.T) {
	c := newTestCtx()
	c.Shard.Enc.ZSetMaxEntries.Store(0)
	model := zmodel{}
	for round := range len(edgeScores) {
		args := []string{"zadd", "z"}
		for i := range 3 * len(edgeScores) {
			m := "m" + strconv.Itoa(i)
			s := edgeScores[(i+round*7)%len(edgeScores)].s
			args = append(args, strconv.FormatFloat(s, 'g', -1, 64), m)
			model[m] = s
		}
		do(c, args...)
		checkZSet(t, c, "z", model)
		for m, s := range model {
			r := strings.Split(do(c, "zscore", "z", m), "\r\n")
			if got, err := strconv.ParseFloat(r[len(r)-2], 64); err != nil || math.Float64bits(got) != math.Float64bits(s) {
				t.Fatalf("ZSCORE %s = %q, want %v", m, r, s)
			}
		}
	}
	if v, _ := c.Table().Get([]byte("z")); v.Big == nil {
		t.Fatal("not big")
	}
}

// TestZSetBigMemory loads a big sorted set of 15-byte members with integer
// scores, 100 per ZADD, and checks what it costs per member: MEMORY USAGE,
// and its parts, the member table and the score-ordered pages.
func TestZSetBigMemory(t *testing.T) {
	usage, pages := loadZSetMemory(t, nil)
	if usage > 73 {
		t.Errorf("%.1f bytes per member, want at most 73", usage)
	}
	// full pages in a size class of their own: 25 bytes a member and little more
	if pages > 26.5 {
		t.Errorf("pages take %.1f bytes per member, want at most 26.5", pages)
	}
}

// TestZSetBigMemoryShuffled is the same with members in random order: the
// pages, split at random places, are two thirds full or so, and each in
// the size class that fits it.
func TestZSetBigMemoryShuffled(t *testing.T) {
	_, pages := loadZSetMemory(t, rand.New(rand.NewPCG(1, 2)))
	if pages > 30 {
		t.Errorf("pages take %.1f bytes per member, want at most 30", pages)
	}
}

// loadZSetMemory loads the members of TestZSetBigMemory, in order or
// shuffled by rng, and returns MEMORY USAGE and the pages' bytes per member.
func loadZSetMemory(t *testing.T, rng *rand.Rand) (usage, pages float64) {
	const n = 100_000
	c := newTestCtx()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if rng != nil {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	argv := []string{"zadd", "z"}
	for _, i := range order {
		argv = append(argv, strconv.Itoa(i), fmt.Sprintf("member:%08d", i))
		if len(argv) == 2+200 {
			do(c, argv...)
			argv = argv[:2]
		}
	}
	v, _ := c.Table().Get([]byte("z"))
	if v.Big == nil || v.Big.Len() != n {
		t.Fatal("not a big sorted set of all the members")
	}
	if err := v.Big.Check(); err != nil {
		t.Fatal(err)
	}
	usage = float64(memoryUsage(t, c, "z")) / n
	pages = float64(v.Big.Order.Pages.ArenaBytes()) / n
	t.Logf("per member: MEMORY USAGE %.1f, member table %.1f, pages %.1f", usage, usage-pages, pages)
	return usage, pages
}

// TestZSetNegativeZero: a listpack keeps -0 as the integer 0, so a packed
// set, built by ZADD or by a STORE command, answers 0 for it; a big set
// keeps -0, and so do replies that write a score no set holds (the INCR
// forms on a new member, ZUNION's weighted sums).
func TestZSetNegativeZero(t *testing.T) {
	neg := [][]string{{"zadd", "z", "-0", "m"}, {"zadd", "z", "-0.0", "n"}}
	for _, big := range []bool{false, true} {
		c := newTestCtx()
		text := "0"
		if big {
			c.Shard.Enc.ZSetMaxEntries.Store(0)
			text = "-0"
		}
		zero := bulk(text)
		for _, a := range neg {
			do(c, a...)
		}
		steps := []step{
			{"zscore z m", zero},
			{"zmscore z m n", "*2\r\n" + zero + zero},
			{"zrange z 0 -1 WITHSCORES", "*4\r\n" + bulk("m") + zero + bulk("n") + zero},
			{"zadd z INCR -0 new", bulk("-0")},
			{"zincrby z -0 new2", bulk("-0")},
			{"zincrby z -0 m", zero},
			{"zscore z new", zero},
			{"@resp 3", ""},
			{"zscore z m", "," + text + "\r\n"},
			{"zincrby z -0.0 new3", ",-0\r\n"},
			{"@resp 2", ""},
		}
		runScript(t, c, steps)
	}
	// A STORE command's packed result holds 0, whatever its source.
	c := newTestCtx()
	c.Shard.Enc.ZSetMaxEntries.Store(0)
	do(c, "zadd", "big", "-0", "a", "1", "b")
	c.Shard.Enc.ZSetMaxEntries.Store(128)
	do(c, "zadd", "small", "0", "a", "1", "b")
	runScript(t, c, []step{
		{"zrangestore d big 0 -1", num(2)},
		{"zscore d a", bulk("0")},
		{"zunionstore d 1 big", num(2)},
		{"zscore d a", bulk("0")},
		{"zunion 1 small WEIGHTS -1 WITHSCORES", "*4\r\n" + bulk("b") + bulk("-1") + bulk("a") + bulk("-0")},
		{"zunionstore d 1 small WEIGHTS -1", num(2)},
		{"zrange d 0 -1 WITHSCORES", "*4\r\n" + bulk("b") + bulk("-1") + bulk("a") + bulk("0")},
		{"zinterstore d 1 small WEIGHTS -1", num(2)},
		{"zscore d a", bulk("0")},
		{"zdiffstore d 1 big", num(2)},
		{"zscore d a", bulk("0")},
		{"zscore big a", bulk("-0")},
	})
	// RESTORE of a skiplist that holds -0 into a packed set, as Redis
	// converts it on load.
	dump := do(c, "dump", "big")
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	if got := do(c, "restore", "r", "0", payload); got != ok {
		t.Fatalf("RESTORE: %q", got)
	}
	if got := do(c, "zscore", "r", "a"); got != bulk("0") {
		t.Errorf("ZSCORE of the restored set: %q, want 0", got)
	}
}
