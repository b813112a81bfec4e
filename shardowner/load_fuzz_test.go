package shardowner

import (
	"bytes"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/corekv/corekv/shardowner/rdbfile"
)

// FuzzLoadFile loads arbitrary files (the checksum not checked, so that
// mutations reach the object decoders): never a panic, and whatever was
// stored saves again as a file that reads back with as many keys.
func FuzzLoadFile(f *testing.F) {
	seed, err := os.ReadFile("rdbfile/testdata/redis-7.0.rdb")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewShard(0, 1, 16)
		s.Clock.Ms = 1
		s.LoadFile(data, LoadOptions{SkipChecksum: true})
		n := 0
		for _, t := range s.DBs {
			n += t.Len()
		}
		sink := &captureSink{data: map[int][]byte{}}
		s.StartSnapshot(sink)
		for s.Snap != nil {
			s.SnapshotStep(time.Second)
		}
		if got := snapFile(t, sink, 16); len(got) != n {
			t.Fatalf("%d keys loaded, %d saved", n, len(got))
		}
	})
}

// BenchmarkLoadFile loads a file of 100,000 keys: strings of 100 random
// bytes, every tenth a hash of ten fields (ns/op per file; keys/s is the
// figure to compare with redis-server's load).
func BenchmarkLoadFile(b *testing.B) {
	var file bytes.Buffer
	w := rdbfile.NewWriter(&file)
	w.Header()
	w.SelectDB(0)
	r := rand.New(rand.NewSource(1))
	val := make([]byte, 100)
	var rec []byte
	const keys = 100_000
	for i := range keys {
		key := []byte("key:" + strconv.Itoa(i))
		if i%10 == 0 {
			rec = rdbfile.AppendLen(rdbfile.AppendKey(rec[:0], rdbfile.TypeHash, key, false), 10)
			for f := range 10 {
				r.Read(val[:10])
				rec = rdbfile.AppendString(rdbfile.AppendString(rec, []byte("f"+strconv.Itoa(f)), false), val[:10], false)
			}
		} else {
			r.Read(val)
			rec = rdbfile.AppendString(rdbfile.AppendKey(rec[:0], rdbfile.TypeString, key, false), val, false)
		}
		w.Raw(rec)
	}
	w.End(true)
	data := file.Bytes()
	b.ResetTimer()
	for range b.N {
		s := NewShard(0, 1, 16)
		if n, _, err := s.LoadFile(data, LoadOptions{}); err != nil || n != keys {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(keys*b.N)/b.Elapsed().Seconds(), "keys/s")
}
