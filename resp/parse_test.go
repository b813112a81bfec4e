package resp

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// frame builds a multibulk request the way a client library would.
func frame(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

func strs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

func equalStrs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseCommandComplete(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		n    int // bytes consumed; -1 means all of in
	}{
		{"set", frame("SET", "k", "v"), []string{"SET", "k", "v"}, -1},
		{"empty bulk", frame("SET", "k", ""), []string{"SET", "k", ""}, -1},
		{"binary bulk", frame("SET", "k", "a\r\nb\x00c"), []string{"SET", "k", "a\r\nb\x00c"}, -1},
		{"trailing data", frame("PING") + "*1\r\n$4\r\nPI", []string{"PING"}, len(frame("PING"))},
		{"zero count", "*0\r\n", nil, -1},
		{"null count", "*-1\r\n", nil, -1},
		{"negative count", "*-10\r\n", nil, -1},
		{"zero count then more", "*0\r\n*1\r\n", nil, 4},
		// Redis skips the byte after CR and the two after a bulk unread.
		{"lenient terminators", "*1\rX$3\rYfooZZ", []string{"foo"}, -1},
		{"inline", "PING\r\n", []string{"PING"}, -1},
		{"inline bare lf", "PING\n", []string{"PING"}, -1},
		{"inline args", "SET  k\tv \r\n", []string{"SET", "k", "v"}, -1},
		{"inline empty crlf", "\r\n", nil, -1},
		{"inline empty lf", "\n", nil, -1},
		{"inline blanks", " \t \r\n", nil, -1},
		{"inline vertical tab is a blank", "\va\fb\n", []string{"a\fb"}, -1},
		{"inline lone cr separates", "a\rb\n", []string{"a", "b"}, -1},
		{"inline two lines", "PING\r\nPING\r\n", []string{"PING"}, 6},
		{"double quotes", `SET k "hello world"` + "\r\n", []string{"SET", "k", "hello world"}, -1},
		{"empty quotes", `SET k ""` + "\r\n", []string{"SET", "k", ""}, -1},
		{"empty single quotes", "SET k ''\r\n", []string{"SET", "k", ""}, -1},
		{"escapes", `"a\n\r\t\b\a\\\"\q"` + "\n", []string{"a\n\r\t\b\a\\\"q"}, -1},
		{"hex escapes", `"\x41\x6a\xFF\x00"` + "\n", []string{"Aj\xff\x00"}, -1},
		{"bad hex escape", `"\x4g"` + "\n", []string{"x4g"}, -1},
		{"short hex escape", `"\x4"` + "\n", []string{"x4"}, -1},
		{"single quotes", `'it\'s \n'` + "\n", []string{`it's \n`}, -1},
		{"double inside single", `'a"b'` + "\n", []string{`a"b`}, -1},
		{"quote mid token", `ab"c d"` + "\n", []string{"abc d"}, -1},
		{"quote then tab", "\"a\"\tb\n", []string{"a", "b"}, -1},
		{"quote then cr", "\"a\"\r\r\n", []string{"a"}, -1},
		{"nul is an ordinary byte", "a\x00b c\n", []string{"a\x00b", "c"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := []byte(tt.in)
			args, n, err := ParseCommand(buf, nil)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			want := tt.n
			if want < 0 {
				want = len(tt.in)
			}
			if n != want {
				t.Fatalf("n = %d, want %d", n, want)
			}
			if got := strs(args); !equalStrs(got, tt.want) {
				t.Fatalf("args = %q, want %q", got, tt.want)
			}
		})
	}
}

