package kvtable

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestOrderRanks checks Before and Locate against sums over the directory
// as pages come, go (the first one often) and change their counts at
// random.
func TestOrderRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	o := NewOrder(NewTable(new(Clock)))
	for step := range 3000 {
		switch op := rng.IntN(4); {
		case op == 0 || len(o.Dir) == 0:
			at := rng.IntN(len(o.Dir) + 1)
			o.Dir = append(o.Dir, PageRef{})
			copy(o.Dir[at+1:], o.Dir[at:])
			o.Dir[at] = PageRef{ID: o.NewID(), N: uint32(1 + rng.IntN(128))}
			o.Changed(at)
		case op == 1 && len(o.Dir) > 1:
			at := rng.IntN(len(o.Dir))
			if rng.IntN(3) == 0 {
				at = 0 // a drain from the low end
			}
			o.Drop(at)
		default:
			i := rng.IntN(len(o.Dir))
			if o.Dir[i].N > 1 && rng.IntN(2) == 0 {
				o.Count(i, -1)
			} else {
				o.Count(i, 1)
			}
		}
		if step%4 != 0 { // several changes at a time, between reads
			continue
		}
		total := 0
		for i, p := range o.Dir {
			if got := o.Before(i); got != total {
				t.Fatalf("step %d: Before(%d) = %d, want %d", step, i, got, total)
			}
			for _, r := range []int{total, total + int(p.N) - 1} {
				if pi, idx := o.Locate(r); pi != i || idx != r-total {
					t.Fatalf("step %d: Locate(%d) = %d, %d, want %d, %d", step, r, pi, idx, i, r-total)
				}
			}
			total += int(p.N)
		}
		if pi, _ := o.Locate(total); pi != len(o.Dir) {
			t.Fatalf("step %d: Locate past the end = %d", step, pi)
		}
	}
}

// TestPageItem: a page of MaxPageBytes takes an item of exactly
// PageItemBytes, a size class that fills a block.
func TestPageItem(t *testing.T) {
	if n := entrySize(4, encRaw, MaxPageBytes, false); n != PageItemBytes {
		t.Errorf("a full page's entry takes %d bytes, want %d", n, PageItemBytes)
	}
	if c := classSize[classOf[(PageItemBytes+7)>>3]]; c != PageItemBytes {
		t.Errorf("a full page's item is %d bytes, want %d", c, PageItemBytes)
	}
	if blockBytes%PageItemBytes != 0 {
		t.Errorf("%d-byte items leave part of a block unused", PageItemBytes)
	}
}

// TestOrderPagesGiveBack: blocks that a sorted set's pages free go back to
// the kernel on its table's Ticks, and its Check counts the pages' blocks.
func TestOrderPagesGiveBack(t *testing.T) {
	tb := NewTable(&Clock{})
	o := NewOrder(tb)
	tb.Order = o
	page := make([]byte, MaxPageBytes)
	const pages = 4000 // 8 MB of pages
	for i := range pages {
		page[0] = byte(i)
		if err := o.Pages.SetVerbatim(o.Key(uint32(i)), page, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	for i := range pages - 10 {
		o.Pages.Delete(o.Key(uint32(i)))
	}
	before := tb.OffHeapBytes()
	for range 400 {
		tb.Tick()
		time.Sleep(time.Millisecond)
	}
	if after := tb.OffHeapBytes(); after >= before/2 {
		t.Fatalf("off-heap bytes %d -> %d after ticks: the pages' freed blocks stayed", before, after)
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
}
