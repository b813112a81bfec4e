// Package kvtable is the keyspace table of one database of one shard: a hash
// table from key to entry (type, encoding, expiry, value) whose per-key memory
// holds no Go pointers, so the garbage collector never scans it.
//
// # Layout
//
// Index: a power-of-two array of buckets, each a group of eight uint64 words,
// seven slots and a link to an overflow group. A slot is the high 32 bits of
// the key's 64-bit hash over a 32-bit arena ref; a key's bucket is the low
// bits of those 32. Lookups compare the stored hash, then always the full
// key. See index.go.
//
// Arena: size-classed pages of bytes; a ref is a page number and an item
// number. An item holds the entry: a header byte, the
// expiry (only for keys with a TTL), the key and the value, which is raw
// bytes (a string, or the packed elements of a small hash or set), an 8-byte
// integer, or the position in a per-table slice of a big hash or set, itself
// a Table from element to value. See arena.go, entry.go and packed.go.
//
// Access data: a table that calls TrackAccess (a shard's database, never a
// big aggregate's own table) keeps 3 bytes per key for maxmemory eviction,
// Redis's 24-bit lru field: the LRU clock in seconds, or LFU minutes and
// counter. They sit just before each arena item in its page, so the items
// of a page are item size + 3 bytes apart and the bytes share the entry's
// cache line; large pages have them too. Reads and writes that find a key
// live update them (unless NoTouch), moves of an entry carry them, and
// SampleEvict rates random keys by them. A table that does not track
// keeps the layout above byte for byte. See access.go and evict.go.
//
// TTL wheel: the refs of keys with a TTL in buckets by expiry time slice,
// on levels of longer and longer slices; each such entry records its own
// position, so removal is a swap with its bucket's last ref. ActiveExpire
// drains the buckets whose slice has ended, so it finds every expired key
// in O(1) and looks at no live key but those the last level places again.
// See wheel.go.
//
// Memory: every piece of full size (64 KiB arena pages, index chunks,
// overflow chunks, TTL-wheel chunks) is a block the table maps itself,
// outside the Go heap (offheap.go); the heap holds only the first, smaller
// pages of each size class, entries over 8 KiB and the small bookkeeping
// arrays. So a shard with 10M keys has a Go heap of a few megabytes, and the
// cost of a GC cycle does not grow with the keyspace. Freed blocks stay warm
// for reuse; Tick, which the shard's timer runs, gives the excess back to the
// kernel a little at a time. Clear unmaps a table's blocks; so does a cleanup
// once a table is unreachable.
//
// Meter: tables given one with SetMeter (a shard's databases, and the big
// aggregates stored in them) add every change of the bytes they hold to
// it as it happens: arena items in use, index and overflow chunks,
// TTL-wheel chunks and levels, an Order's pages; Clear and the deletion of
// a big aggregate take off what they drop. It is ArenaBytes less the free
// items of partly used pages and the small bookkeeping arrays (page
// descriptors, chunk directories, the slice of big aggregates). See
// meter.go.
//
// # Invariants
//
//   - Single owner: a Table is used by one goroutine; nothing locks.
//   - Value.Str aliases arena memory and is valid until the next write
//     (Get, Exists, Scan and RandomKey never move other entries).
//   - Resizing is incremental: while ix[1] exists, every operation moves a
//     few buckets of ix[0] into it, and buckets of ix[0] below rehashIdx are
//     empty. A key, new or old, lives in ix[0] if its bucket there is at or
//     above rehashIdx, else in ix[1]. Index chunks, overflow chunks and
//     TTL-wheel chunks are allocated in bounded pieces, so no operation copies
//     or zeroes a table-sized array, and ix[1] is written in rehash order.
//   - A bucket's chain is packed (no empty slot before a full one, no empty
//     overflow group), so a lookup stops at the first empty slot.
//   - Every live arena item is referenced by exactly one slot; a free item
//     has 0 in its first byte. Wholly free pages are released, and sparse
//     size classes are compacted by moving entries out of their sparsest
//     page, paid for by later frees.
//   - Scan walks buckets in reverse-binary order, so a key present for the
//     whole scan is returned at least once across any resizes.
//
// Limits: at most 2^20 arena pages per table (64 GiB of small entries; each
// entry over 8 KiB has a page of its own) and 2^32 buckets. A write that
// needs a page past the limit returns ErrFull and changes no live key (an
// expired key under its name is gone all the same).
package kvtable
