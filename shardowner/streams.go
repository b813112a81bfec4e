package shardowner

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// A stream is always big: a table of its own (Value.Big) holding its
// nodes, with its index in Table.List (the layout: kvtable/streamindex.go).
// Nodes start, fill and split as Redis's listpacks do
// (stream-node-max-entries, and stream-node-max-bytes measured in listpack
// bytes), so MAXLEN ~ and MINID ~, which drop whole nodes, trim what Redis
// trims. Adding an entry appends its bytes to the last node and rewrites
// the node's counts, in place; XDEL flags the entry, and drops its node
// once no entry there is live (an exact trim by ID may leave such a node,
// as Redis's does).
const (
	streamHead = kvtable.StreamHead
	streamRec  = kvtable.StreamRec

	shLength   = kvtable.StreamLength
	shLast     = kvtable.StreamLast
	shMaxDel   = kvtable.StreamMaxDeleted
	shAdded    = kvtable.StreamAdded
	shNextNode = kvtable.StreamNextNode
	shFirstRec = kvtable.StreamFirstRec

	srFirst   = kvtable.StreamRecFirst
	srNode    = kvtable.StreamRecNode
	srLive    = kvtable.StreamRecLive
	srDeleted = kvtable.StreamRecDeleted
	srLPBytes = kvtable.StreamRecLPBytes

	// streamLPMax is the largest listpack Redis builds a node in.
	streamLPMax = 1 << 30
)

// Stream command errors, besides streamnode's ID errors.
const (
	errMaxlenNeg      resp.Error = "ERR The MAXLEN argument must be >= 0."
	errLimitNeg       resp.Error = "ERR The LIMIT argument must be >= 0."
	errTrimBoth       resp.Error = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errLimitNoTrim    resp.Error = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errLimitNoApprox  resp.Error = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errXTrimNoTrim    resp.Error = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errEntriesAddNeg  resp.Error = "ERR entries_added must be positive"
	errSetIDMaxDel    resp.Error = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	errSetIDSmaller   resp.Error = "ERR The ID specified in XSETID is smaller than the target stream top item"
	errSetIDAdded     resp.Error = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	errStreamTooLarge resp.Error = "ERR Elements are too large to be stored"
)

type streamID = streamnode.ID

// strm is a stream's table, for reading and writing it.
type strm struct {
	t  *Table
	kb *[5]byte // where node keys are built: a key given to a write escapes
}

// stream returns the stream in big table t.
func (c *Ctx) stream(t *Table) strm { return strm{t, &c.Shard.streamKey} }

// newStream returns an empty stream's table.
func (c *Ctx) newStream() *Table {
	t := c.newBig()
	t.List = make([]byte, streamHead, streamHead+streamRec)
	binary.LittleEndian.PutUint32(t.List[shFirstRec:], streamHead)
	return t
}

func getID(b []byte) streamID {
	return streamID{Ms: binary.LittleEndian.Uint64(b), Seq: binary.LittleEndian.Uint64(b[8:])}
}

func putID(b []byte, id streamID) {
	binary.LittleEndian.PutUint64(b, id.Ms)
	binary.LittleEndian.PutUint64(b[8:], id.Seq)
}

func (s strm) u64(off int) uint64        { return binary.LittleEndian.Uint64(s.t.List[off:]) }
func (s strm) setU64(off int, v uint64)  { binary.LittleEndian.PutUint64(s.t.List[off:], v) }
func (s strm) length() int               { return int(s.u64(shLength)) }
func (s strm) lastID() streamID          { return getID(s.t.List[shLast:]) }
func (s strm) maxDeleted() streamID      { return getID(s.t.List[shMaxDel:]) }
func (s strm) added() uint64             { return s.u64(shAdded) }
func (s strm) firstRec() int             { return int(binary.LittleEndian.Uint32(s.t.List[shFirstRec:])) }
func (s strm) nodes() int                { return (len(s.t.List) - s.firstRec()) / streamRec }
func (s strm) rec(i int) []byte          { o := s.firstRec() + i*streamRec; return s.t.List[o : o+streamRec] }
func (s strm) recFirst(i int) streamID   { return getID(s.rec(i)) }
func (s strm) recU32(i, off int) int     { return int(binary.LittleEndian.Uint32(s.rec(i)[off:])) }
func (s strm) setRecU32(i, off, v int)   { binary.LittleEndian.PutUint32(s.rec(i)[off:], uint32(v)) }
func (s strm) setLastID(id streamID)     { putID(s.t.List[shLast:], id) }
func (s strm) setMaxDeleted(id streamID) { putID(s.t.List[shMaxDel:], id) }

// nodeKeyOf returns the key of node id.
func nodeKeyOf(id int) [5]byte {
	k := [5]byte{'n'}
	binary.LittleEndian.PutUint32(k[1:], uint32(id))
	return k
}

// key returns the key of node id for a write, built in the shard's
// scratch.
func (s strm) key(id int) []byte {
	*s.kb = nodeKeyOf(id)
	return s.kb[:]
}

