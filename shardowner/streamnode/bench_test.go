package streamnode_test

import (
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// benchNodeEntries is Redis's default stream-node-max-entries.
const benchNodeEntries = 100

var (
	benchFields = bs("sensor", "temperature", "humidity")
	benchValues = bs("sensor-1234", "21.5", "48")
)

// appendNode fills node (reusing its memory) with benchNodeEntries entries
// from ms on.
func appendNode(node []byte, ms uint64) []byte {
	node = node[:0]
	for i := range uint64(benchNodeEntries) {
		node = streamnode.Append(node, id{ms + i/4, i % 4}, benchFields, benchValues)
	}
	return node
}

// iterNode walks every pair of every entry, returning the bytes seen.
func iterNode(node []byte) int {
	n := 0
	it := streamnode.NewIter(node)
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		for p := e.Pairs(); ; {
			f, v, ok := p.Next()
			if !ok {
				break
			}
			n += len(f) + len(v)
		}
	}
	return n
}

func TestNoAllocs(t *testing.T) {
	node := appendNode(nil, 1)
	if allocs := testing.AllocsPerRun(100, func() { node = appendNode(node, 1) }); allocs != 0 {
		t.Errorf("Append into a node with room allocates %v times per node", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { iterNode(node) }); allocs != 0 {
		t.Errorf("iterating a node allocates %v times", allocs)
	}
}

// BenchmarkAppend appends one entry per op, starting a new node in the same
// memory every benchNodeEntries entries.
func BenchmarkAppend(b *testing.B) {
	node := appendNode(nil, 0)
	b.ReportAllocs()
	b.SetBytes(int64(len(node) / benchNodeEntries))
	for i := 0; b.Loop(); i++ {
		if i%benchNodeEntries == 0 {
			node = node[:0]
		}
		node = streamnode.Append(node, id{uint64(i), 0}, benchFields, benchValues)
	}
}

// BenchmarkIterForward walks one node of benchNodeEntries entries, every
// pair of every entry, per op.
func BenchmarkIterForward(b *testing.B) {
	node := appendNode(nil, 0)
	b.ReportAllocs()
	b.SetBytes(int64(len(node)))
	for b.Loop() {
		iterNode(node)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchNodeEntries), "ns/entry")
}