// Every proper prefix of a valid request must ask for more input, never fail
// or return a short request.
func TestParseCommandPrefixes(t *testing.T) {
	frames := []string{
		frame("SET", "key", "value"),
		frame("SET", "k", ""),
		frame("A"),
		frame(strings.Repeat("x", 300)),
		"*0\r\n",
		"*-1\r\n",
		"PING\r\n",
		`SET k "a b\x41"` + "\r\n",
		"\r\n",
	}
	for _, f := range frames {
		for i := 0; i < len(f); i++ {
			args, n, err := ParseCommand([]byte(f[:i]), nil)
			if n != 0 || err != nil || len(args) != 0 {
				t.Fatalf("%q prefix %d: args=%q n=%d err=%v", f, i, strs(args), n, err)
			}
		}
		if _, n, err := ParseCommand([]byte(f), nil); n != len(f) || err != nil {
			t.Fatalf("%q: n=%d err=%v", f, n, err)
		}
	}
}

func TestParseCommandPipeline(t *testing.T) {
	reqs := [][]string{
		{"SET", "a", "1"},
		{"GET", "a"},
		{"PING"},
		{"DEL", "a", "b", "c"},
	}
	var in string
	for _, r := range reqs {
		in += frame(r...)
	}
	in += "*0\r\nECHO \"hi there\"\r\n\r\n" + frame("QUIT")
	reqs = append(reqs, nil, []string{"ECHO", "hi there"}, nil, []string{"QUIT"})

	buf := []byte(in)
	var argv [][]byte
	for i, want := range reqs {
		args, n, err := ParseCommand(buf, argv)
		if err != nil || n == 0 {
			t.Fatalf("request %d: n=%d err=%v", i, n, err)
		}
		if got := strs(args); !equalStrs(got, want) {
			t.Fatalf("request %d: %q, want %q", i, got, want)
		}
		argv = args[:0]
		buf = buf[n:]
	}
	if len(buf) != 0 {
		t.Fatalf("%d bytes left", len(buf))
	}
}