// node returns the bytes of the node of record i, valid until the next
// write to the stream.
func (s strm) node(i int) []byte {
	k := nodeKeyOf(s.recU32(i, srNode))
	v, _ := s.t.RawString(k[:])
	return v
}

// lpBytes is the size of node i as a Redis listpack.
func (s strm) lpBytes(i int) int {
	return s.recU32(i, srLPBytes) + streamnode.LPCountBytes(s.recU32(i, srLive), s.recU32(i, srDeleted))
}

// seek returns the record of the last node whose first ID is at most id,
// 0 when none is.
func (s strm) seek(id streamID) int {
	n := s.nodes()
	lo, hi := 0, n // the first record whose first ID is above id
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.recFirst(m).Compare(id) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0)
}

// firstLive returns the ID of the stream's first live entry, 0-0 when it
// has none (Redis's first_id). A node may hold no live entry: an exact
// trim by ID can flag the last live ones of a node it keeps.
func (s strm) firstLive() streamID {
	for i := range s.nodes() {
		if id, ok := streamnode.FirstLive(s.node(i)); ok {
			return id
		}
	}
	return streamID{}
}

// firstEntry returns the ID of the stream's first entry, deleted or not,
// or MaxID when it has none: what an exact trim by ID to the same result
// keeps from, as Redis propagates an approximate one.
func (s strm) firstEntry() streamID {
	if s.nodes() == 0 {
		return streamnode.MaxID
	}
	return s.recFirst(0)
}

// lastLive returns the ID of the stream's last live entry, 0-0 when it has
// none.
func (s strm) lastLive() streamID {
	for i := s.nodes() - 1; i >= 0; i-- {
		if id, ok := streamnode.LastLive(s.node(i)); ok {
			return id
		}
	}
	return streamID{}
}

