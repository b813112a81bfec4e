package resp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestWriter(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer)
		resp2 string
		resp3 string // same as resp2 when empty
	}{
		{"OK", func(w *Writer) { w.OK() }, "+OK\r\n", ""},
		{"Simple", func(w *Writer) { w.Simple("PONG") }, "+PONG\r\n", ""},
		{"Simple empty", func(w *Writer) { w.Simple("") }, "+\r\n", ""},
		{"Err", func(w *Writer) { w.Err(ErrSyntax) }, "-ERR syntax error\r\n", ""},
		{"Err wrong type", func(w *Writer) { w.Err(ErrWrongType) },
			"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", ""},
		{"Err protocol", func(w *Writer) { w.Err(ErrInvalidBulkLen.Reply()) },
			"-ERR Protocol error: invalid bulk length\r\n", ""},
		{"Int", func(w *Writer) { w.Int(42) }, ":42\r\n", ""},
		{"Int zero", func(w *Writer) { w.Int(0) }, ":0\r\n", ""},
		{"Int min", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ""},
		{"Bulk", func(w *Writer) { w.Bulk([]byte("hello")) }, "$5\r\nhello\r\n", ""},
		{"Bulk binary", func(w *Writer) { w.Bulk([]byte("a\r\n\x00")) }, "$4\r\na\r\n\x00\r\n", ""},
		{"Bulk empty", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", ""},
		{"BulkString", func(w *Writer) { w.BulkString("hi") }, "$2\r\nhi\r\n", ""},
		{"BulkString empty", func(w *Writer) { w.BulkString("") }, "$0\r\n\r\n", ""},
		{"BulkInt", func(w *Writer) { w.BulkInt(-123) }, "$4\r\n-123\r\n", ""},
		{"BulkInt max", func(w *Writer) { w.BulkInt(math.MaxInt64) }, "$19\r\n9223372036854775807\r\n", ""},
		{"Null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"NullArray", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"Array", func(w *Writer) { w.Array(2); w.Int(1); w.BulkString("a") }, "*2\r\n:1\r\n$1\r\na\r\n", ""},
		{"Array empty", func(w *Writer) { w.Array(0) }, "*0\r\n", ""},
		{"Map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) },
			"*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"Map empty", func(w *Writer) { w.Map(0) }, "*0\r\n", "%0\r\n"},
		{"Set", func(w *Writer) { w.Set(2) }, "*2\r\n", "~2\r\n"},
		{"Push", func(w *Writer) { w.Push(3) }, "*3\r\n", ">3\r\n"},
		{"Verbatim", func(w *Writer) { w.Verbatim("txt", []byte("hi\nthere")) },
			"$8\r\nhi\nthere\r\n", "=12\r\ntxt:hi\nthere\r\n"},
		{"Verbatim empty", func(w *Writer) { w.Verbatim("mkd", nil) }, "$0\r\n\r\n", "=4\r\nmkd:\r\n"},
	}
	for _, tt := range tests {
		for _, proto := range []int{0, 2, 3} {
			t.Run(tt.name+"/"+strconv.Itoa(proto), func(t *testing.T) {
				want := tt.resp2
				if proto == 3 && tt.resp3 != "" {
					want = tt.resp3
				}
				w := Writer{B: []byte("prefix"), Proto: proto}
				tt.write(&w)
				if got := string(w.B); got != "prefix"+want {
					t.Fatalf("got %q, want %q", got, "prefix"+want)
				}
			})
		}
	}
}

func TestWriterRESP3(t *testing.T) {
	for proto, want := range map[int]bool{0: false, 2: false, 3: true} {
		if got := (&Writer{Proto: proto}).RESP3(); got != want {
			t.Errorf("Proto %d: RESP3() = %v", proto, got)
		}
	}
}

func TestWriterNoAlloc(t *testing.T) {
	w := Writer{B: make([]byte, 0, 4096), Proto: 3}
	val := []byte("0123456789abcdef")
	allocs := testing.AllocsPerRun(100, func() {
		w.B = w.B[:0]
		w.OK()
		w.Simple("PONG")
		w.Err(ErrSyntax)
		w.Int(-12345)
		w.Bulk(val)
		w.BulkString("hello")
		w.BulkInt(987654321)
		w.Null()
		w.NullArray()
		w.Array(3)
		w.Map(2)
		w.Set(1)
		w.Push(1)
		w.Verbatim("txt", val)
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per run", allocs)
	}
}

// Error texts quote client bytes; CR and LF in them must not end the reply.
func TestWriterErrNoCRLF(t *testing.T) {
	var w Writer
	w.Err(Error("ERR unknown command 'x\r\n+OK\r\nz'"))
	if got, want := string(w.B), "-ERR unknown command 'x  +OK  z'\r\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	w.B = append(w.B[:0], "+OK\r\n"...)
	w.Err(ErrInvalidBulkLen.Reply())
	if got, want := string(w.B), "+OK\r\n-ERR Protocol error: invalid bulk length\r\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// ErrUnknownCommand clips as Redis 7.0.15 does; the wants are its replies.
func TestErrUnknownCommand(t *testing.T) {
	a, b := strings.Repeat("a", 200), strings.Repeat("b", 200)
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"foo"}, "ERR unknown command 'foo', with args beginning with: "},
		{[]string{"foo", "bar"}, "ERR unknown command 'foo', with args beginning with: 'bar' "},
		{[]string{strings.Repeat("n", 200), a},
			"ERR unknown command '" + strings.Repeat("n", 128) + "', with args beginning with: '" + a[:128] + "' "},
		{[]string{"foo", a[:100], b[:100], "c"},
			"ERR unknown command 'foo', with args beginning with: '" + a[:100] + "' '" + b[:25] + "' "},
		{append([]string{"foo", a[:20]}, strings.Split(strings.Repeat(b[:20]+",", 10), ",")[:10]...),
			"ERR unknown command 'foo', with args beginning with: '" + a[:20] + "' '" + b[:20] + "' '" + b[:20] +
				"' '" + b[:20] + "' '" + b[:20] + "' '" + b[:13] + "' "},
		{[]string{"foo", a[:126], "b"}, "ERR unknown command 'foo', with args beginning with: '" + a[:126] + "' "},
		{[]string{"foo", a[:125], "b"}, "ERR unknown command 'foo', with args beginning with: '" + a[:125] + "' "},
		{[]string{"fo\x00o", "a\x00b", "\x00c", "d"}, "ERR unknown command 'fo', with args beginning with: 'a' '' 'd' "},
		{[]string{"\x00"}, "ERR unknown command '', with args beginning with: "},
	}
	for _, tt := range tests {
		argv := make([][]byte, len(tt.argv))
		for i, s := range tt.argv {
			argv[i] = []byte(s)
		}
		if got := string(ErrUnknownCommand(argv)); got != tt.want {
			t.Errorf("%.40q:\n got %q\nwant %q", tt.argv, got, tt.want)
		}
	}
}

// ErrUnknownSubcommand and ErrSubcommandSyntax clip as Redis 7.0.15 does,
// at a NUL and then at 128 bytes, wherever that falls in a character; the
// wants are its replies.
func TestErrUnknownSubcommand(t *testing.T) {
	long := strings.Repeat("x", 127) + "\u00e9yyyy"
	tests := []struct {
		cmd, sub, want string
	}{
		{"config", "foo", "ERR unknown subcommand 'foo'. Try CONFIG HELP."},
		{"Client", "Foo", "ERR unknown subcommand 'Foo'. Try CLIENT HELP."},
		{"pubsub", long, "ERR unknown subcommand '" + long[:128] + "'. Try PUBSUB HELP."},
		{"object", "a\x00b", "ERR unknown subcommand 'a'. Try OBJECT HELP."},
		{"memory", "", "ERR unknown subcommand ''. Try MEMORY HELP."},
		{"slowlog", "%s%n", "ERR unknown subcommand '%s%n'. Try SLOWLOG HELP."},
	}
	for _, tt := range tests {
		if got := string(ErrUnknownSubcommand(tt.cmd, []byte(tt.sub))); got != tt.want {
			t.Errorf("%s %.20q:\n got %q\nwant %q", tt.cmd, tt.sub, got, tt.want)
		}
	}
	if got, want := string(ErrSubcommandSyntax("debug", []byte(long+"\x00z"))),
		"ERR unknown subcommand or wrong number of arguments for '"+long[:128]+"'. Try DEBUG HELP."; got != want {
		t.Errorf("DEBUG:\n got %q\nwant %q", got, want)
	}
}

// TestWriterIntDigits checks Int's own formatting against strconv at every
// digit count, both signs and the ends of int64.
func TestWriterIntDigits(t *testing.T) {
	ns := []int64{0, 1, -1, 9, -9, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(10); p > 0 && p <= math.MaxInt64/10*10; p *= 10 {
		ns = append(ns, p-1, p, p+1, -(p - 1), -p, -(p + 1))
		if p > math.MaxInt64/10 {
			break
		}
	}
	for k := range 64 {
		u := uint64(1) << k
		ns = append(ns, int64(u-1), int64(u), int64(u+1), -int64(u-1), -int64(u+1))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		ns = append(ns, int64(rng.Uint64()>>rng.IntN(64)))
	}
	roomy := Writer{B: make([]byte, 0, 64)}
	for _, n := range ns {
		// B that must grow, and B with room to spare.
		for _, w := range []*Writer{{}, &roomy} {
			w.B = append(w.B[:0], "x"...)
			w.Int(n)
			if want := "x:" + strconv.FormatInt(n, 10) + "\r\n"; string(w.B) != want {
				t.Errorf("Int(%d) = %q, want %q", n, w.B, want)
			}
		}
	}
}
