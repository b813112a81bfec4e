package shardowner

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func init() {
	for name, h := range map[string]Handler{
		"setbit": SetBit, "getbit": GetBit, "bitcount": BitCount, "bitpos": BitPos,
		"bitfield": BitField, "bitfield_ro": BitFieldRO, "bitop": BitOp,
	} {
		handlers[name] = h
	}
}

// The replies below are redis-server 7.0.15's.
func TestBitScript(t *testing.T) {
	runCases(t, []scriptCase{
		{"setbit getbit", []step{
			{"setbit a 7 1", num(0)},
			{"setbit a 7 1", num(1)},
			{"get a", bulk("\x01")},
			{"setbit a 100 1", num(0)},
			{"strlen a", num(13)},
			{"getbit a 100", num(1)},
			{"getbit a 99", num(0)},
			{"getbit a 4294967295", num(0)},
			{"getbit nokey 0", num(0)},
			{"setbit a -1 1", errr(errBitOffset)},
			{"setbit a 4294967296 1", errr(errBitOffset)},
			{"getbit a 4294967296", errr(errBitOffset)},
			{"setbit a 0 2", errr(errBitValue)},
			{"setbit a 0 -1", errr(errBitValue)},
			{"setbit a 0 x", errr(errBitValue)},
			{"setbit a x 1", errr(errBitOffset)},
			// An integer is read and written as its digits.
			{"set n 12345", ok},
			{"getbit n 2", num(1)},
			{"setbit n 0 1", num(0)},
			{"get n", bulk("\xb12345")},
			{"rpush l x", num(1)},
			{"setbit l 0 1", errr(resp.ErrWrongType)},
			{"getbit l 0", errr(resp.ErrWrongType)},
			// An unchanged bit of a new key still creates it.
			{"setbit z 15 0", num(0)},
			{"get z", bulk("\x00\x00")},
			// Writing into a string, bits changed or not, leaves it raw.
			{"set e abc", ok},
			{"object encoding e", bulk("embstr")},
			{"setbit e 1 1", num(1)},
			{"object encoding e", bulk("raw")},
			{"set e abc", ok},
			{"bitfield e set u1 1 1", arr(num(1))},
			{"object encoding e", bulk("raw")},
		}},
		{"bitcount", []step{
			{"set k foobar", ok},
			{"bitcount k", num(26)},
			{"bitcount k 0 0", num(4)},
			{"bitcount k 1 1", num(6)},
			{"bitcount k 1 1 byte", num(6)},
			{"bitcount k 5 30 BIT", num(17)},
			{"bitcount k -1 -1 bit", num(0)},
			{"bitcount k -2 -1", num(7)},
			{"bitcount k -1 -2", num(0)},
			{"bitcount k 100 200", num(0)},
			{"bitcount k 0 -100", num(4)},
			{"bitcount k 1", errr(resp.ErrSyntax)},
			{"bitcount k 1 2 3 4", errr(resp.ErrSyntax)},
			{"bitcount k 1 2 word", errr(resp.ErrSyntax)},
			{"bitcount k a 2", errr(resp.ErrNotInteger)},
			// A missing key is looked up first.
			{"bitcount nokey a b", num(0)},
			{"set e ''", ok},
			{"bitcount n 0 -1", num(0)},
			{"set n 12345", ok},
			{"bitcount n", num(17)},
		}},
		{"bitpos", []step{
			{"set k \xff\xf0\x00", ok},
			{"bitpos k 0", num(12)},
			{"bitpos k 1 2", num(-1)},
			{"bitpos k 1 1 -1 bit", num(1)},
			{"bitpos k 0 0 11 bit", num(-1)},
			{"bitpos k 0 0 12 bit", num(12)},
			{"bitpos k 1 7 15 bit", num(7)},
			{"bitpos k 0 2 -1", num(16)},
			{"bitpos k 1 -1 -2", num(-1)},
			{"set ones \xff\xff", ok},
			{"bitpos ones 0", num(16)},
			{"bitpos ones 0 1", num(16)},
			{"bitpos ones 0 0 -1", num(-1)},
			{"bitpos ones 0 3 bit", errr(resp.ErrNotInteger)},
			{"bitpos ones 0 3 -1 bit", num(-1)},
			{"bitpos ones 2", errr(errBitArg)},
			{"bitpos ones x", errr(resp.ErrNotInteger)},
			{"bitpos ones 1 x", errr(resp.ErrNotInteger)},
			{"bitpos ones 1 0 1 words", errr(resp.ErrSyntax)},
			{"bitpos ones 1 0 1 bit x", errr(resp.ErrSyntax)},
			{"bitpos nokey 0", num(0)},
			{"bitpos nokey 1", num(-1)},
			{"bitpos nokey 1 x", num(-1)},
			{"rpush l x", num(1)},
			{"bitpos l 1", errr(resp.ErrWrongType)},
		}},
		{"bitfield", []step{
			{"bitfield bf set i8 0 -1 get u8 0 incrby u4 #1 20", arr(num(0), num(255), num(3))},
			{"bitfield bf overflow sat incrby u4 #1 20 overflow fail incrby i4 4 100", arr(num(15), null)},
			{"bitfield bf set u63 0 -1 get u63 0 get i64 0", arr(num(255<<55), num(math.MaxInt64), num(-2))},
			{"bitfield bf incrby i64 0 1 incrby i64 0 9223372036854775807", arr(num(-1), num(math.MaxInt64-1))},
			{"bitfield bf overflow sat incrby i64 0 9223372036854775807 overflow wrap incrby i2 0 1", arr(num(math.MaxInt64), num(-2))},
			{"bitfield bf get u8 4294967295", arr(num(0))},
			{"bitfield bf get u8 4294967296", errr(errBitOffset)},
			{"bitfield bf get u8 #536870911", arr(num(0))},
			{"bitfield bf get u8 #536870912", errr(errBitOffset)},
			{"bitfield bf get u8 #-1", errr(errBitOffset)},
			{"bitfield bf get u64 0", errr(errBitfieldType)},
			{"bitfield bf get i65 0", errr(errBitfieldType)},
			{"bitfield bf get u0 0", errr(errBitfieldType)},
			{"bitfield bf get I8 0", errr(errBitfieldType)},
			{"bitfield bf overflow foo get i8 0", errr(errOverflowType)},
			{"bitfield bf get i8", errr(resp.ErrSyntax)},
			{"bitfield bf foo", errr(resp.ErrSyntax)},
			{"bitfield bf set i8 0 x", errr(resp.ErrNotInteger)},
			{"bitfield bf", arr()},
			{"bitfield_ro bf get u8 0 get u4 #1", arr(num(0xbf), num(0xf))},
			{"bitfield_ro bf set u8 0 1", errr(errBitfieldRO)},
			{"bitfield_ro bf get u8 0 incrby u8 0 1 get x 0", errr(errBitfieldType)},
			{"bitfield nokey get u8 0", arr(num(0))},
			{"exists nokey", num(0)},
			// FAIL writes nothing, but the key is grown first.
			{"bitfield f overflow fail incrby u2 0 10", arr(null)},
			{"get f", bulk("\x00")},
			{"set n 1", ok},
			{"bitfield n get u8 0 set u8 0 50", arr(num('1'), num('1'))},
			{"get n", bulk("2")},
			{"rpush l x", num(1)},
			{"bitfield l get u8 0", errr(resp.ErrWrongType)},
			{"bitfield_ro l get u8 0", errr(resp.ErrWrongType)},
		}},
		{"bitop", []step{
			{"set a \xff\x0f", ok},
			{"set b \xf0", ok},
			{"bitop and d a b", num(2)},
			{"get d", bulk("\xf0\x00")},
			{"bitop or d a b nokey", num(2)},
			{"get d", bulk("\xff\x0f")},
			{"bitop xor d a b", num(2)},
			{"get d", bulk("\x0f\x0f")},
			{"bitop NOT d b", num(1)},
			{"get d", bulk("\x0f")},
			{"bitop not d a b", errr(errBitopNotOne)},
			{"bitop nand d a b", errr(resp.ErrSyntax)},
			{"set n 12", ok},
			{"bitop or d n", num(2)},
			{"get d", bulk("12")},
			{"object encoding d", bulk("raw")},
			{"expire d 100", num(1)},
			{"bitop and d a d", num(2)},
			{"ttl d", num(-1)},
			{"get d", bulk("\x31\x02")},
			{"bitop and d nokey nokey2", num(0)},
			{"exists d", num(0)},
			{"rpush l x", num(1)},
			{"bitop and d a l", errr(resp.ErrWrongType)},
			{"bitop and l a", num(2)},
			{"get l", bulk("\xff\x0f")},
		}},
	})
}