// add appends the entry (id, fields, values), id above the last ID, as
// Redis's streamAppendItem does: into the last node while it has room by
// stream-node-max-entries and -bytes, else into a new one.
func (s strm) add(c *Ctx, id streamID, fields, values [][]byte) error {
	maxBytes := int(min(c.Shard.Enc.StreamNodeMaxBytes.Load(), streamLPMax))
	if maxBytes == 0 {
		maxBytes = streamLPMax
	}
	maxEntries := int(min(c.Shard.Enc.StreamNodeMaxEntries.Load(), math.MaxInt32))
	size := 0
	for i := range fields {
		size += len(fields[i]) + len(values[i])
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	if n := s.nodes(); n > 0 {
		i := n - 1
		live, deleted := s.recU32(i, srLive), s.recU32(i, srDeleted)
		if s.lpBytes(i)+size < maxBytes && (maxEntries == 0 || live+deleted < maxEntries) {
			node := s.node(i)
			master, _ := streamnode.FirstID(node)
			lp := streamnode.LPEntryBytes(master, id, streamnode.SameFields(node, fields), fields, values)
			buf.B = streamnode.EncodeEntry(buf.B[:0], node, id, fields, values)
			key := s.key(s.recU32(i, srNode))
			if _, ok, err := s.t.Append(key, buf.B, math.MaxInt); err != nil || !ok {
				return errOr(err)
			}
			counts := streamnode.CountBytes(live+1, deleted)
			if _, err := s.t.WriteAt(key, 0, counts[:]); err != nil {
				return err
			}
			s.setRecU32(i, srLive, live+1)
			s.setRecU32(i, srLPBytes, s.recU32(i, srLPBytes)+lp)
			s.added1(id)
			return nil
		}
	}
	buf.B = streamnode.Append(buf.B[:0], id, fields, values)
	nid := int(binary.LittleEndian.Uint32(s.t.List[shNextNode:]))
	if err := s.t.SetVerbatim(s.key(nid), buf.B, 0, false); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(s.t.List[shNextNode:], uint32(nid+1))
	var r [streamRec]byte
	putID(r[srFirst:], id)
	binary.LittleEndian.PutUint32(r[srNode:], uint32(nid))
	binary.LittleEndian.PutUint32(r[srLive:], 1)
	binary.LittleEndian.PutUint32(r[srLPBytes:], uint32(streamnode.LPMasterBytes(fields)+streamnode.LPEntryBytes(id, id, true, fields, values)))
	s.t.List = append(s.t.List, r[:]...)
	s.added1(id)
	return nil
}

// errOr is err, or kvtable.ErrFull for a write refused without one.
func errOr(err error) error {
	if err == nil {
		return kvtable.ErrFull
	}
	return err
}

// added1 counts an entry added with ID id.
func (s strm) added1(id streamID) {
	s.setU64(shLength, s.u64(shLength)+1)
	s.setU64(shAdded, s.u64(shAdded)+1)
	s.setLastID(id)
}

// dropNode deletes node i and its record.
func (s strm) dropNode(i int) {
	s.t.Delete(s.key(s.recU32(i, srNode)))
	first := s.firstRec()
	if i == 0 {
		first += streamRec
		ix := s.t.List
		if first-streamHead > len(ix)/2 {
			n := copy(ix[streamHead:], ix[first:])
			s.t.List, first = ix[:streamHead+n], streamHead
		}
		binary.LittleEndian.PutUint32(s.t.List[shFirstRec:], uint32(first))
		return
	}
	o := first + i*streamRec
	s.t.List = append(s.t.List[:o], s.t.List[o+streamRec:]...)
}

// rewriteNode replaces node i with b (same entries, some newly deleted),
// whose counts are live and deleted.
func (s strm) rewriteNode(i int, b []byte, live, deleted int) error {
	if err := s.t.SetVerbatim(s.key(s.recU32(i, srNode)), b, 0, false); err != nil {
		return err
	}
	s.setRecU32(i, srLive, live)
	s.setRecU32(i, srDeleted, deleted)
	return nil
}

// remove deletes the live entry id, reporting whether there was one: the
// entry is flagged, or its node dropped when it was the node's last live
// one.
func (s strm) remove(id streamID) (bool, error) {
	if s.nodes() == 0 {
		return false, nil
	}
	i := s.seek(id)
	live, deleted := s.recU32(i, srLive), s.recU32(i, srDeleted)
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	buf.B = append(buf.B[:0], s.node(i)...)
	if !streamnode.MarkDeleted(buf.B, id) {
		return false, nil
	}
	if live == 1 {
		s.dropNode(i)
	} else if err := s.rewriteNode(i, buf.B, live-1, deleted+1); err != nil {
		return false, err
	}
	s.setU64(shLength, s.u64(shLength)-1)
	return true, nil
}

// each calls fn on the live entries with IDs in [from, to], in ID order or
// reversed, until fn returns false. fn must not write to the stream.
func (s strm) each(from, to streamID, rev bool, fn func(e streamnode.Entry) bool) {
	n := s.nodes()
	if n == 0 || from.Compare(to) > 0 {
		return
	}
	if !rev {
		for i := s.seek(from); i < n && s.recFirst(i).Compare(to) <= 0; i++ {
			it := streamnode.NewIter(s.node(i))
			for e, ok := it.Next(); ok; e, ok = it.Next() {
				switch {
				case e.Deleted: // before the range test, as in Redis (see MarkDeleted)
				case e.ID.Compare(to) > 0:
					return
				case e.ID.Compare(from) >= 0 && !fn(e):
					return
				}
			}
		}
		return
	}
	for i := s.seek(to); i >= 0; i-- {
		it := streamnode.NewIter(s.node(i))
		for e, ok := it.Prev(); ok; e, ok = it.Prev() {
			switch {
			case e.Deleted:
			case e.ID.Compare(from) < 0:
				return
			case e.ID.Compare(to) <= 0 && !fn(e):
				return
			}
		}
	}
}

// streamEach calls fn on stream v's live entries in ID order until fn
// returns false.
func streamEach(v Value, fn func(e streamnode.Entry) bool) {
	strm{t: v.Big}.each(streamnode.MinID, streamnode.MaxID, false, fn)
}

// trimArgs are XADD's and XTRIM's trimming options.
type trimArgs struct {
	strategy byte // 0: none, 'M': MAXLEN, 'I': MINID
	approx   bool
	maxlen   int64
	minid    streamID
	limit    int64 // most entries an approximate trim removes; 0: no bound
	argAt    int   // the position of the threshold argument
}

// trim removes entries from the stream's head as Redis's streamTrim does:
// whole nodes while the strategy allows, then, unless approximate, the
// entries of the next node the strategy still asks for. It returns how
// many it removed.
func (s strm) trim(a *trimArgs) (int64, error) {
	var deleted int64
	for s.nodes() > 0 {
		length := int64(s.length())
		if a.strategy == 'M' && length <= a.maxlen {
			break
		}
		live := int64(s.recU32(0, srLive))
		if a.limit > 0 && deleted+live > a.limit {
			break
		}
		var whole bool
		if a.strategy == 'M' {
			whole = length-live >= a.maxlen
		} else {
			last, _ := streamnode.LastID(s.node(0))
			whole = last.Compare(a.minid) < 0
		}
		if whole {
			s.dropNode(0)
			s.setU64(shLength, uint64(length-live))
			deleted += live
			continue
		}
		if a.approx {
			break
		}
		buf := bytebufferpool.Get()
		buf.B = append(buf.B[:0], s.node(0)...)
		n := streamnode.DeleteFront(buf.B, func(id streamID, live bool) bool {
			if a.strategy == 'I' {
				return id.Compare(a.minid) < 0
			}
			if length <= a.maxlen {
				return false
			}
			if live {
				length--
			}
			return true
		})
		var err error
		if n > 0 {
			err = s.rewriteNode(0, buf.B, int(live)-n, s.recU32(0, srDeleted)+n)
			s.setU64(shLength, s.u64(shLength)-uint64(n))
			deleted += int64(n)
		}
		bytebufferpool.Put(buf)
		if err != nil {
			return deleted, err
		}
		break
	}
	return deleted, nil
}

// parseTrimArgs reads XADD's (xadd) or XTRIM's options from argv[2] on, as
// Redis's streamParseAddOrTrimArgsOrReply does, and returns the position
// of XADD's ID argument (-1 after answering an error). For XADD, nomk
// reports NOMKSTREAM.
func parseTrimArgs(c *Ctx, argv [][]byte, xadd bool, a *trimArgs) (idAt int, nomk bool) {
	limitGiven := false
	i := 2
	for ; i < len(argv); i++ {
		more := len(argv) - 1 - i
		opt := argv[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			goto done
		case (resp.EqualFold(opt, "maxlen") || resp.EqualFold(opt, "minid")) && more > 0:
			if a.strategy != 0 {
				c.W.Err(errTrimBoth)
				return -1, false
			}
			a.approx = false
			if next := argv[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				a.approx = next[0] == '~'
				i++
			}
			if resp.EqualFold(opt, "maxlen") {
				n, ok := nonNegative(c, argv[i+1], resp.ErrNotInteger, errMaxlenNeg)
				if !ok {
					return -1, false
				}
				a.strategy, a.maxlen = 'M', n
			} else {
				id, ok := streamnode.ParseStrictID(argv[i+1], 0)
				if !ok {
					c.W.Err(streamnode.ErrInvalidID)
					return -1, false
				}
				a.strategy, a.minid = 'I', id
			}
			i++
			a.argAt = i
		case resp.EqualFold(opt, "limit") && more > 0:
			n, ok := nonNegative(c, argv[i+1], resp.ErrNotInteger, errLimitNeg)
			if !ok {
				return -1, false
			}
			a.limit, limitGiven = n, true
			i++
		case xadd && resp.EqualFold(opt, "nomkstream"):
			nomk = true
		case xadd:
			// The ID, parsed here as Redis does: its error comes before
			// those of the options.
			if _, ok := streamnode.ParseAddID(opt); !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return -1, false
			}
			goto done
		default:
			c.W.Err(resp.ErrSyntax)
			return -1, false
		}
	}
done:
	if a.limit != 0 && a.strategy == 0 {
		c.W.Err(errLimitNoTrim)
		return -1, false
	}
	if !xadd && a.strategy == 0 {
		c.W.Err(errXTrimNoTrim)
		return -1, false
	}
	switch {
	case c.Obey:
		// The file says what the trim did; LIMIT bounded only its work.
		a.limit = 0
	case limitGiven && !a.approx:
		c.W.Err(errLimitNoApprox)
		return -1, false
	case !limitGiven && a.approx:
		a.limit = min(max(100*c.Shard.Enc.StreamNodeMaxEntries.Load(), 0), 1000000)
		if a.limit == 0 {
			a.limit = 10000
		}
	case !a.approx:
		a.limit = 0
	}
	return i, nomk
}

