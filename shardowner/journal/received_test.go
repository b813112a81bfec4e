package journal

import (
	"bytes"
	"testing"

	"github.com/corekv/corekv/resp"
)

// recordOf records argv as the running command with frame received, and
// returns what the stream got for it (after its SELECT).
func recordOf(frame []byte, argv [][]byte) []byte {
	j := New()
	j.db = 0
	j.Receive(frame)
	j.Begin(Owner{}, false, false)
	j.Record(0, argv...)
	j.End()
	return j.buf
}

// TestReceivedFrame: a command recorded as received is its request copied
// when the request is exactly its encoding, and encoded otherwise; either
// way the record is AppendCommand's.
func TestReceivedFrame(t *testing.T) {
	parse := func(s string) ([]byte, [][]byte) {
		b := []byte(s)
		argv, n, err := resp.ParseCommand(b, nil)
		if err != nil || n != len(b) {
			t.Fatalf("%q: %d of %d bytes, %v", s, n, len(b), err)
		}
		return b, argv
	}
	frame, argv := parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n")
	if !encodes(frame, argv) {
		t.Fatal("a request parsed in place is not its arguments' encoding")
	}
	empty, emptyArgv := parse("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n")
	inline, inlineArgv := parse("SET k v\r\n")
	// The parser skips the byte after a CR, as Redis's does.
	noLF, noLFArgv := parse("*2\r0$3\r000000$0\r000")
	copied := [][]byte{[]byte("SET"), []byte("k"), []byte("hello")}
	rewritten := [][]byte{argv[0], []byte("other"), argv[2]}
	for _, tc := range []struct {
		name   string
		frame  []byte
		argv   [][]byte
		copies bool
	}{
		{"as received", frame, argv, true},
		{"an empty argument", empty, emptyArgv, true},
		{"inline", inline, inlineArgv, false},
		{"a CR without its LF", noLF, noLFArgv, false},
		{"equal bytes elsewhere", frame, copied, false},
		{"an argument rewritten", frame, rewritten, false},
		{"fewer arguments", frame, argv[:2], false},
		{"a frame cut short", frame[:len(frame)-2], argv, false},
		{"no frame", nil, argv, false},
	} {
		if got := tc.frame != nil && encodes(tc.frame, tc.argv); got != tc.copies {
			t.Errorf("%s: copies %v, want %v", tc.name, got, tc.copies)
		}
		if got, want := recordOf(tc.frame, tc.argv), AppendCommand(nil, tc.argv...); !bytes.Equal(got, want) {
			t.Errorf("%s: recorded %q, want %q", tc.name, got, want)
		}
	}
	// End forgets the frame: the next command has its own.
	j := New()
	j.Receive(frame)
	j.Begin(Owner{}, false, false)
	j.End()
	if j.frame != nil {
		t.Fatal("the frame outlives its command")
	}
}

// FuzzReceivedFrame: whatever request the arguments were parsed from, and
// whatever was done to them since, a record is AppendCommand's encoding.
func FuzzReceivedFrame(f *testing.F) {
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"), uint8(0))
	f.Add([]byte("*2\r\n$3\r\nDEL\r\n$0\r\n\r\n"), uint8(1))
	f.Add([]byte("*1\r\n$04\r\nPING\r\n"), uint8(0))
	f.Add([]byte("PING a b\r\n"), uint8(2))
	f.Add([]byte("*2\r0$3\r000000$0\r000"), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, edit uint8) {
		argv, n, err := resp.ParseCommand(b, nil)
		if err != nil || n == 0 || len(argv) == 0 {
			return
		}
		frame := b[:n]
		switch i := int(edit>>2) % len(argv); edit & 3 {
		case 1:
			argv[i] = append([]byte(nil), argv[i]...)
		case 2:
			argv = argv[:i]
		case 3:
			argv[i] = argv[i][:len(argv[i])/2]
		}
		if got, want := recordOf(frame, argv), AppendCommand(nil, argv...); !bytes.Equal(got, want) {
			t.Fatalf("%q, edit %d: recorded %q, want %q", frame, edit, got, want)
		}
	})
}

// BenchmarkRecordSet records a SET of a 16-byte value as received: copied
// from its request, or encoded when no request is given.
func BenchmarkRecordSet(b *testing.B) {
	frame := []byte("*3\r\n$3\r\nSET\r\n$10\r\nkey:000042\r\n$16\r\n0123456789abcdef\r\n")
	argv, _, _ := resp.ParseCommand(frame, nil)
	for _, tc := range []struct {
		name  string
		frame []byte
	}{{"copied", frame}, {"encoded", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			j := New()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				j.Receive(tc.frame)
				j.Begin(Owner{}, false, false)
				j.Record(0, argv...)
				j.End()
				if i%1024 == 0 {
					j.buf = j.buf[:0]
				}
			}
		})
	}
}
