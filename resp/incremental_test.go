package resp

import (
	"strconv"
	"strings"
	"testing"
)

// feed passes in to p the way a connection receives it: the first k bytes,
// then more, each time in a new buffer (as when the reader grows or
// compacts its buffer), until a request comes out.
func feed(t *testing.T, p *Parser, in string, step int) ([]string, int) {
	t.Helper()
	var argv [][]byte
	for k := min(step, len(in)); ; k = min(k+step, len(in)) {
		buf := []byte(in[:k])
		args, n, err := p.Parse(buf, argv)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", k, len(in), err)
		}
		if n > 0 {
			return strs(args), n
		}
		if len(args) != 0 {
			t.Fatalf("incomplete request returned %d args", len(args))
		}
		if k == len(in) {
			t.Fatalf("no request from all %d bytes", len(in))
		}
		argv = args[:0]
	}
}

func TestParserPieces(t *testing.T) {
	reqs := []string{
		frame("SET", "key", "value"),
		frame("SET", "k", ""),
		frame("", "", ""),
		frame(strings.Repeat("x", 300), "y"),
		"*1\rX$3\rYfooZZ",
		`SET k "a b\x41"` + "\r\n",
		"PING\n",
	}
	for _, in := range reqs {
		want, _, err := ParseCommand([]byte(in), nil)
		if err != nil {
			t.Fatal(err)
		}
		var p Parser
		for step := 1; step <= len(in); step++ {
			got, n := feed(t, &p, in, step)
			if n != len(in) || !equalStrs(got, strs(want)) {
				t.Fatalf("%q in pieces of %d: %q, n=%d", in, step, got, n)
			}
		}
	}
}

// A request that trickles in costs the parser work in proportion to its
// size, not to its size times the number of reads: each line is searched
// once and each argument parsed once.
func TestParserWorkPerByte(t *testing.T) {
	const args = 50000
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(args+1) + "\r\n")
	for i := 0; i < args; i++ {
		b.WriteString("$1\r\na\r\n")
	}
	b.WriteString("$10\r\n0123456789\r\n")
	in := []byte(b.String())

	var p Parser
	argv := make([][]byte, 0, args+1)
	// All but the last argument arrive at once; the last one byte a read.
	k := len(in) - len("$10\r\n0123456789\r\n")
	for ; ; k++ {
		got, n, err := p.Parse(in[:k], argv)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			if n != len(in) || len(got) != args+1 || string(got[args]) != "0123456789" {
				t.Fatalf("n=%d, %d args", n, len(got))
			}
			break
		}
	}
	// Rescanning the arguments on each of the 17 reads would search over
	// 17*50000 lines.
	if p.scanned > 3*len(in) {
		t.Fatalf("searched %d bytes for a %d-byte request", p.scanned, len(in))
	}
}

// A count line or inline line that never ends is searched once, not from
// its start on each read, up to where it is rejected.
func TestParserLongLineWorkPerByte(t *testing.T) {
	for _, tc := range []struct {
		head string
		err  error
	}{
		{"*", ErrTooBigMbulkCount},
		{"*1\r\n$", ErrTooBigBulkCount},
		{"GET ", ErrTooBigInline},
	} {
		in := []byte(tc.head + strings.Repeat("1", MaxInlineLen+1))
		var p Parser
		var err error
		reads := 0
		for k := 1; err == nil; k = min(k+7, len(in)) {
			_, _, err = p.Parse(in[:k], nil)
			reads++
			if k == len(in) {
				break
			}
		}
		if err != tc.err {
			t.Fatalf("%q: err = %v, want %v", tc.head, err, tc.err)
		}
		if p.scanned > 2*len(in)+2*reads {
			t.Fatalf("%q: searched %d bytes over %d reads of a %d-byte line", tc.head, p.scanned, reads, len(in))
		}
	}
}