// nonNegative reads a count option's integer, answering notInt for one
// that is not an integer and neg for a negative one.
func nonNegative(c *Ctx, b []byte, notInt, neg resp.Error) (int64, bool) {
	n, ok := resp.ParseInt(b)
	switch {
	case !ok:
		c.W.Err(notInt)
	case n < 0:
		c.W.Err(neg)
	default:
		return n, true
	}
	return 0, false
}

// streamOf looks key up for a stream command: ok is false after a
// WRONGTYPE reply.
func streamOf(c *Ctx, key []byte, read bool) (s strm, found, ok bool) {
	var v Value
	if read {
		found, ok = loadReadKind(c, key, KindStream, &v)
	} else {
		found, ok = loadKind(c, key, KindStream, &v)
	}
	if found && ok {
		s = c.stream(v.Big)
	}
	return s, found, ok
}

// XAdd: XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]]
// *|id field value [field value ...].
func XAdd(c *Ctx, argv [][]byte) {
	var a trimArgs
	idAt, nomk := parseTrimArgs(c, argv, true, &a)
	if idAt < 0 {
		return
	}
	if idAt >= len(argv) {
		c.W.Err(resp.ErrWrongArgs("xadd"))
		return
	}
	arg, _ := streamnode.ParseAddID(argv[idAt]) // parsed by parseTrimArgs
	pairs := argv[idAt+1:]
	if len(pairs) < 2 || len(pairs)%2 == 1 {
		c.W.Err(resp.ErrWrongArgs("xadd"))
		return
	}
	if arg.IsZero() {
		c.W.Err(streamnode.ErrAddZero)
		return
	}
	key := argv[1]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	if !found && nomk {
		c.W.Null()
		return
	}
	last := streamID{}
	if found {
		last = s.lastID()
	}
	id, rerr := arg.Resolve(last, uint64(c.Shard.Clock.Ms))
	if rerr != "" {
		c.W.Err(rerr)
		return
	}
	size := 0
	for _, p := range pairs {
		size += len(p)
	}
	if size > streamLPMax {
		c.W.Err(errStreamTooLarge)
		return
	}
	if !found {
		s = c.stream(c.newStream())
		if !stored(c, c.Table().SetBig(key, KindStream, s.t, 0)) {
			s.t.Clear()
			return
		}
	}
	fields, values := splitPairs(c, pairs)
	err := s.add(c, id, fields, values)
	c.Table().Modified(key)
	if !stored(c, err) {
		return
	}
	idText := streamnode.AppendID(c.Shard.streamPairs.id[:0], id)
	c.W.Bulk(idText)
	c.Notify(NotifyStream, "xadd", key)
	if a.strategy != 0 {
		n, err := s.trim(&a)
		if n > 0 {
			c.Notify(NotifyStream, "xtrim", key)
		}
		if err != nil {
			c.W.Err(errFull)
		}
	}
	if c.Journaling() && (a.approx || arg.Kind != streamnode.AddExplicit) {
		propagateStreamArgs(c, s, argv, &a, idAt, idText)
	}
}

