package kvtable

import "unsafe"

// Order keeps the members of a big sorted set in score order, as byte
// pages: each page the body of a packed list of member, score pairs, its
// count left to Dir (see shardowner's zsetpages.go), stored under its
// 4-byte id in Pages, a table of its own. Dir lists the pages in order with
// their element counts and first scores; it holds no Go pointer, so
// neither it nor the pages are scanned by the garbage collector.
type Order struct {
	Pages *Table
	Dir   []PageRef
	Fen   []uint32 // a Fenwick tree over Dir's counts, 1-based: ranks in O(log pages)
	fenOK int      // Fen[1..fenOK] are up to date; the rest is rebuilt when ranks are next read
	// dropped is how many pages Drop cut off the front of Dir's
	// array, which it still holds until Dir moves.
	dropped int
	free    []uint32 // ids of deleted pages, for reuse
	next    uint32   // the next id never used
	key     [4]byte  // Key's buffer: a table may keep a key it is given
}

// Key returns the key of page id, in a buffer of o's that the next call
// reuses (so that writing a page allocates nothing).
func (o *Order) Key(id uint32) []byte {
	le.PutUint32(o.key[:], id)
	return o.key[:]
}

// PageRef is a page of an Order: its id, how many elements it holds and
// the score of its first, so that finding a score's page reads no page.
type PageRef struct {
	ID, N uint32
	Min   float64
}

// A full page fills an arena item of PageItemBytes, one of the size
// classes, which divides a 64 KiB block evenly: pages of members that come
// in order waste no bytes of their items or blocks. MaxPageBytes is the
// most a page may hold for its entry in Pages (a header, the 4-byte key
// and a 2-byte length) to fit that item.
const (
	PageItemBytes = 2048
	MaxPageBytes  = PageItemBytes - 8
)

// NewOrder returns an empty order for table t. Its pages' table reads t's
// clock and takes its off-heap blocks from t's pool, which t releases: a
// sorted set keeps one pool's spans resident ahead and warm, not two, and
// t's Tick gives back what either table frees.
func NewOrder(t *Table) *Order { return &Order{Pages: newTable(t.clock, t.pool)} }

// NewID returns an id for a new page.
func (o *Order) NewID() uint32 {
	if k := len(o.free); k > 0 {
		id := o.free[k-1]
		o.free = o.free[:k-1]
		return id
	}
	o.next++
	return o.next - 1
}

// Changed records that the pages of Dir from i on came, went or moved:
// the nodes of Fen that count them are rebuilt when ranks are next read,
// so that writes that split or drop pages (ZADD, ZREM) do not pay
// O(pages) each.
func (o *Order) Changed(i int) { o.fenOK = min(o.fenOK, i) }

// fix rebuilds the nodes of Fen past fenOK from Dir.
func (o *Order) fix() {
	n := len(o.Dir)
	if o.fenOK == n && len(o.Fen) == n+1 {
		return
	}
	if len(o.Fen) > n+1 {
		o.Fen = o.Fen[:n+1]
	}
	for len(o.Fen) < n+1 {
		o.Fen = append(o.Fen, 0)
	}
	// Node k counts Dir[k-(k&-k) .. k-1]: its own page and the nodes
	// k-1, k-2, k-4 … below it, which come first.
	for k := o.fenOK + 1; k <= n; k++ {
		sum := o.Dir[k-1].N
		for j := 1; j < k&-k; j <<= 1 {
			sum += o.Fen[k-j]
		}
		o.Fen[k] = sum
	}
	o.fenOK = n
}

// Count adds d to the count of page i, in Dir and in the nodes of Fen that
// are up to date.
func (o *Order) Count(i, d int) {
	o.Dir[i].N = uint32(int(o.Dir[i].N) + d)
	for k := i + 1; k <= o.fenOK; k += k & -k {
		o.Fen[k] = uint32(int(o.Fen[k]) + d)
	}
}

// Before returns the number of elements on the pages before page i.
func (o *Order) Before(i int) int {
	o.fix()
	s := 0
	for k := i; k > 0; k -= k & -k {
		s += int(o.Fen[k])
	}
	return s
}

// Locate returns the page holding the element of rank r and its index
// there; past the last element it returns (len(Dir), 0).
func (o *Order) Locate(r int) (page, idx int) {
	n := len(o.Dir)
	if n > 0 && r >= 0 && r < int(o.Dir[0].N) {
		// The first page's ranks need no tree: pops from the low end,
		// which drop the first page now and then, leave it stale.
		return 0, r
	}
	o.fix()
	step := 1
	for step*2 <= n {
		step *= 2
	}
	pos := 0
	for ; step > 0; step /= 2 {
		if pos+step <= n && int(o.Fen[pos+step]) <= r {
			pos += step
			r -= int(o.Fen[pos])
		}
	}
	if pos == n {
		return n, 0
	}
	return pos, r
}

// Drop removes page i from Dir. The first page goes without moving the
// others: a drain from the low end (ZPOPMIN) drops it every page's worth of
// pops. The array is copied once more than half of it lies before Dir.
func (o *Order) Drop(i int) {
	if i > 0 {
		o.Dir = append(o.Dir[:i], o.Dir[i+1:]...)
		o.Changed(i)
		return
	}
	o.Dir = o.Dir[1:]
	o.Changed(0)
	if o.dropped++; o.dropped > len(o.Dir) {
		o.Dir = append([]PageRef(nil), o.Dir...)
		o.dropped = 0
	}
}

// FreeID takes back the id of a deleted page.
func (o *Order) FreeID(id uint32) { o.free = append(o.free, id) }

func (o *Order) bytes() int {
	if o == nil {
		return 0
	}
	return o.Pages.ArenaBytes() + int(unsafe.Sizeof(Table{})) + int(unsafe.Sizeof(PageRef{}))*(o.dropped+cap(o.Dir)) + 4*cap(o.Fen) + 4*cap(o.free)
}
