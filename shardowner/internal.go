package shardowner

import (
	"encoding/binary"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// The handlers in this file are the shard-side halves of commands whose keys
// live on two shards (RENAME, RENAMENX and COPY, and the gathering plans of
// the commands run whole on the home core: router/gather.go), and
// RANDOMKEY's part on each shard. The router sends them between shards;
// clients never call them. MOVE needs none of them: a key's shard depends
// on its name alone, the same in every database, so MOVE runs whole on the
// key's shard (Move, in keys.go).
//
//	corekv.dump key                      bulk value blob, or nil when missing
//	corekv.dumps key [key ...]           an array of the same, one per key
//	corekv.take key                      the same, and deletes the key
//	corekv.restore key blob mode [class event ...]
//	                                     :1 when written, :0 when not
//	corekv.randomkey                     [the shard's key count, a random key or nil]
//
// Restore modes, and who sends them:
//
//	replace, any       write whether or not the key exists; the two are the
//	                   same (a gathering plan writes a changed key back with
//	                   replace, and restores the values it gathered into the
//	                   scratch keyspace with any)
//	nx                 write only when the key is missing (RENAME, to put
//	                   its source back when the destination had no room)
//	rename, copy       as replace, and publish the destination's rename_to
//	                   or copy_to event (RENAME, COPY … REPLACE)
//	renamenx, copynx   as nx, with the same events (RENAMENX, COPY)
//	del, none          delete the key, or leave it as it is; the blob is
//	                   empty (a gathering plan's key that the command
//	                   deleted, or only read)
//
// The class/event pairs that may follow are keyspace notifications to
// publish for the key once written (a command's events replayed on the
// key's owner: RecordedEvent).

// Errors of the internal commands.
const (
	errBadBlob resp.Error = "ERR corrupt value blob"
)

// Layout of a value blob:
//
//	byte 0      Kind
//	byte 1      flags: bit 0 integer-encoded, bit 1 verbatim, bit 2 grown,
//	            bit 3 unshared integer; for an aggregate bit 4 intset,
//	            bit 5 big
//	bytes 2-9   ExpireAt, little endian (0: no TTL)
//	bytes 10-   the int64 (little endian) or the string bytes; for an
//	            aggregate its packed elements (kvtable.PackedBody's format,
//	            or an intset; a list's in order), which a big one keeps big
//	            when restored; for a stream its table as stored
//	            (streamblob.go)
const (
	blobHeader   = 10
	blobIsInt    = 1
	blobVerbatim = 2
	blobGrown    = 4
	blobUnshared = 8
	blobIntSet   = 16
	blobBig      = 32
)

// EncodeValue appends the blob of v to dst.
func EncodeValue(dst []byte, v Value) []byte {
	var flags byte
	if v.IsInt {
		flags |= blobIsInt
	}
	if v.Verbatim {
		flags |= blobVerbatim
	}
	if v.Grown {
		flags |= blobGrown
	}
	if v.Unshared {
		flags |= blobUnshared
	}
	if v.IntSet {
		flags |= blobIntSet
	}
	if v.Big != nil {
		flags |= blobBig
	}
	dst = append(dst, byte(v.Kind), flags)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(v.ExpireAt))
	switch {
	case v.IsInt:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Int))
	case v.Kind == KindStream:
		return appendStreamBlob(dst, v)
	case v.Big != nil && v.Kind == KindList:
		return listBlob(dst, v)
	case v.Big != nil:
		return appendBigPacked(dst, v)
	}
	return append(dst, v.Str...)
}

