package shardowner

import (
	"bytes"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

func init() {
	for name, h := range map[string]Handler{
		"pfadd": PFAdd, "pfcount": PFCount, "pfmerge": PFMerge, "pfdebug": PFDebug, "pfselftest": PFSelfTest,
	} {
		handlers[name] = h
	}
}

// hllHeader is a header with the given encoding and cardinality bytes.
func hllHeader(enc byte, card ...byte) []byte {
	h := []byte{'H', 'Y', 'L', 'L', enc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	copy(h[8:], card)
	return h
}

// The replies and bytes below are redis-server 7.0.15's.
func TestHLLScript(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"pfadd h a b c", num(1)},
		{"pfadd h a", num(0)},
		{"pfdebug decode h", bulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603")},
		{"get h", bulk("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ")},
		{"pfcount h", num(3)},
		{"get h", bulk("HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ")},
		{"pfadd e", num(1)},
		{"pfadd e", num(0)},
		{"pfcount e", num(0)},
		{"pfcount e h missing", num(3)},
		{"pfdebug encoding e", "+sparse\r\n"},
		{"pfdebug todense e", num(1)},
		{"pfdebug todense e", num(0)},
		{"pfdebug encoding e", "+dense\r\n"},
		{"pfdebug decode e", errr(errHLLDecode)},
		{"strlen e", num(hllDenseSize)},
		{"pfdebug getreg missing", errr(errHLLNoKey)},
		{"pfdebug foo missing", errr(errHLLNoKey)},
		{"pfdebug Foo h", errr("ERR Unknown PFDEBUG subcommand 'Foo'")},
		{"set s x", ok},
		{"pfadd s a", errr(errHLLType)},
		{"pfcount s", errr(errHLLType)},
		{"pfcount h s", errr(errHLLType)},
		{"set n 123", ok},
		{"pfcount n", errr(errHLLType)},
		{"rpush l a", num(1)},
		{"pfadd l a", errr(resp.ErrWrongType)},
		{"pfmerge l", errr(resp.ErrWrongType)},
		{"pfmerge m h e", ok},
		{"pfdebug encoding m", "+dense\r\n"},
		{"pfcount m", num(3)},
		{"pfadd t x", num(1)},
		{"expire t 100", num(1)},
		{"pfadd t y z", num(1)},
		{"ttl t", num(100)},
		{"pfselftest", ok},
	})
}

// Corrupt values from SET give Redis's errors, and PFADD into a sparse
// value that covers too few registers still finds its register, as in Redis.
func TestHLLCorrupt(t *testing.T) {
	c := newTestCtx()
	tb := c.Table()
	// Sparse runs one register short.
	tb.SetString([]byte("c"), append(hllHeader(hllSparse, 0, 0, 0, 0, 0, 0, 0, 0x80), 0x7f, 0xfe), 0)
	// A dense header without registers.
	tb.SetString([]byte("d"), hllHeader(hllDense, 0, 0, 0, 0, 0, 0, 0, 0x80), 0)
	// An XZERO cut short by the end.
	tb.SetString([]byte("x"), append(hllHeader(hllSparse, 0, 0, 0, 0, 0, 0, 0, 0x80), 0x7f), 0)
	tb.SetString([]byte("b"), []byte("HYLL\x02"+string(make([]byte, 11))), 0)
	// Every register covered, then a value run past the last: corrupt for
	// a merge and a conversion too, though they stop at that run.
	tb.SetString([]byte("v"), append(hllHeader(hllSparse, 0, 0, 0, 0, 0, 0, 0, 0x80), 0x7f, 0xff, 0x88), 0)
	runScript(t, c, []step{
		{"pfmerge y v", errr(errHLLCorrupt)},
		{"pfdebug todense v", errr(errHLLCorrupt)},
		{"pfcount v", errr(errHLLCorrupt)},
		{"pfcount c", errr(errHLLCorrupt)},
		{"pfadd c a", num(1)},
		{"pfcount c x", errr(errHLLCorrupt)},
		{"pfmerge y c", errr(errHLLCorrupt)},
		{"exists y", num(0)},
		{"pfcount d", errr(errHLLType)},
		{"pfcount b", errr(errHLLType)},
		{"pfdebug getreg c", errr(errHLLCorrupt)},
		{"pfdebug decode x", bulk("Z:16129")},
		{"pfcount x", errr(errHLLCorrupt)},
	})
}

