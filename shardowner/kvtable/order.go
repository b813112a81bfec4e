package kvtable

import "unsafe"

// Order keeps the members of a big sorted set in score order, as byte
// pages: each page a packed list of member, score pairs (see shardowner's
// zsets.go), stored under its 4-byte id in Pages, a table of its own. Dir
// lists the pages in order with their element counts; it holds no Go
// pointer, so neither it nor the pages are scanned by the garbage collector.
type Order struct {
	Pages *Table
	Dir   []PageRef
	free  []uint32 // ids of deleted pages, for reuse
	next  uint32   // the next id never used
	key   [4]byte  // Key's buffer: a table may keep a key it is given
}

// Key returns the key of page id, in a buffer of o's that the next call
// reuses (so that writing a page allocates nothing).
func (o *Order) Key(id uint32) []byte {
	le.PutUint32(o.key[:], id)
	return o.key[:]
}

// PageRef is a page of an Order: its id and how many elements it holds.
type PageRef struct {
	ID, N uint32
}

// NewOrder returns an empty order whose pages' table reads clock.
func NewOrder(clock *Clock) *Order { return &Order{Pages: NewTable(clock)} }

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

// FreeID takes back the id of a deleted page.
func (o *Order) FreeID(id uint32) { o.free = append(o.free, id) }

func (o *Order) bytes() int {
	if o == nil {
		return 0
	}
	return o.Pages.ArenaBytes() + int(unsafe.Sizeof(Table{})) + 8*cap(o.Dir) + 4*cap(o.free)
}