func TestParseCommandErrors(t *testing.T) {
	long := strings.Repeat("a", MaxInlineLen+1)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"non-number count", "*x\r\n", "Protocol error: invalid multibulk length"},
		{"empty count", "*\r\n", "Protocol error: invalid multibulk length"},
		{"plus count", "*+1\r\n", "Protocol error: invalid multibulk length"},
		{"count too big", "*99999999999\r\n", "Protocol error: invalid multibulk length"},
		{"count over limit", "*" + strconv.Itoa(MaxMultibulkLen+1) + "\r\n", "Protocol error: invalid multibulk length"},
		{"count over int64", "*99999999999999999999\r\n", "Protocol error: invalid multibulk length"},
		{"count lf only", "*3\n$3\r\n", "Protocol error: invalid multibulk length"},
		{"expected dollar", "*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n", "Protocol error: expected '$', got 'f'"},
		{"expected dollar raw byte", "*1\r\n\xff\r\n", "Protocol error: expected '$', got '\xff'"},
		{"cr instead of bulk", "*1\r\n\r\n", "Protocol error: expected '$', got '\r'"},
		{"negative bulk", "*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
		{"redcon crash", "*1\r\n$-2\r\n", "Protocol error: invalid bulk length"},
		{"bulk too big", "*1\r\n$99999999999\r\n", "Protocol error: invalid bulk length"},
		{"bulk over limit", "*1\r\n$" + strconv.Itoa(MaxBulkLen+1) + "\r\n", "Protocol error: invalid bulk length"},
		{"bulk not a number", "*1\r\n$blabla\r\n", "Protocol error: invalid bulk length"},
		{"bulk empty length", "*1\r\n$\r\n", "Protocol error: invalid bulk length"},
		{"too big mbulk count", "*" + long, "Protocol error: too big mbulk count string"},
		{"too big bulk count", "*1\r\n$" + long, "Protocol error: too big bulk count string"},
		{"too big bulk count after args", "*2\r\n$1\r\na\r\n" + long, "Protocol error: too big bulk count string"},
		{"too big inline", long, "Protocol error: too big inline request"},
		{"too big inline with lf", long + "\n", "Protocol error: too big inline request"},
		{"unbalanced double", `SET k "v` + "\r\n", "Protocol error: unbalanced quotes in request"},
		{"unbalanced single", "SET k 'v\r\n", "Protocol error: unbalanced quotes in request"},
		{"closing quote not last", `"foo"bar` + "\r\n", "Protocol error: unbalanced quotes in request"},
		{"closing single not last", "'foo'bar\r\n", "Protocol error: unbalanced quotes in request"},
		{"escaped closing quote", `"foo\"` + "\r\n", "Protocol error: unbalanced quotes in request"},
		{"backslash at end", `"foo\` + "\r\n", "Protocol error: unbalanced quotes in request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, n, err := ParseCommand([]byte(tt.in), nil)
			if err == nil {
				t.Fatalf("no error; args=%q n=%d", strs(args), n)
			}
			if n != 0 {
				t.Fatalf("n = %d on error", n)
			}
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("err %T is not *ProtocolError", err)
			}
			if err.Error() != tt.want {
				t.Fatalf("err = %q, want %q", err.Error(), tt.want)
			}
			if got, want := string(pe.Reply()), "ERR "+tt.want; got != want {
				t.Fatalf("Reply = %q, want %q", got, want)
			}
		})
	}
}

// Limits hold at their edges: the largest allowed values are waited for, not
// rejected, and nothing is allocated from a declared size.
func TestParseCommandLimitEdges(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"max count", "*" + strconv.Itoa(MaxMultibulkLen) + "\r\n"},
		{"max bulk", "*1\r\n$" + strconv.Itoa(MaxBulkLen) + "\r\n"},
		{"count line just under limit", "*" + strings.Repeat("1", MaxInlineLen-1)},
		{"inline just under limit", strings.Repeat("a", MaxInlineLen)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(10, func() {
				_, n, err := ParseCommand([]byte(tt.in), nil)
				if n != 0 || err != nil {
					t.Fatalf("n=%d err=%v", n, err)
				}
			})
			// []byte(tt.in) itself may allocate once.
			if allocs > 1 {
				t.Fatalf("%v allocs", allocs)
			}
		})
	}
	line := strings.Repeat("a", MaxInlineLen) + "\n"
	if args, n, err := ParseCommand([]byte(line), nil); err != nil || n != len(line) || len(args) != 1 {
		t.Fatalf("longest inline line: n=%d err=%v", n, err)
	}
}

// Arguments alias the input and cannot be appended into the next one.
func TestParseCommandAliasing(t *testing.T) {
	buf := []byte(frame("SET", "k", "v") + `SET "a\x41" b` + "\n")
	args, n, err := ParseCommand(buf, make([][]byte, 0, 8))
	if err != nil {
		t.Fatal(err)
	}
	args[1][0] = 'K'
	if !strings.Contains(string(buf), "K\r\n") {
		t.Fatal("argument is a copy, not a slice of buf")
	}
	_ = append(args[1], 'X')
	if string(args[2]) != "v" {
		t.Fatal("append to an argument overwrote the next one")
	}
	args, _, err = ParseCommand(buf[n:], args[:0])
	if err != nil {
		t.Fatal(err)
	}
	if got := strs(args); !equalStrs(got, []string{"SET", "aA", "b"}) {
		t.Fatalf("args = %q", got)
	}
	args[1][0] = 'Z'
	if !strings.Contains(string(buf), `SET Z`) {
		t.Fatal("decoded argument is not in place")
	}
}

func TestParseCommandNoAlloc(t *testing.T) {
	in := []byte(frame("SET", "key", "value") + `SET "k\tq" 'v'` + "\n")
	inline := append([]byte(nil), in...)
	argv := make([][]byte, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		copy(inline, in)
		b := inline
		for len(b) > 0 {
			args, n, err := ParseCommand(b, argv)
			if err != nil || n == 0 {
				t.Fatalf("n=%d err=%v", n, err)
			}
			argv = args[:0]
			b = b[n:]
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per run", allocs)
	}
}

func TestEqualFold(t *testing.T) {
	tests := []struct {
		b     string
		lower string
		want  bool
	}{
		{"EX", "ex", true},
		{"ex", "ex", true},
		{"eX", "ex", true},
		{"EXAT", "ex", false},
		{"", "", true},
		{"E", "ex", false},
		{"@", "`", false},
		{"[", "{", false},
		{"\xc9", "\xe9", false},
	}
	for _, tt := range tests {
		if got := EqualFold([]byte(tt.b), tt.lower); got != tt.want {
			t.Errorf("EqualFold(%q, %q) = %v", tt.b, tt.lower, got)
		}
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-1", -1, true},
		{"1234567890", 1234567890, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551615", 0, false},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false},
		{"123456789012345678901", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"-0", 0, false},
		{"+1", 0, false},
		{"01", 0, false},
		{"00", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1a", 0, false},
		{"1.0", 0, false},
		{"--1", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseFloat(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-1.5", -1.5, true},
		{"+1.5", 1.5, true},
		{"1e3", 1000, true},
		{"1E+3", 1000, true},
		{"2.5e-3", 0.0025, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"007", 7, true},
		{"inf", math.Inf(1), true},
		{"+inf", math.Inf(1), true},
		{"-inf", math.Inf(-1), true},
		{"Infinity", math.Inf(1), true},
		{"-INF", math.Inf(-1), true},
		{"0x10", 16, true},
		{"0x1.8", 1.5, true},
		{"0X1P-2", 0.25, true},
		{"-0x.8p1", -1, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"4.9e-324", 5e-324, true},
		{"0e-999999", 0, true},
		{"1e400", 0, false},
		{"-1e400", 0, false},
		{"1e-400", 0, false},
		{"0x1p99999", 0, false},
		{"", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1x", 0, false},
		{"nan", 0, false},
		{"NaN", 0, false},
		{"-nan", 0, false},
		{"inff", 0, false},
		{"infin", 0, false},
		{".", 0, false},
		{"-", 0, false},
		{"e3", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"0x", 0, false},
		{"0x1p", 0, false},
		{"0xg", 0, false},
		{"1_000", 0, false},
		{"0x_1p0", 0, false},
		{"1,5", 0, false},
		{"1\x00", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseFloat([]byte(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	b := []byte("-12.5e3")
	if allocs := testing.AllocsPerRun(100, func() { ParseFloat(b) }); allocs != 0 {
		t.Errorf("ParseFloat allocates: %v", allocs)
	}
	bad := []byte("12.5x")
	if allocs := testing.AllocsPerRun(100, func() { ParseFloat(bad) }); allocs != 0 {
		t.Errorf("ParseFloat allocates on a syntax error: %v", allocs)
	}
}

// TestParseManyArgumentsAllocatesOnce: a request of a thousand arguments
// gets its argument vector in one allocation of its size, whole or in
// pieces, rather than a trail of doubling copies.
func TestParseManyArgumentsAllocatesOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("*1000\r\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "$4\r\n%04d\r\n", i)
	}
	req := []byte(b.String())
	var args [][]byte
	allocs := testing.AllocsPerRun(20, func() {
		var n int
		var err error
		args, n, err = ParseCommand(req, nil)
		if n != len(req) || err != nil || len(args) != 1000 {
			t.Fatalf("n=%d err=%v args=%d", n, err, len(args))
		}
	})
	if allocs > 1 || cap(args) != 1000 {
		t.Errorf("whole: %v allocs, capacity %d; want 1 and 1000", allocs, cap(args))
	}
	var p Parser
	allocs = testing.AllocsPerRun(20, func() {
		p.Reset()
		p.args = nil
		if _, n, _ := p.Parse(req[:len(req)/2], nil); n != 0 {
			t.Fatalf("half a request parsed: n=%d", n)
		}
		var n int
		args, n, _ = p.Parse(req, nil)
		if n != len(req) || len(args) != 1000 {
			t.Fatalf("n=%d args=%d", n, len(args))
		}
	})
	// The half's vector, room for the offsets of each half, the whole's vector.
	if allocs > 4 || cap(args) != 1000 {
		t.Errorf("in pieces: %v allocs, capacity %d; want at most 4 and 1000", allocs, cap(args))
	}
}