// splitPairs returns the fields and values of pairs (field, value, ...) in
// the shard's scratch.
func splitPairs(c *Ctx, pairs [][]byte) (fields, values [][]byte) {
	sc := &c.Shard.streamPairs
	sc.fields, sc.values = sc.fields[:0], sc.values[:0]
	for i := 0; i < len(pairs); i += 2 {
		sc.fields = append(sc.fields, pairs[i])
		sc.values = append(sc.values, pairs[i+1])
	}
	return sc.fields, sc.values
}

// streamPairs is a shard's scratch for the fields and values of an entry,
// and the text of its ID.
type streamPairs struct {
	fields, values [][]byte
	id             [41]byte
	after          []streamID // XREAD's IDs, one per key
	history        []bool     // XREADGROUP's: whether a key's ID reads the consumer's history
	ids            []streamID // the IDs XREADGROUP delivers
	idText         []byte     // XREAD's "$" made IDs, for a parked command's arguments
}

var (
	wordEq    = []byte("=")
	wordLimit = []byte("LIMIT")
)

// propagateStreamArgs records XADD or XTRIM (argv) as it can replay: an
// approximate trim as the exact one it came to (the length left, or the
// first entry's ID, MaxID when none is left) without its LIMIT, and XADD's ID as the one it added
// (idText, nil for XTRIM).
func propagateStreamArgs(c *Ctx, s strm, argv [][]byte, a *trimArgs, idAt int, idText []byte) {
	out := make([][]byte, 0, len(argv))
	var num [20]byte
	var idb [41]byte
	for i := 0; i < len(argv); i++ {
		switch {
		case a.approx && i == a.argAt-1 && len(argv[i]) == 1 && argv[i][0] == '~':
			out = append(out, wordEq)
		case a.approx && i == a.argAt:
			if a.strategy == 'M' {
				out = append(out, strconv.AppendInt(num[:0], int64(s.length()), 10))
			} else {
				out = append(out, streamnode.AppendID(idb[:0], s.firstEntry()))
			}
		case a.approx && resp.EqualFold(argv[i], "limit") && i+1 < len(argv) && (idText == nil || i < idAt):
			i++ // LIMIT count: an exact trim takes none
		case idText != nil && i == idAt:
			out = append(out, idText)
		default:
			out = append(out, argv[i])
		}
	}
	c.Propagate(out...)
}

// XLen: XLEN key.
func XLen(c *Ctx, argv [][]byte) {
	s, found, ok := streamOf(c, argv[1], true)
	switch {
	case !ok:
	case !found:
		c.W.Int(0)
	default:
		c.W.Int(int64(s.length()))
	}
}

// XRange: XRANGE key start end [COUNT count].
func XRange(c *Ctx, argv [][]byte) { xrange(c, argv, false) }

// XRevRange: XREVRANGE key end start [COUNT count].
func XRevRange(c *Ctx, argv [][]byte) { xrange(c, argv, true) }

func xrange(c *Ctx, argv [][]byte, rev bool) {
	start, end := argv[2], argv[3]
	if rev {
		start, end = end, start
	}
	from, to, perr := streamnode.ParseInterval(start, end)
	if perr != "" {
		c.W.Err(perr)
		return
	}
	count := int64(-1)
	for j := 4; j < len(argv); j++ {
		if !resp.EqualFold(argv[j], "count") || j+1 >= len(argv) {
			c.W.Err(resp.ErrSyntax)
			return
		}
		n, ok := resp.ParseInt(argv[j+1])
		if !ok {
			c.W.Err(resp.ErrNotInteger)
			return
		}
		count = max(n, 0)
		j++
	}
	s, found, ok := streamOf(c, argv[1], true)
	switch {
	case !ok:
		return
	case !found:
		c.W.Array(0)
		return
	case count == 0:
		c.W.NullArray()
		return
	}
	replyEntries(c, s, from, to, rev, count)
}

