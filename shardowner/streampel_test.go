package shardowner

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// pelModel drives a pel with random puts, updates and deletes and checks
// it against a sorted slice after each: its size, every record by Get, the
// order Each gives from a random start, Last, and the table's keys once
// cleared.
func pelModel(t *testing.T, seed uint64, ops int, idRange uint64) {
	c := newTestCtx()
	tb := c.newStream()
	defer tb.Clear()
	p := pel{tb, 7, pelGroup, nackSize}
	model := map[streamID]uint64{}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range ops {
		id := streamID{Ms: r.Uint64N(idRange), Seq: r.Uint64N(3)}
		switch r.IntN(5) {
		case 0, 1, 2:
			rec := nack(id, int64(i), uint64(i), 1)
			isNew, err := p.Put(rec[:])
			if err != nil {
				t.Fatal(err)
			}
			if _, had := model[id]; had == isNew {
				t.Fatalf("op %d: Put(%v) new=%v, model had it: %v", i, id, isNew, had)
			}
			model[id] = uint64(i)
		case 3:
			_, had := model[id]
			if got := p.Delete(id); got != had {
				t.Fatalf("op %d: Delete(%v) = %v, want %v", i, id, got, had)
			}
			delete(model, id)
		case 4:
			if _, had := model[id]; had {
				var b [8]byte
				binary.LittleEndian.PutUint64(b[:], uint64(i)+1000)
				if err := p.Update(id, nackCount, b[:]); err != nil {
					t.Fatal(err)
				}
				model[id] = uint64(i) + 1000
			}
		}
		if p.Len() != len(model) {
			t.Fatalf("op %d: Len %d, want %d", i, p.Len(), len(model))
		}
	}
	ids := make([]streamID, 0, len(model))
	for id, n := range model {
		ids = append(ids, id)
		rec, ok := p.Get(id)
		if _, count, _ := nackOf(rec); !ok || count != n {
			t.Fatalf("Get(%v) = %v count %d, want %d", id, ok, count, n)
		}
	}
	slices.SortFunc(ids, func(a, b streamID) int { return a.Compare(b) })
	from := streamID{Ms: r.Uint64N(idRange)}
	var got []streamID
	p.Each(from, func(rec []byte) bool { got = append(got, decodeID(rec)); return true })
	at, _ := slices.BinarySearchFunc(ids, from, func(a, b streamID) int { return a.Compare(b) })
	if !slices.Equal(got, ids[at:]) {
		t.Fatalf("Each from %v: %d records, want %d", from, len(got), len(ids)-at)
	}
	if last, ok := p.Last(); ok != (len(ids) > 0) || ok && decodeID(last) != ids[len(ids)-1] {
		t.Fatalf("Last: %v", ok)
	}
	p.Clear()
	if tb.Len() != 0 || p.Len() != 0 {
		t.Fatalf("after Clear: %d keys, Len %d", tb.Len(), p.Len())
	}
}

func TestPelModel(t *testing.T) {
	for seed := range uint64(20) {
		pelModel(t, seed, 3000, 1+seed*seed*50)
	}
}

func FuzzPel(f *testing.F) {
	f.Add(uint64(1), uint16(500), uint16(40))
	f.Fuzz(func(t *testing.T, seed uint64, ops, idRange uint16) {
		pelModel(t, seed, int(ops%4000), uint64(idRange)+1)
	})
}
