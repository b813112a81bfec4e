package resp

import (
	"fmt"
	"testing"
)

func BenchmarkParsePipeline64(b *testing.B) {
	var buf []byte
	for i := 0; i < 64; i++ {
		buf = fmt.Appendf(buf, "*3\r\n$3\r\nSET\r\n$10\r\nkey:%06d\r\n$16\r\n%016d\r\n", i, i)
	}
	argv := make([][]byte, 0, 8)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rest := buf
		for len(rest) > 0 {
			args, n, err := ParseCommand(rest, argv)
			if err != nil || n == 0 || len(args) != 3 {
				b.Fatalf("n=%d err=%v args=%d", n, err, len(args))
			}
			argv = args[:0]
			rest = rest[n:]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/64, "ns/cmd")
}

// BenchmarkParserPipeline64 is BenchmarkParsePipeline64 through a Parser,
// as a connection parses.
func BenchmarkParserPipeline64(b *testing.B) {
	var buf []byte
	for i := 0; i < 64; i++ {
		buf = fmt.Appendf(buf, "*3\r\n$3\r\nSET\r\n$10\r\nkey:%06d\r\n$16\r\n%016d\r\n", i, i)
	}
	argv := make([][]byte, 0, 8)
	var p Parser
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rest := buf
		for len(rest) > 0 {
			args, n, err := p.Parse(rest, argv)
			if err != nil || n == 0 || len(args) != 3 {
				b.Fatalf("n=%d err=%v args=%d", n, err, len(args))
			}
			argv = args[:0]
			rest = rest[n:]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/64, "ns/cmd")
}

func BenchmarkWriterBulk(b *testing.B) {
	w := Writer{B: make([]byte, 0, 256)}
	val := []byte("0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		w.B = w.B[:0]
		w.Bulk(val)
	}
}

func BenchmarkWriterInt(b *testing.B) {
	w := Writer{B: make([]byte, 0, 256)}
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		w.B = w.B[:0]
		w.Int(i)
		i += 7919
	}
}

// BenchmarkWriterIntSmall writes the small counts INCR and most counting
// replies give.
func BenchmarkWriterIntSmall(b *testing.B) {
	w := Writer{B: make([]byte, 0, 256)}
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		w.B = w.B[:0]
		w.Int(i % 512)
		i++
	}
}