// replyEntries answers the live entries in [from, to] (reversed: from the
// top), at most count of them when count > 0, as an array of [ID, [field,
// value, ...]].
func replyEntries(c *Ctx, s strm, from, to streamID, rev bool, count int64) {
	mark := len(c.W.B)
	n := int64(0)
	s.each(from, to, rev, func(e streamnode.Entry) bool {
		writeEntry(c, e)
		n++
		return count <= 0 || n < count
	})
	insertArrayHeader(c.W, mark, int(n))
}

// insertArrayHeader puts the header of an array of n elements at w.B[mark],
// before the elements written after it.
func insertArrayHeader(w *resp.Writer, mark, n int) { insertHeader(w, mark, n, false) }

// insertHeader puts the header of an array, or a map (RESP3), of n
// elements at w.B[mark], before the elements written after it.
func insertHeader(w *resp.Writer, mark, n int, isMap bool) {
	var hb [24]byte
	kind := byte('*')
	if isMap {
		kind = '%'
	}
	h := append(strconv.AppendInt(append(hb[:0], kind), int64(n), 10), '\r', '\n')
	w.B = slices.Insert(w.B, mark, h...)
}

// XDel: XDEL key id [id ...]. Every ID is parsed before any is deleted.
func XDel(c *Ctx, argv [][]byte) {
	key := argv[1]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	for _, a := range argv[2:] {
		if _, ok := streamnode.ParseStrictID(a, 0); !ok {
			c.W.Err(streamnode.ErrInvalidID)
			return
		}
	}
	deleted := 0
	for _, a := range argv[2:] {
		id, _ := streamnode.ParseStrictID(a, 0)
		gone, err := s.remove(id)
		if err != nil {
			c.Table().Modified(key)
			c.W.Err(errFull)
			return
		}
		if gone {
			deleted++
			if id.Compare(s.maxDeleted()) > 0 {
				s.setMaxDeleted(id)
			}
		}
	}
	if deleted > 0 {
		c.Table().Modified(key)
		c.Notify(NotifyStream, "xdel", key)
		c.Shard.Dirty += uint64(deleted - 1)
	}
	c.W.Int(int64(deleted))
}

// XTrim: XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count].
func XTrim(c *Ctx, argv [][]byte) {
	var a trimArgs
	if at, _ := parseTrimArgs(c, argv, false, &a); at < 0 {
		return
	}
	key := argv[1]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	n, err := s.trim(&a)
	if n > 0 {
		c.Table().Modified(key)
		c.Notify(NotifyStream, "xtrim", key)
		c.Shard.Dirty += uint64(n - 1)
		if a.approx && c.Journaling() {
			propagateStreamArgs(c, s, argv, &a, len(argv), nil)
		}
	}
	if !stored(c, err) {
		return
	}
	c.W.Int(n)
}

