package shardowner

import (
	"os"
	"testing"
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
		s.StartSnapshot(sink, true)
		for s.Snap != nil {
			s.SnapshotStep()
		}
		if got := snapFile(t, sink, 16); len(got) != n {
			t.Fatalf("%d keys loaded, %d saved", n, len(got))
		}
	})
}