// A Parser is ready for the next request after one that came in pieces, and
// after Reset it parses from scratch.
func TestParserReuse(t *testing.T) {
	var p Parser
	in := frame("SET", "k", "v")
	if _, _, err := p.Parse([]byte(in[:9]), nil); err != nil {
		t.Fatal(err)
	}
	got, n := feed(t, &p, in, len(in))
	if n != len(in) || !equalStrs(got, []string{"SET", "k", "v"}) {
		t.Fatalf("%q n=%d", got, n)
	}
	got, n = feed(t, &p, frame("GET", "k"), 3)
	if !equalStrs(got, []string{"GET", "k"}) {
		t.Fatalf("%q n=%d", got, n)
	}
	if _, _, err := p.Parse([]byte(in[:9]), nil); err != nil {
		t.Fatal(err)
	}
	p.Reset()
	got, _ = feed(t, &p, frame("PING"), 100)
	if !equalStrs(got, []string{"PING"}) {
		t.Fatalf("after Reset: %q", got)
	}
}

// The argument offsets of a huge request are not kept once it is done.
func TestParserGivesBackOffsets(t *testing.T) {
	var b strings.Builder
	b.WriteString("*5000\r\n")
	for i := 0; i < 5000; i++ {
		b.WriteString("$1\r\na\r\n")
	}
	in := b.String()
	var p Parser
	if got, _ := feed(t, &p, in, len(in)/2+1); len(got) != 5000 {
		t.Fatalf("%d args", len(got))
	}
	if cap(p.args) > spansKeep {
		t.Fatalf("parser keeps room for %d offsets", cap(p.args))
	}
}

// Redis's limits for a client that must still authenticate, checked in
// Redis's order: a count beyond INT_MAX is invalid whoever sends it.
func TestParserUnauthenticated(t *testing.T) {
	tests := []struct {
		in     string
		want   error // nil: accepted so far
		authed error // for an authenticated client
	}{
		{"*10\r\n", nil, nil},
		{"*11\r\n", ErrUnauthMultibulkLen, nil},
		{"*2000000\r\n", ErrUnauthMultibulkLen, ErrInvalidMultibulkLen},
		{"*2147483648\r\n", ErrInvalidMultibulkLen, ErrInvalidMultibulkLen},
		{"*-1\r\n", nil, nil},
		{"*1\r\n$16384\r\n", nil, nil},
		{"*1\r\n$16385\r\n", ErrUnauthBulkLen, nil},
		{"*1\r\n$-1\r\n", ErrInvalidBulkLen, ErrInvalidBulkLen},
		{"*1\r\n$99999999999\r\n", ErrInvalidBulkLen, ErrInvalidBulkLen},
		{"GET " + strings.Repeat("a", 20000) + "\r\n", nil, nil},
	}
	for _, tt := range tests {
		p := Parser{Unauthenticated: true}
		if _, _, err := p.Parse([]byte(tt.in), nil); err != tt.want {
			t.Errorf("%.20q: err = %v, want %v", tt.in, err, tt.want)
		}
		p = Parser{}
		if _, _, err := p.Parse([]byte(tt.in), nil); err != tt.authed {
			t.Errorf("%.20q authenticated: err = %v, want %v", tt.in, err, tt.authed)
		}
	}
	p := Parser{Unauthenticated: true}
	if got, _ := feed(t, &p, frame("AUTH", "s3cret"), 1); !equalStrs(got, []string{"AUTH", "s3cret"}) {
		t.Fatalf("AUTH in pieces: %q", got)
	}
}

// The stateless path stays allocation-free, and so does a Parser's on
// requests that arrive whole or in pieces once its room has grown.
func TestParserNoAlloc(t *testing.T) {
	in := []byte(frame("SET", "key", "value"))
	argv := make([][]byte, 0, 8)
	var p Parser
	feed(t, &p, string(in), 5)
	allocs := testing.AllocsPerRun(100, func() {
		for k := 5; ; k += 5 {
			args, n, err := p.Parse(in[:min(k, len(in))], argv)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				argv = args[:0]
				return
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per request", allocs)
	}
}