// XSetID: XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID
// max-deleted-id].
func XSetID(c *Ctx, argv [][]byte) {
	id, ok := streamnode.ParseStrictID(argv[2], 0)
	if !ok {
		c.W.Err(streamnode.ErrInvalidID)
		return
	}
	added := int64(-1)
	var maxDel streamID
	for i := 3; i < len(argv); i += 2 {
		more := len(argv) - 1 - i
		switch {
		case resp.EqualFold(argv[i], "entriesadded") && more > 0:
			n, ok := nonNegative(c, argv[i+1], resp.ErrNotInteger, errEntriesAddNeg)
			if !ok {
				return
			}
			added = n
		case resp.EqualFold(argv[i], "maxdeletedid") && more > 0:
			if maxDel, ok = streamnode.ParseStrictID(argv[i+1], 0); !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
			if id.Compare(maxDel) < 0 {
				c.W.Err(errSetIDMaxDel)
				return
			}
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	key := argv[1]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	if !found {
		c.W.Err(resp.ErrNoSuchKey)
		return
	}
	if length := s.length(); length > 0 {
		if id.Compare(s.lastLive()) < 0 {
			c.W.Err(errSetIDSmaller)
			return
		}
		if added != -1 && int64(length) > added {
			c.W.Err(errSetIDAdded)
			return
		}
	}
	s.setLastID(id)
	if added != -1 {
		s.setU64(shAdded, uint64(added))
	}
	if maxDel != (streamID{}) {
		s.setMaxDeleted(maxDel)
	}
	c.W.OK()
	c.Notify(NotifyStream, "xsetid", key)
}

var xinfoHelp = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

// XInfo: XINFO STREAM key [FULL [COUNT count]], XINFO GROUPS key, XINFO
// CONSUMERS key group, XINFO HELP.
func XInfo(c *Ctx, argv [][]byte) {
	sub := argv[1]
	var name string
	switch {
	case resp.EqualFold(sub, "help"):
		if len(argv) != 2 {
			c.W.Err(resp.ErrWrongArgs("xinfo|help"))
			return
		}
		c.W.SimpleArray(xinfoHelp)
		return
	case resp.EqualFold(sub, "stream"):
		name = "xinfo|stream"
	case resp.EqualFold(sub, "groups"):
		name = "xinfo|groups"
	case resp.EqualFold(sub, "consumers"):
		name = "xinfo|consumers"
	default:
		c.W.Err(resp.ErrUnknownSubcommand("xinfo", sub))
		return
	}
	switch {
	case len(argv) < 3, name == "xinfo|groups" && len(argv) != 3, name == "xinfo|consumers" && len(argv) != 4:
		c.W.Err(resp.ErrWrongArgs(name))
		return
	}
	s, found, ok := streamOf(c, argv[2], true)
	switch {
	case !ok:
		return
	case !found:
		c.W.Err(resp.ErrNoSuchKey)
		return
	case name == "xinfo|groups":
		xinfoGroups(c, s)
		return
	case name == "xinfo|consumers":
		g, ok := s.group(argv[3])
		if !ok {
			c.W.Err(errNoGroupFor(argv[2], argv[3]))
			return
		}
		xinfoConsumers(c, g)
		return
	}
	full, count := false, int64(10)
	if opts := argv[3:]; len(opts) > 0 {
		if (len(opts) != 1 && len(opts) != 3) || !resp.EqualFold(opts[0], "full") ||
			(len(opts) == 3 && !resp.EqualFold(opts[1], "count")) {
			c.W.Err(resp.ErrSubcommandSyntax("xinfo", sub))
			return
		}
		full = true
		if len(opts) == 3 {
			n, ok := resp.ParseInt(opts[2])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if count = n; n < 0 {
				count = 10
			}
		}
	}
	if full {
		c.W.Map(9)
	} else {
		c.W.Map(10)
	}
	var idBuf [41]byte
	id := func(field string, v streamID) {
		c.W.BulkString(field)
		c.W.Bulk(streamnode.AppendID(idBuf[:0], v))
	}
	c.W.BulkString("length")
	c.W.Int(int64(s.length()))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(int64(s.nodes()))
	// Redis counts its radix tree's nodes; the nearest figure here is the
	// index's records and its header.
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(int64(s.nodes() + 1))
	id("last-generated-id", s.lastID())
	id("max-deleted-entry-id", s.maxDeleted())
	c.W.BulkString("entries-added")
	c.W.Int(int64(s.added()))
	id("recorded-first-entry-id", s.firstLive())
	if full {
		c.W.BulkString("entries")
		replyEntries(c, s, streamnode.MinID, streamnode.MaxID, false, count)
		c.W.BulkString("groups")
		xinfoGroupsFull(c, s, count)
		return
	}
	c.W.BulkString("groups")
	c.W.Int(int64(s.groups()))
	for _, rev := range []bool{false, true} {
		if rev {
			c.W.BulkString("last-entry")
		} else {
			c.W.BulkString("first-entry")
		}
		mark := len(c.W.B)
		replyEntries(c, s, streamnode.MinID, streamnode.MaxID, rev, 1)
		// One entry, or none: the entry itself, without the array.
		if b := c.W.B[mark:]; len(b) >= 4 && b[1] == '1' {
			c.W.B = append(c.W.B[:mark], b[4:]...)
		} else {
			c.W.B = c.W.B[:mark]
			c.W.Null()
		}
	}
}

// XREAD's errors.
const (
	errXReadUnbalanced resp.Error = "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
	errXReadGroupOpt   resp.Error = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
	errXReadNoAck      resp.Error = "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
	errXReadGT         resp.Error = "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
	errTimeoutNotInt   resp.Error = "ERR timeout is not an integer or out of range"
)

// xreadServedCount is how many entries a blocked XREAD without COUNT gets
// when served, as in Redis: a low ID must not flood the client.
const xreadServedCount = 1000

// xreadArgs are the options of XREAD and XREADGROUP.
type xreadArgs struct {
	timeout      int64 // BLOCK's, -1 without it
	count        int64 // 0: no COUNT
	at           int   // where the keys start, after STREAMS
	gname, cname []byte
	noack        bool
}

// parseXRead reads XREAD's options (XREADGROUP's with group) as Redis's
// xreadCommand does, answering an error and returning false for bad ones.
func parseXRead(c *Ctx, argv [][]byte, group bool, a *xreadArgs) bool {
	*a = xreadArgs{timeout: -1}
	for i := 1; i < len(argv) && a.at == 0; i++ {
		more, o := len(argv)-i-1, argv[i]
		switch {
		case resp.EqualFold(o, "block") && more > 0:
			if c.Scripted {
				c.W.Err(resp.Error("ERR " + string(argv[0]) + " command is not allowed with BLOCK option from scripts"))
				return false
			}
			i++
			n, ok := nonNegative(c, argv[i], errTimeoutNotInt, errTimeoutNegative)
			if !ok {
				return false
			}
			a.timeout = n
		case resp.EqualFold(o, "count") && more > 0:
			i++
			n, ok := resp.ParseInt(argv[i])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return false
			}
			a.count = max(n, 0)
		case resp.EqualFold(o, "streams") && more > 0:
			a.at = i + 1
			if (len(argv)-a.at)%2 != 0 {
				c.W.Err(errXReadUnbalanced)
				return false
			}
		case resp.EqualFold(o, "group") && more >= 2:
			if !group {
				c.W.Err(errXReadGroupOpt)
				return false
			}
			a.gname, a.cname = argv[i+1], argv[i+2]
			i += 2
		case resp.EqualFold(o, "noack"):
			if !group {
				c.W.Err(errXReadNoAck)
				return false
			}
			a.noack = true
		default:
			c.W.Err(resp.ErrSyntax)
			return false
		}
	}
	switch {
	case a.at == 0:
		c.W.Err(resp.ErrSyntax)
		return false
	case group && a.gname == nil:
		c.W.Err(errXReadGroupNoGrp)
		return false
	}
	return true
}

// XReadBlocks reports whether XREAD's arguments ask it to block (a BLOCK
// option before STREAMS), and its timeout in ms (0: for ever); the
// handler answers a malformed one.
func XReadBlocks(argv [][]byte) (ms int64, blocks bool) {
	for i := 1; i < len(argv)-1; i++ {
		switch {
		case resp.EqualFold(argv[i], "streams"):
			return 0, false
		case resp.EqualFold(argv[i], "block"):
			n, ok := resp.ParseInt(argv[i+1])
			return max(n, 0), ok && n >= 0
		case resp.EqualFold(argv[i], "count"):
			i++
		case resp.EqualFold(argv[i], "group"):
			i += 2
		}
	}
	return 0, false
}

// XRead: XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id
// [id ...]. With BLOCK, a read that finds nothing parks (Ctx.MayBlock)
// with "$" made the last ID it stood for, and is served for the key an
// XADD makes ready (Ctx.ServeKey) with that key's new entries.
func XRead(c *Ctx, argv [][]byte) {
	var a xreadArgs
	if !parseXRead(c, argv, false, &a) {
		return
	}
	timeout, count, at := a.timeout, a.count, a.at
	n := (len(argv) - at) / 2
	keys, idArgs := argv[at:at+n], argv[at+n:]
	sc := &c.Shard.streamPairs
	sc.after, sc.idText = sc.after[:0], sc.idText[:0]
	for i, key := range keys {
		var s strm
		var found, ok bool
		if c.ServeKey != nil {
			s, found = servedStream(c, key)
			ok = true
		} else if s, found, ok = streamOf(c, key, true); !ok {
			return
		}
		switch a := idArgs[i]; {
		case len(a) == 1 && a[0] == '$':
			id := streamID{}
			if found && ok {
				id = s.lastID()
			}
			sc.after = append(sc.after, id)
		case len(a) == 1 && a[0] == '>':
			c.W.Err(errXReadGT)
			return
		default:
			id, ok := streamnode.ParseStrictID(a, 0)
			if !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
			sc.after = append(sc.after, id)
		}
	}
	if c.ServeKey != nil {
		for i, key := range keys {
			if bytes.Equal(key, c.ServeKey) {
				s, found := servedStream(c, key)
				if !found || s.lastLive().Compare(sc.after[i]) <= 0 {
					break
				}
				if c.W.RESP3() {
					c.W.Map(1)
				} else {
					c.W.Array(1)
				}
				replyKeyEntries(c, key, s, sc.after[i], cmp.Or(count, xreadServedCount))
				return
			}
		}
		c.Blocked = true // not for it: it waits on
		return
	}
	mark, served := len(c.W.B), 0
	for i, key := range keys {
		s, found, _ := streamOf(c, key, true)
		if !found || s.lastLive().Compare(sc.after[i]) <= 0 {
			continue
		}
		served++
		replyKeyEntries(c, key, s, sc.after[i], count)
	}
	switch {
	case served > 0:
		insertHeader(c.W, mark, served, c.W.RESP3())
	case timeout >= 0 && c.MayBlock:
		// "$" becomes the ID it stood for, so that the served command
		// reads from there, not from the last ID then.
		for i, a := range idArgs {
			if len(a) == 1 && a[0] == '$' {
				start := len(sc.idText)
				sc.idText = streamnode.AppendID(sc.idText, sc.after[i])
				idArgs[i] = sc.idText[start:len(sc.idText):len(sc.idText)]
			}
		}
		c.Blocked = true
	default:
		c.W.NullArray()
	}
}

// servedStream looks key up for a parked read being served, answering
// nothing: found is false unless it holds a stream.
func servedStream(c *Ctx, key []byte) (s strm, found bool) {
	v, found := c.Table().Get(key)
	if !found || v.Kind != KindStream {
		return strm{}, false
	}
	return c.stream(v.Big), true
}

// replyKeyEntries answers key and its entries after id (at most count, 0:
// all): [key, entries] in RESP2, a map's key and value in RESP3.
func replyKeyEntries(c *Ctx, key []byte, s strm, after streamID, count int64) {
	if !c.W.RESP3() {
		c.W.Array(2)
	}
	c.W.Bulk(key)
	from, _ := after.Next()
	replyEntries(c, s, from, streamnode.MaxID, false, count)
}
