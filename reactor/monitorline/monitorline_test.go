package monitorline

import (
	"strconv"
	"testing"
	"time"
)

func TestAppendQuoted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"set", `"set"`},
		{"a b", `"a b"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`},
		{"\x00\x01\x1f\x7f\x80\xff", `"\x00\x01\x1f\x7f\x80\xff"`},
		{"\v\f", `"\x0b\x0c"`},
		{" ~", `" ~"`},
		{"caf\xc3\xa9", `"caf\xc3\xa9"`},
	}
	for _, tt := range tests {
		if got := string(AppendQuoted(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendQuoted(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendMonitorLine(t *testing.T) {
	now := time.Unix(1700000000, 4500)
	argv := [][]byte{[]byte("SET"), []byte("k"), []byte("v 1")}
	got := string(Append(nil, now, 3, "127.0.0.1:5000", argv))
	want := "+1700000000.000004 [3 127.0.0.1:5000] \"SET\" \"k\" \"v 1\"\r\n"
	if got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	for _, us := range []int{0, 9, 10, 99999, 100000, 999999} {
		line := string(Append(nil, time.Unix(5, int64(us)*1000), 0, "a", nil))
		want := "+5." + leftPad(strconv.Itoa(us)) + " [0 a] \r\n"
		if line != want {
			t.Errorf("%d µs: %q, want %q", us, line, want)
		}
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = Append(buf[:0], now, 0, "x:1", argv) }); n != 0 {
		t.Errorf("a line into a buffer that fits allocates %v times", n)
	}
}

func leftPad(s string) string {
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}

// unquote reads back what AppendQuoted wrote, by the escapes Redis's
// sdscatrepr uses, or reports false.
func unquote(q []byte) ([]byte, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return nil, false
	}
	q = q[1 : len(q)-1]
	var out []byte
	for i := 0; i < len(q); i++ {
		ch := q[i]
		if ch < ' ' || ch > '~' || ch == '"' {
			return nil, false
		}
		if ch != '\\' {
			out = append(out, ch)
			continue
		}
		i++
		if i == len(q) {
			return nil, false
		}
		switch q[i] {
		case '\\', '"':
			out = append(out, q[i])
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 'x':
			if i+2 >= len(q) {
				return nil, false
			}
			v, err := strconv.ParseUint(string(q[i+1:i+3]), 16, 8)
			if err != nil || string(q[i+1:i+3]) != strconv.FormatUint(v|0x100, 16)[1:] {
				return nil, false
			}
			out = append(out, byte(v))
			i += 2
		default:
			return nil, false
		}
	}
	return out, true
}

// FuzzAppendQuoted: the quoted form is printable ASCII in double quotes,
// never holds a raw quote, CR or LF (a line stays one line), and reads
// back to the original bytes.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "set", "a b", `"`, `\`, "\r\n", "\x00\xff", "\a\b\t\v\f", "\\x41"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		q := AppendQuoted([]byte("prefix"), b)
		if string(q[:6]) != "prefix" {
			t.Fatalf("%q: what was in the buffer changed", b)
		}
		back, ok := unquote(q[6:])
		if !ok {
			t.Fatalf("%q quoted as %q, which does not read back", b, q[6:])
		}
		if string(back) != string(b) {
			t.Fatalf("%q quoted as %q reads back as %q", b, q[6:], back)
		}
	})
}

func TestTime(t *testing.T) {
	line := Append(nil, time.Unix(1700000000, 42000), 0, "a:1", [][]byte{[]byte("x")})
	if got := Time(line); got != 1700000000*1e6+42 {
		t.Fatalf("Time %d", got)
	}
}
