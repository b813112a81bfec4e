package kvtable

import (
	"encoding/binary"
	"fmt"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// A stream is a table of its own (package shardowner keeps it) holding its
// nodes, runs of entries in streamnode's format, each under a key of 'n'
// and its 4-byte node id (its consumer groups are under other keys:
// shardowner/streamgroups.go), and in Table.List its index, one byte
// slice:
//
//	header (StreamHead bytes)
//	  [0:8]   live entries
//	  [8:24]  last ID added (ms, seq), or set by XSETID
//	  [24:40] largest ID deleted (max-deleted-entry-id)
//	  [40:48] entries ever added (entries-added)
//	  [48:52] the next node id
//	  [52:56] where the first record starts: records before it are gone
//	records (StreamRec bytes each), in ID order
//	  [0:16]  the node's first entry's ID (its master ID)
//	  [16:20] node id
//	  [20:24] live entries
//	  [24:28] deleted entries
//	  [28:32] the node's size as a Redis listpack, less its counts
//
// All integers are little-endian. Dropping the first node moves the start
// of the records instead of the records, so trimming a stream's head costs
// O(1) a node; the slack is given back once it is half the index.
const (
	StreamLength     = 0
	StreamLast       = 8
	StreamMaxDeleted = 24
	StreamAdded      = 40
	StreamNextNode   = 48
	StreamFirstRec   = 52
	StreamHead       = 56

	StreamRecFirst   = 0
	StreamRecNode    = 16
	StreamRecLive    = 20
	StreamRecDeleted = 24
	StreamRecLPBytes = 28
	StreamRec        = 32
)

// checkStream verifies the stream t: its index and nodes agree and nodes'
// first IDs rise. (Entries need not: XSETID
// may set the last ID below a deleted entry's.)
func checkStream(t *Table) error {
	ix := t.List
	if len(ix) < StreamHead {
		return fmt.Errorf("stream index missing")
	}
	first := int(binary.LittleEndian.Uint32(ix[StreamFirstRec:]))
	if first < StreamHead || first > len(ix) || (len(ix)-first)%StreamRec != 0 {
		return fmt.Errorf("stream index malformed")
	}
	recs := ix[first:]
	total := 0
	var prev streamnode.ID
	for i := 0; i < len(recs); i += StreamRec {
		r := recs[i : i+StreamRec]
		id := binary.LittleEndian.Uint32(r[StreamRecNode:])
		k := [5]byte{'n'}
		binary.LittleEndian.PutUint32(k[1:], id)
		v, ok := t.Get(k[:])
		if !ok || v.IsInt {
			return fmt.Errorf("stream node %d missing", id)
		}
		live, deleted := streamnode.Count(v.Str)
		masterID, _ := streamnode.FirstID(v.Str)
		recFirst := streamnode.ID{Ms: binary.LittleEndian.Uint64(r), Seq: binary.LittleEndian.Uint64(r[8:])}
		if live != int(binary.LittleEndian.Uint32(r[StreamRecLive:])) ||
			deleted != int(binary.LittleEndian.Uint32(r[StreamRecDeleted:])) || masterID != recFirst {
			return fmt.Errorf("stream node %d: counts %d/%d or first ID %v disagree with its record", id, live, deleted, masterID)
		}
		if i > 0 && masterID.Compare(prev) <= 0 {
			return fmt.Errorf("stream node %d: first ID %v not above the last node's %v", id, masterID, prev)
		}
		prev = masterID
		total += live
	}
	nodes := 0
	for pos := range t.WalkLen() {
		t.WalkAt(pos, func(key []byte, _ Value, _ Accessed) {
			if len(key) == 5 && key[0] == 'n' {
				nodes++
			}
		})
	}
	if total != int(binary.LittleEndian.Uint64(ix[StreamLength:])) || nodes != len(recs)/StreamRec {
		return fmt.Errorf("stream index counts %d entries in %d nodes, table has %d node keys", total, len(recs)/StreamRec, nodes)
	}
	return nil
}