// appendBigPacked appends the elements of big aggregate v as a packed list.
func appendBigPacked(dst []byte, v Value) []byte {
	n := v.Big.Len()
	if v.Kind == KindZSet {
		return appendZSetBody(kvtable.AppendLen(dst, 2*n), zviewOf(v))
	}
	if v.Kind == KindHash {
		n *= 2
	}
	var tmp [20]byte
	dst = kvtable.AppendLen(dst, n)
	eachBig(v.Big, func(e []byte, val Value) bool {
		dst = kvtable.AppendElem(dst, e)
		switch {
		case v.Kind != KindHash:
		case val.IsInt:
			dst = kvtable.AppendElem(dst, strconv.AppendInt(tmp[:0], val.Int, 10))
		default:
			dst = kvtable.AppendElem(dst, val.Str)
		}
		return true
	})
	return dst
}

// DecodeValue reads a blob made by EncodeValue. The Str of the result
// aliases b; for an aggregate that was big, Str holds its packed elements
// and big is true.
func DecodeValue(b []byte) (v Value, big, ok bool) {
	if len(b) < blobHeader {
		return Value{}, false, false
	}
	v = Value{Kind: Kind(b[0]), ExpireAt: int64(binary.LittleEndian.Uint64(b[2:]))}
	if v.ExpireAt < 0 {
		return Value{}, false, false
	}
	flags := b[1]
	switch v.Kind {
	case KindString:
		if flags&^(blobIsInt|blobVerbatim|blobGrown|blobUnshared) != 0 {
			return Value{}, false, false
		}
	case KindStream:
		// Checked when rebuilt (streamFromBlob).
		v.Str = b[blobHeader:]
		return v, true, flags == blobBig
	case KindHash, KindSet, KindList, KindZSet:
		v.Str = b[blobHeader:]
		v.IntSet = flags&blobIntSet != 0
		big = flags&blobBig != 0
		switch {
		case flags&^(blobIntSet|blobBig) != 0 || (v.IntSet && (big || v.Kind != KindSet)):
			return Value{}, false, false
		case v.IntSet:
			ok = kvtable.ValidIntSet(v.Str)
		case v.Kind == KindHash:
			ok = kvtable.ValidPacked(v.Str, 2)
		case v.Kind == KindZSet:
			ok = kvtable.ValidPacked(v.Str, 2) && validZSetBody(kvtable.PackedBody(v.Str))
		default:
			ok = kvtable.ValidPacked(v.Str, 1)
		}
		return v, big, ok
	default:
		return Value{}, false, false
	}
	v.Verbatim = flags&blobVerbatim != 0
	v.Grown = flags&blobGrown != 0
	if flags&blobIsInt != 0 {
		if len(b) != blobHeader+8 {
			return Value{}, false, false
		}
		v.IsInt = true
		v.Int = int64(binary.LittleEndian.Uint64(b[blobHeader:]))
		v.Unshared = flags&blobUnshared != 0
		return v, false, true
	}
	v.Str = b[blobHeader:]
	return v, false, true
}

// InternalDump: corekv.dump key. The blob is a copy's (COPY across shards):
// an integer in it is its own object, as a copy is in Redis.
func InternalDump(c *Ctx, argv [][]byte) { dumpValue(c, argv[1], true) }

// InternalDumps: corekv.dumps key [key ...]. The values a command run
// whole on another core needs (router's gathering plans).
func InternalDumps(c *Ctx, argv [][]byte) {
	c.W.Array(len(argv) - 1)
	for _, k := range argv[1:] {
		dumpValue(c, k, true)
	}
}

// dumpValue answers the blob of key's value, or nil when it is missing.
func dumpValue(c *Ctx, key []byte, copied bool) {
	v, found := c.Table().Get(key)
	if !found {
		c.W.Null()
		return
	}
	v.Unshared = v.Unshared || (copied && v.IsInt)
	b := bytebufferpool.Get()
	b.B = EncodeValue(b.B[:0], v)
	c.W.Bulk(b.B)
	bytebufferpool.Put(b)
}

// InternalRandomKey: corekv.randomkey. RANDOMKEY's part on a shard of
// several: the count lets the router weigh the shards so that every key is
// about as likely as any other.
func InternalRandomKey(c *Ctx, argv [][]byte) {
	t := c.Table()
	key, ok := t.RandomKey()
	c.W.Array(2)
	c.W.Int(int64(t.Len()))
	if !ok {
		c.W.Null()
		return
	}
	c.W.Bulk(key)
}