// TestBitModel checks SETBIT, GETBIT, BITCOUNT and BITPOS against a plain
// slice of bits, over random ranges in both units.
func TestBitModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	c := newTestCtx()
	var model []bool
	for i := 0; i < 3000; i++ {
		off := rng.Intn(200)
		on := rng.Intn(2)
		want := int64(0)
		if off < len(model) && model[off] {
			want = 1
		}
		if got := do(c, "setbit", "k", ms(int64(off)), ms(int64(on))); got != num(want) {
			t.Fatalf("setbit %d %d: %q, want %d", off, on, got, want)
		}
		for len(model) < (off/8+1)*8 {
			model = append(model, false)
		}
		model[off] = on == 1
		n := int64(len(model))
		for range 3 {
			start, end := rng.Int63n(2*n+4)-n-2, rng.Int63n(2*n+4)-n-2
			unit := []string{"byte", "bit"}[rng.Intn(2)]
			// BITCOUNT, not BITPOS, finds nothing in a range of two
			// negative ends the wrong way round.
			from, to := start, end
			units, size := n/8, int64(8)
			if unit == "bit" {
				units, size = n, 1
			}
			if from < 0 {
				from = max(from+units, 0)
			}
			if to < 0 {
				to = max(to+units, 0)
			}
			to = min(to, units-1)
			isEmpty := from > to
			from, to = from*size, to*size+size-1
			cnt := int64(0)
			pos := [2]int64{-1, -1}
			for b := from; !isEmpty && b <= to; b++ {
				v := 0
				if model[b] {
					v = 1
					cnt++
				}
				if pos[v] < 0 {
					pos[v] = b
				}
			}
			if start < 0 && end < 0 && start > end {
				cnt = 0
			}
			if got := do(c, "bitcount", "k", ms(start), ms(end), unit); got != num(cnt) {
				t.Fatalf("bitcount %d %d %s over %d bits: %q, want %d", start, end, unit, n, got, cnt)
			}
			bit := rng.Intn(2)
			if got := do(c, "bitpos", "k", ms(int64(bit)), ms(start), ms(end), unit); got != num(pos[bit]) {
				t.Fatalf("bitpos %d %d %d %s over %d bits: %q, want %d", bit, start, end, unit, n, got, pos[bit])
			}
		}
	}
}

