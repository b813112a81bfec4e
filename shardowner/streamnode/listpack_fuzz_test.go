package streamnode_test

import (
	"math/rand/v2"
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// FuzzFromListpack decodes arbitrary bytes as a master key and listpack.
// Nothing may panic; what decodes must be the node Append builds for its
// entries and survive AppendListpack and FromListpack unchanged.
//
//	go test -run XXX -fuzz FuzzFromListpack -fuzztime 1m ./shardowner/streamnode/
func FuzzFromListpack(f *testing.F) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 16 {
		entries := listpackEntries(r, 1+r.IntN(8))
		for i := range entries {
			for j := range entries[i].values {
				entries[i].values[j] = entries[i].values[j][:min(len(entries[i].values[j]), 40)]
			}
		}
		node := buildNode(entries)
		for _, i := range r.Perm(len(entries))[:r.IntN(len(entries)+1)] {
			streamnode.MarkDeleted(node, entries[i].id)
		}
		key := streamnode.MasterKey(entries[0].id)
		f.Add(key[:], streamnode.AppendListpack(nil, node))
	}
	handKey := streamnode.MasterKey(handEntries[0].id)
	f.Add(handKey[:], handListpack)
	f.Add(masterKey(10, 20), lpOf(small(2), small(1), small(2), str("a"), str("b"), small(0),
		small(0), small(0), small(0), small(2), str("a"), small(1), str("b"), str("x"), small(8),
		small(1), small(0), small(1), small(1), str("a"), small(22), small(6),
		small(2), small(1), el("dfec02"), str("z"), str("w"), small(5)))
	f.Add(masterKey(10, 20), xsetidListpack)
	f.Fuzz(func(t *testing.T, key, lp []byte) {
		checkDecoded(t, key, lp)
	})
}