// hllSet keeps a sparse HLL equal, register for register, to a dense one
// fed the same registers, through splits, merges and promotion.
func TestHLLSparseMatchesDense(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := range 50 {
		d, _ := sparseToDense(nil, hllEmpty)
		sparse, dense := newHLLEdit(hllEmpty), newHLLEdit(d)
		maxBytes := int64(100 + r.Intn(4000))
		for range r.Intn(3000) {
			// Clustered indexes make runs of equal values to merge.
			idx := r.Intn(hllRegisters)
			if round%2 == 0 {
				idx = r.Intn(64)
			}
			n := uint8(1 + r.Intn(4))
			if r.Intn(500) == 0 {
				n = uint8(1 + r.Intn(hllQ+1))
			}
			rs := sparse.set(idx, n, maxBytes)
			rd := dense.set(idx, n, maxBytes)
			if rs != rd {
				t.Fatalf("round %d: set %d to %d: sparse %d, dense %d", round, idx, n, rs, rd)
			}
			if sparse.b.B[4] == hllSparse && int64(len(sparse.b.B)) > maxBytes {
				t.Fatalf("round %d: sparse of %d bytes past %d", round, len(sparse.b.B), maxBytes)
			}
		}
		got := sparse.value()
		if got[4] == hllSparse {
			var ok bool
			if got, ok = sparseToDense(nil, got); !ok {
				t.Fatalf("round %d: sparse runs corrupt", round)
			}
		}
		if !bytes.Equal(got[hllHdrSize:], dense.value()[hllHdrSize:]) {
			t.Fatalf("round %d: registers differ", round)
		}
	}
}

// The estimator on known register histograms, as Redis 7.0 computes it.
func TestHLLEstimate(t *testing.T) {
	var h [64]int
	h[0] = hllRegisters
	if got := hllEstimate(&h); got != 0 {
		t.Fatalf("empty: %d", got)
	}
	c := newTestCtx()
	for i := range 20000 {
		PFAdd(c, args("pfadd", "k", "e"+strconv.Itoa(i+1)))
	}
	c.W.B = c.W.B[:0]
	PFCount(c, args("pfcount", "k"))
	// redis-server: PFADD of e1 … e20000, then PFCOUNT.
	if got := string(c.W.B); got != num(19899) {
		t.Fatalf("pfcount: %q", got)
	}
}

// Adding one element to a sparse or a dense HLL allocates nothing.
func TestHLLAddAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("pooled buffers allocate under the race detector")
	}
	c := benchCtx()
	PFAdd(c, args("pfadd", "d"))
	PFDebug(c, args("pfdebug", "todense", "d"))
	for _, key := range []string{"s", "d"} {
		var eles [100][][]byte
		for i := range eles {
			eles[i] = args("pfadd", key, "e"+strconv.Itoa(i))
		}
		i := 0
		n := testing.AllocsPerRun(200, func() {
			c.W.B = c.W.B[:0]
			PFAdd(c, eles[i%len(eles)])
			i++
		})
		if n != 0 {
			t.Errorf("pfadd into %s allocates %v times per call", key, n)
		}
	}
}

func BenchmarkPFAddSparse(b *testing.B) { benchPFAdd(b, false) }
func BenchmarkPFAddDense(b *testing.B)  { benchPFAdd(b, true) }