func TestBitfieldOverflow(t *testing.T) {
	for _, tc := range []struct {
		v, incr  int64
		width, o int
		want     int64
		failed   bool
	}{
		{127, 1, 8, bfWrap, -128, false},
		{127, 1, 8, bfSat, 127, false},
		{127, 1, 8, bfFail, 0, true},
		{-128, -1, 8, bfWrap, 127, false},
		{-128, -1, 8, bfSat, -128, false},
		{-1, 0, 1, bfSat, -1, false},
		{1, 0, 1, bfSat, 0, false},
		{1, 0, 1, bfWrap, -1, false},
		{math.MaxInt64, 1, 64, bfWrap, math.MinInt64, false},
		{math.MaxInt64, 1, 64, bfSat, math.MaxInt64, false},
		{math.MinInt64, -1, 64, bfSat, math.MinInt64, false},
		{math.MinInt64, math.MaxInt64, 64, bfFail, -1, false},
		{300, 0, 8, bfWrap, 44, false},
	} {
		got, failed := signedOverflow(tc.v, tc.incr, tc.width, tc.o)
		if got != tc.want || failed != tc.failed {
			t.Errorf("signed %d%+d i%d overflow %d: %d %v, want %d %v", tc.v, tc.incr, tc.width, tc.o, got, failed, tc.want, tc.failed)
		}
	}
	for _, tc := range []struct {
		v        uint64
		incr     int64
		width, o int
		want     uint64
		failed   bool
	}{
		{255, 1, 8, bfWrap, 0, false},
		{255, 1, 8, bfSat, 255, false},
		{0, -1, 8, bfWrap, 255, false},
		{0, -1, 8, bfSat, 0, false},
		{0, -1, 8, bfFail, 0, true},
		{math.MaxUint64, 0, 8, bfWrap, 255, false}, // SET u8 -1
		{math.MaxUint64, 0, 63, bfSat, math.MaxInt64, false},
		{1 << 62, math.MaxInt64, 63, bfWrap, 1<<62 - 1, false},
	} {
		got, failed := unsignedOverflow(tc.v, tc.incr, tc.width, tc.o)
		if got != tc.want || failed != tc.failed {
			t.Errorf("unsigned %d%+d u%d overflow %d: %d %v, want %d %v", tc.v, tc.incr, tc.width, tc.o, got, failed, tc.want, tc.failed)
		}
	}
}

// TestBitPosLong looks for a bit past many whole words, from each start
// within a word.
func TestBitPosLong(t *testing.T) {
	c := newTestCtx()
	ones := make([]byte, 1000)
	for i := range ones {
		ones[i] = 0xff
	}
	ones[700] = 0xfd
	do(c, "set", "ones", string(ones))
	do(c, "set", "zeros", string(make([]byte, 1000)))
	do(c, "setbit", "zeros", "5606", "1")
	for start := int64(0); start < 70; start++ {
		if got := do(c, "bitpos", "ones", "0", ms(start), "-1", "bit"); got != num(5606) {
			t.Fatalf("bitpos ones 0 %d -1 bit: %q", start, got)
		}
		if got := do(c, "bitpos", "zeros", "1", ms(start), "-1", "bit"); got != num(5606) {
			t.Fatalf("bitpos zeros 1 %d -1 bit: %q", start, got)
		}
	}
	if got := do(c, "bitpos", "zeros", "1", "5607", "-1", "bit"); got != num(-1) {
		t.Fatalf("bitpos past the only set bit: %q", got)
	}
	if got := do(c, "bitcount", "ones"); got != num(7999) {
		t.Fatalf("bitcount ones: %q", got)
	}
}