// InternalTake: corekv.take key. Like corekv.dump, and deletes the key,
// whose value moves unchanged (RENAME and RENAMENX across shards: the
// source's rename_from event).
func InternalTake(c *Ctx, argv [][]byte) {
	dumpValue(c, argv[1], false)
	if c.Table().Delete(argv[1]) {
		c.Notify(NotifyGeneric, "rename_from", argv[1])
		propagateDel(c, argv[1])
	}
}

// InternalRestore: corekv.restore key blob mode [class event ...], the
// modes as listed at the top of this file. The blob's expiry is kept; a
// blob whose expiry has passed by now counts as written, touching a watch
// of the key, but leaves the key absent: an existing key is deleted (under
// the modes that write whether or not it exists; the nx modes find none).
func InternalRestore(c *Ctx, argv [][]byte) {
	key, mode, events := argv[1], argv[3], argv[4:]
	if len(events)%2 != 0 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	for i := 0; i < len(events); i += 2 {
		if len(events[i]) != 1 || notifyClassOf(events[i][0]) == 0 {
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	nx := false
	event := ""
	switch {
	case resp.EqualFold(mode, "nx"):
		nx = true
	case resp.EqualFold(mode, "del"), resp.EqualFold(mode, "none"):
		if len(mode) == len("del") && c.Table().Delete(key) {
			propagateDel(c, key)
		}
		replay(c, key, events)
		c.W.Int(1)
		return
	case resp.EqualFold(mode, "replace"), resp.EqualFold(mode, "any"):
	case resp.EqualFold(mode, "rename"), resp.EqualFold(mode, "renamenx"):
		nx, event = len(mode) > len("rename"), "rename_to"
	case resp.EqualFold(mode, "copy"), resp.EqualFold(mode, "copynx"):
		nx, event = len(mode) > len("copy"), "copy_to"
	default:
		c.W.Err(resp.ErrSyntax)
		return
	}
	v, big, ok := DecodeValue(argv[2])
	if !ok {
		c.W.Err(errBadBlob)
		return
	}
	t := c.Table()
	if nx && t.Exists(key) {
		c.W.Int(0)
		return
	}
	replaced := event != "" && t.Exists(key)
	if v.ExpireAt != 0 && v.ExpireAt <= c.Shard.Clock.Ms {
		if t.Delete(key) {
			propagateDel(c, key)
		}
		t.Modified(key)
	} else {
		if big {
			switch v.Kind {
			case KindStream:
				var ok bool
				if v.Big, ok = c.streamFromBlob(v.Str); !ok {
					c.W.Err(errBadBlob)
					return
				}
				if v.Big == nil {
					return // errFull answered
				}
			case KindList:
				v.Big = c.bigList(kvtable.PackedBody(v.Str))
			case KindZSet:
				v.Big = zsetBigFromSorted(c, kvtable.PackedBody(v.Str))
			default:
				v.Big = c.bigFromPacked(v.Str, v.Kind == KindHash)
			}
			if v.Big == nil {
				c.W.Err(errFull)
				return
			}
		}
		if !stored(c, putValue(t, key, v)) {
			if v.Big != nil {
				v.Big.Clear()
			}
			return
		}
		propagateValue(c, key)
	}
	if event != "" {
		notifyReplaced(c, c.DB, key, replaced)
		c.Notify(NotifyGeneric, event, key)
	}
	replay(c, key, events)
	c.W.Int(1)
}

// replay publishes the class/event pairs of a write-back for key.
func replay(c *Ctx, key []byte, events [][]byte) {
	for i := 0; i+1 < len(events); i += 2 {
		notifyEvent(c.Shard, c.DB, notifyClassOf(events[i][0]), events[i+1], key)
	}
}