// benchPFAdd adds one of 200 elements per op, which keeps the HLL sparse
// unless it was made dense.
func benchPFAdd(b *testing.B, dense bool) {
	c := benchCtx()
	PFAdd(c, args("pfadd", "k"))
	if dense {
		PFDebug(c, args("pfdebug", "todense", "k"))
	}
	var eles [200][][]byte
	for i := range eles {
		eles[i] = args("pfadd", "k", "element:"+strconv.Itoa(i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		PFAdd(c, eles[i%len(eles)])
		i++
	}
}

// FuzzHLL stores a fuzzed value, HLL-like or not, and runs every HLL
// command on it: none may panic or read past the value, and each replies
// as Redis would (an answer, or one of its errors).
//
//	go test -run XXX -fuzz FuzzHLL -fuzztime 5m ./shardowner/
func FuzzHLL(f *testing.F) {
	f.Add(hllEmpty, []byte("a"))
	f.Add(append(hllHeader(hllSparse), 0x7f), []byte("b"))
	f.Add(append(hllHeader(hllSparse), 0x7f, 0xfe, 0xfc), []byte("c"))
	f.Add(append(hllHeader(hllSparse), 0x80, 0xff, 0x40, 0x00, 0x3f), []byte("d"))
	d, _ := sparseToDense(nil, hllEmpty)
	f.Add(d, []byte("e"))
	f.Add([]byte("HYLL"), []byte(""))
	f.Fuzz(func(t *testing.T, val, ele []byte) {
		if len(val) > 64<<10 {
			return // the work grows with the value; its size is not the point
		}
		c := newTestCtx()
		c.Shard.Enc.HLLSparseMaxBytes.Store(int64(len(val)%200 + 20))
		for _, cmd := range [][][]byte{
			{[]byte("pfcount"), []byte("k")},
			{[]byte("pfadd"), []byte("k"), ele, []byte("x")},
			{[]byte("pfcount"), []byte("k")},
			{[]byte("pfcount"), []byte("k"), []byte("k")},
			{[]byte("pfmerge"), []byte("m"), []byte("k")},
			{[]byte("pfmerge"), []byte("k"), []byte("m")},
			{[]byte("pfdebug"), []byte("decode"), []byte("k")},
			{[]byte("pfdebug"), []byte("getreg"), []byte("k")},
			{[]byte("pfdebug"), []byte("todense"), []byte("k")},
			{[]byte("pfcount"), []byte("k")},
		} {
			c.Table().SetVerbatim([]byte("k"), val, 0, true)
			c.W.B = c.W.B[:0]
			handlers[string(cmd[0])](c, cmd)
			if len(c.W.B) == 0 {
				t.Fatalf("%q: no reply", cmd)
			}
			if c.W.B[0] == '-' {
				switch e := string(c.W.B[1 : len(c.W.B)-2]); resp.Error(e) {
				case errHLLType, errHLLCorrupt, errHLLDecode:
				default:
					t.Fatalf("%q: error %q", cmd, e)
				}
			}
			if v, found := c.Table().Get([]byte("k")); found && len(v.Str) > max(len(val)+8, hllDenseSize) {
				t.Fatalf("%q: value grew to %d bytes", cmd, len(v.Str))
			}
		}
	})
}

// TestHLLEvents: the keyspace events and WATCH touches of the HLL
// commands, as redis-server 7.0.15 publishes them: PFMERGE publishes pfadd;
// PFCOUNT reads (a missing key is a keymiss) and touches the key only when
// it caches a new estimate.
func TestHLLEvents(t *testing.T) {
	c := newTestCtx()
	events := &NotifyConfig{}
	events.Classes.Store(NotifyKeyevent | NotifyAll | NotifyKeyMiss)
	c.Shard.Events = events
	c.Shard.StartRecording()
	for _, cmd := range []string{"pfadd e1 a", "pfadd e1 a", "pfcount e1", "pfcount nokey1",
		"pfcount nokey2 nokey3", "pfmerge e2 e1 nokey4", "pfdebug encoding nokey5", "pfadd nokey6"} {
		do(c, strings.Fields(cmd)...)
	}
	var got []string
	for _, e := range c.Shard.Recorded() {
		got = append(got, string(e.Class)+" "+string(e.Event)+" "+string(e.Key))
	}
	want := "$ pfadd e1|m keymiss nokey1|m keymiss nokey2|m keymiss nokey3|m keymiss e2|m keymiss nokey4|$ pfadd e2|$ pfadd nokey6"
	if strings.Join(got, "|") != want {
		t.Errorf("events %q, want %q", strings.Join(got, "|"), want)
	}
	do(c, "pfadd", "w", "a")
	for _, tc := range []struct {
		cmd     string
		touched bool
	}{
		{"pfcount w", true},  // caches the estimate
		{"pfcount w", false}, // reads the cache
		{"pfadd w a", false},
		{"pfadd w b", true},
	} {
		c.Shard.StartRecording()
		do(c, strings.Fields(tc.cmd)...)
		if got := c.Shard.Touched([]byte("w")); got != tc.touched {
			t.Errorf("%s: touched %v, want %v", tc.cmd, got, tc.touched)
		}
	}
}

// tailed is a sparse value whose runs cover every register one ZERO each,
// then a VAL past the last register, then n bytes of junk: PFADD writes into
// it, while PFCOUNT, PFMERGE and PFDEBUG TODENSE find it corrupt, as
// redis-server 7.0.15 does.
func tailed(r *rand.Rand, n int) []byte {
	v := append(hllHeader(hllSparse, 0, 0, 0, 0, 0, 0, 0, 0x80), make([]byte, hllRegisters)...)
	v = append(v, 0x80)
	tail := make([]byte, n)
	r.Read(tail)
	return append(v, tail...)
}

// An edit that keeps a value's tail aside gives the bytes of one that moves
// it at every update, as Redis does.
func TestHLLEditTail(t *testing.T) {
	SkipUnderRace(t)
	r := rand.New(rand.NewSource(2))
	for round := range 40 {
		v := tailed(r, hllDenseSize+r.Intn(200))
		// Runs of the last registers, so that updates reach the tail.
		v[hllHdrSize+hllRegisters-1-r.Intn(8)] = sparseVal(1+r.Intn(3), 1)
		whole := hllEdit{b: &bytebufferpool.ByteBuffer{B: append([]byte(nil), v...)}, tmp: &bytebufferpool.ByteBuffer{}}
		kept := newHLLEdit(v)
		if len(kept.rest) == 0 {
			t.Fatalf("round %d: no tail kept aside", round)
		}
		maxBytes := int64(len(v) + r.Intn(3000))
		for range 2000 {
			idx := hllRegisters - 1 - r.Intn(40)
			if r.Intn(4) == 0 {
				idx = r.Intn(hllRegisters)
			}
			n := uint8(1 + r.Intn(4))
			if a, b := whole.set(idx, n, maxBytes), kept.set(idx, n, maxBytes); a != b {
				t.Fatalf("round %d: set %d to %d: %d, kept aside %d", round, idx, n, a, b)
			}
		}
		if a, b := whole.value(), kept.value(); !bytes.Equal(a, b) {
			t.Fatalf("round %d: values differ (%d and %d bytes)", round, len(a), len(b))
		}
	}
}

// PFMERGE and PFADD into a sparse value with a long tail take time for the
// registers, not for the tail at each update; both find the tail corrupt,
// as redis-server 7.0.15 does.
func TestHLLTailBounded(t *testing.T) {
	c := newTestCtx()
	r := rand.New(rand.NewSource(3))
	c.Table().SetString([]byte("t"), tailed(r, 48<<20), 0)
	c.Table().SetString([]byte("u"), tailed(r, 48<<20), 0)
	// A sparse source with every register set, to values that merge.
	src := hllHeader(hllSparse, 0, 0, 0, 0, 0, 0, 0, 0x80)
	for range hllRegisters {
		src = append(src, sparseVal(1+r.Intn(2), 1))
	}
	c.Table().SetString([]byte("s"), src, 0)
	elems := []string{"pfadd", "u"}
	for i := range 5000 {
		elems = append(elems, strconv.Itoa(i))
	}
	start := time.Now()
	if got := do(c, "pfmerge", "t", "s"); got != errr(errHLLCorrupt) {
		t.Fatalf("pfmerge: %q", got)
	}
	// The updates run; the value, far past hll-sparse-max-bytes, is then
	// promoted to dense, which finds the tail corrupt.
	if got := do(c, elems...); got != errr(errHLLCorrupt) {
		t.Fatalf("pfadd: %q", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("pfmerge and pfadd took %v", d)
	}
}
