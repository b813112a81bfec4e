package rdbfile

// go test -run XXX -fuzz FuzzLZF -fuzztime 60s ./shardowner/rdbfile/

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func lzfSamples() [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog; ", 300))
	few := make([]byte, 70000) // longer than a reference reaches
	for i := range few {
		few[i] = "ab"[rng.IntN(2)]
	}
	return [][]byte{
		[]byte("a"), []byte("aaaa"), bytes.Repeat([]byte("a"), 1000), random, text, few,
		append(bytes.Repeat([]byte{0}, 300), random[:100]...),
		bytes.Repeat([]byte("0123456789abcdef"), 1000),
	}
}

func TestLZFRoundTrip(t *testing.T) {
	for _, s := range lzfSamples() {
		c, ok := Compress([]byte("pre"), s)
		if !ok {
			if bytes.Count(s, s[:1]) == len(s) && len(s) > 4 {
				t.Errorf("a run of %d bytes did not compress", len(s))
			}
			continue
		}
		if string(c[:3]) != "pre" || len(c)-3 >= len(s) {
			t.Fatalf("Compress of %d bytes gave %d", len(s), len(c)-3)
		}
		out, ok := Decompress([]byte("x"), c[3:], len(s))
		if !ok || !bytes.Equal(out[1:], s) || out[0] != 'x' {
			t.Fatalf("round trip of %d bytes failed", len(s))
		}
	}
	if _, ok := Compress(nil, []byte("abcdefgh")); ok {
		t.Errorf("incompressible bytes compressed")
	}
}

func FuzzLZF(f *testing.F) {
	for _, s := range lzfSamples() {
		f.Add(s[:min(len(s), 300)])
	}
	f.Add([]byte("\x1f\x00\xe0\xff\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, ok := Compress(nil, b); ok {
			if len(c) >= len(b) {
				t.Fatalf("compressed %d bytes into %d", len(b), len(c))
			}
			out, ok := Decompress(nil, c, len(b))
			if !ok || !bytes.Equal(out, b) {
				t.Fatalf("round trip of %q failed", b)
			}
		}
		// Garbage: any length asked for, never a panic, never more.
		for _, n := range []int{0, len(b), 4 * len(b)} {
			if out, ok := Decompress(nil, b, n); ok && len(out) != n || len(out) > n {
				t.Fatalf("Decompress(%d) gave %d bytes, ok %v", n, len(out), ok)
			}
		}
	})
}