// TestBitEvents: the keyspace events of the bitmap commands, as
// redis-server 7.0.15 publishes them: setbit only when a bit or the
// length changed, set or del for BITOP's destination.
func TestBitEvents(t *testing.T) {
	c := newTestCtx()
	events := &NotifyConfig{}
	events.Classes.Store(NotifyKeyevent | NotifyAll | NotifyKeyMiss)
	hub := &hubLog{}
	c.Shard.Events, c.Shard.Hub = events, hub
	for _, tt := range []struct {
		cmd, msgs string
	}{
		{"setbit k 0 0", "setbit=k"}, // created
		{"setbit k 0 0", ""},
		{"setbit k 0 1", "setbit=k"},
		{"setbit k 20 0", "setbit=k"}, // grown
		{"getbit k 0", ""},
		{"getbit nokey 0", "keymiss=nokey"},
		{"bitcount k", ""},
		{"bitpos k 1", ""},
		{"bitfield f set i5 0 0", "setbit=f"},
		{"bitfield f set i5 0 0", ""},
		{"bitfield f incrby i5 0 1", "setbit=f"},
		{"bitfield f overflow fail incrby u2 100 10", ""},
		{"bitfield f get u8 0", ""},
		{"bitfield_ro nokey get u8 0", "keymiss=nokey"},
		{"bitop or d k f", "set=d"},
		{"bitop and d nokey", "keymiss=nokey|del=d"},
		{"bitop and d nokey", "keymiss=nokey"},
	} {
		hub.msgs = nil
		do(c, strings.Fields(tt.cmd)...)
		var got []string
		for _, m := range hub.msgs {
			got = append(got, strings.TrimPrefix(m, "__keyevent@0__:"))
		}
		if strings.Join(got, "|") != tt.msgs {
			t.Errorf("%s published %q, want %q", tt.cmd, got, tt.msgs)
		}
	}
}

// TestBitWatch: a write that changes nothing touches no watched key.
func TestBitWatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   []string
		mod     []string
		touched bool
	}{
		{"setbit missing", nil, []string{"setbit x 0 0"}, true},
		{"setbit same", []string{"setbit x 0 1"}, []string{"setbit x 0 1"}, false},
		{"setbit same, short string", []string{"set x a"}, []string{"setbit x 1 1"}, false},
		{"setbit change", []string{"setbit x 0 1"}, []string{"setbit x 0 0"}, true},
		{"setbit grow", []string{"setbit x 0 1"}, []string{"setbit x 100 0"}, true},
		{"reads", []string{"setbit x 0 1"}, []string{"getbit x 0", "bitcount x", "bitpos x 0", "bitfield x get u8 0", "bitfield_ro x get u8 0", "bitop or y x"}, false},
		{"bitfield same", []string{"setbit x 0 1"}, []string{"bitfield x set u1 0 1"}, false},
		{"bitfield change", []string{"setbit x 0 1"}, []string{"bitfield x incrby u1 0 1"}, true},
		{"bitop", nil, []string{"setbit y 0 1", "bitop not x y"}, true},
		{"bitop empty, missing", nil, []string{"bitop and x y"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCtx()
			runWatchSteps(t, c, tc.setup)
			if r := do(c, "corekv.watch", "7", "x"); r != ok {
				t.Fatalf("corekv.watch: %q", r)
			}
			runWatchSteps(t, c, tc.mod)
			if got := watched(t, c, "7"); got != tc.touched {
				t.Fatalf("touched = %v, want %v", got, tc.touched)
			}
		})
	}
}

// TestBitNoAllocs: the bitmap commands on an existing string allocate
// nothing.
func TestBitNoAllocs(t *testing.T) {
	c := newTestCtx()
	do(c, "setbit", "k", "1000", "1")
	for _, line := range []string{
		"setbit k 7 1", "setbit k 7 0", "getbit k 7", "bitcount k", "bitcount k 1 -1 bit", "bitpos k 1 0 -1 bit",
		"bitfield k set u8 8 200 incrby i8 #2 1 overflow sat incrby u4 0 3 get i64 0", "bitfield_ro k get u8 0",
	} {
		args := strings.Fields(line)
		argv := make([][]byte, len(args))
		for i, a := range args {
			argv[i] = []byte(a)
		}
		h := handlers[args[0]]
		if n := testing.AllocsPerRun(100, func() {
			c.W.B = c.W.B[:0]
			h(c, argv)
		}); n != 0 {
			t.Errorf("%s: %.1f allocations per run", line, n)
		}
	}
}
