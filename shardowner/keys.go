package shardowner

import (
	"bytes"
	"math"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/rdbfile"
)

// Errors of the generic key commands.
const (
	// errIntRange is Redis's reply to a database index that is an integer
	// but does not fit in 32 bits.
	errIntRange resp.Error = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errNoLFU    resp.Error = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. " +
		"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errNoLRU resp.Error = "ERR An LFU maxmemory policy is selected, idle time not tracked. " +
		"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// sharedIntRefcount is what OBJECT REFCOUNT reports for the small integers
// Redis keeps as shared objects (0 to 9999): INT_MAX.
const sharedIntRefcount = math.MaxInt32

// embstrLimit is the longest string Redis stores in the "embstr" encoding.
const embstrLimit = 44

// kindName is the name TYPE replies for a kind.
func kindName(k Kind) string {
	switch k {
	case KindString:
		return "string"
	case KindHash:
		return "hash"
	case KindSet:
		return "set"
	case KindList:
		return "list"
	case KindZSet:
		return "zset"
	case KindStream:
		return "stream"
	}
	return "none"
}

// detach copies the string bytes of v into a pooled buffer so that v stays
// valid across writes to the table it came from. The caller hands the buffer
// to release when done with v.
func detach(v Value) (Value, *bytebufferpool.ByteBuffer) {
	if v.IsInt || len(v.Str) == 0 {
		return v, nil
	}
	b := bytebufferpool.Get()
	b.B = append(b.B[:0], v.Str...)
	v.Str = b.B
	return v, b
}

// release gives back a buffer from detach, if there is one.
func release(b *bytebufferpool.ByteBuffer) {
	if b != nil {
		bytebufferpool.Put(b)
	}
}

// putValue stores v, with its expiry and encoding, under key in t. A big
// aggregate's table goes to t as it is: the caller hands it over (after
// Detach) or passes a copy.
func putValue(t *Table, key []byte, v Value) error {
	switch {
	case v.Big != nil:
		return t.SetBig(key, v.Kind, v.Big, v.ExpireAt)
	case v.Kind != KindString:
		return t.SetPacked(key, v.Kind, v.IntSet, v.Str, v.ExpireAt)
	case v.IsInt && v.Unshared:
		return t.SetUnsharedInt(key, v.Int, v.ExpireAt)
	case v.IsInt:
		return t.SetInt(key, v.Int, v.ExpireAt)
	case v.Verbatim:
		return t.SetVerbatim(key, v.Str, v.ExpireAt, v.Grown)
	default:
		return t.SetString(key, v.Str, v.ExpireAt)
	}
}

// Del: DEL key [key ...], and UNLINK. Replies the number of keys removed.
func Del(c *Ctx, argv [][]byte) {
	t := c.Table()
	var n int64
	for _, k := range argv[1:] {
		if t.Delete(k) {
			c.Notify(NotifyGeneric, "del", k)
			n++
		}
	}
	c.W.Int(n)
}

// Exists: EXISTS key [key ...]. A key named twice counts twice. Looking
// does not count as an access, as in Redis.
func Exists(c *Ctx, argv [][]byte) { countKeys(c, argv, true) }

// Touch: TOUCH key [key ...]: EXISTS that counts as an access.
func Touch(c *Ctx, argv [][]byte) { countKeys(c, argv, false) }

func countKeys(c *Ctx, argv [][]byte, noTouch bool) {
	t := c.Table()
	was := t.NoTouch
	t.NoTouch = noTouch || was
	var n int64
	for _, k := range argv[1:] {
		if t.Exists(k) {
			n++
		} else {
			c.Notify(NotifyKeyMiss, "keymiss", k)
		}
	}
	t.NoTouch = was
	c.W.Int(n)
}

// Type: TYPE key.
func Type(c *Ctx, argv [][]byte) {
	v, found := peek(c.Table(), argv[1])
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", argv[1])
		c.W.Simple("none")
		return
	}
	c.W.Simple(kindName(v.Kind))
}

// Rename: RENAME key newkey. Both keys are on this shard.
func Rename(c *Ctx, argv [][]byte) { rename(c, argv[1], argv[2], false) }

// RenameNX: RENAMENX key newkey.
func RenameNX(c *Ctx, argv [][]byte) { rename(c, argv[1], argv[2], true) }

// rename is RENAME (nx=false) and RENAMENX (nx=true). The value keeps its TTL.
func rename(c *Ctx, src, dst []byte, nx bool) {
	t := c.Table()
	v, found := t.Get(src)
	if !found {
		c.W.Err(resp.ErrNoSuchKey)
		return
	}
	if bytes.Equal(src, dst) {
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	}
	// Exists may reclaim an expired dst, a write: detach v first.
	v, buf := detach(v)
	defer release(buf)
	if nx && t.Exists(dst) {
		c.W.Int(0)
		return
	}
	// The source goes only once the destination is written; a big
	// aggregate's table moves to the destination.
	replaced := t.Exists(dst)
	if !stored(c, putValue(t, dst, v)) {
		return
	}
	notifyReplaced(c, c.DB, dst, replaced)
	t.Detach(src)
	c.Notify(NotifyGeneric, "rename_from", src)
	c.Notify(NotifyGeneric, "rename_to", dst)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// notifyReplaced publishes the new event of a RENAME or COPY destination
// that existed: Redis deletes it and adds the key again, where corekv
// overwrites it in place.
func notifyReplaced(c *Ctx, db int, key []byte, replaced bool) {
	if replaced {
		c.Shard.notify(db, NotifyNew, "new", key)
	}
}

// dbIndex reads a database number argument; on error it writes the reply.
func dbIndex(c *Ctx, arg []byte) (int, bool) {
	n, err := DBIndex(arg, len(c.Shard.DBs))
	if err != "" {
		c.W.Err(err)
		return 0, false
	}
	return n, true
}

// DBIndex reads a database number argument as Redis does for COPY and MOVE:
// not an integer, not a 32-bit one, and not one of the databases are three
// different errors. It returns "" when n is a database.
func DBIndex(arg []byte, databases int) (int, resp.Error) {
	n, ok := resp.ParseInt(arg)
	if !ok {
		return 0, resp.ErrNotInteger
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, errIntRange
	}
	if n < 0 || n >= int64(databases) {
		return 0, resp.ErrDBIndex
	}
	return int(n), ""
}

// Copy: COPY source destination [DB destination-db] [REPLACE]. Replies 1 when
// the value was copied, 0 when the source is missing or the destination
// exists without REPLACE.
func Copy(c *Ctx, argv [][]byte) {
	src, dst := argv[1], argv[2]
	db := c.DB
	replace := false
	for j := 3; j < len(argv); j++ {
		switch {
		case resp.EqualFold(argv[j], "replace"):
			replace = true
		case resp.EqualFold(argv[j], "db") && j+1 < len(argv):
			n, ok := dbIndex(c, argv[j+1])
			if !ok {
				return
			}
			db = n
			j++
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	if db == c.DB && bytes.Equal(src, dst) {
		c.W.Err(resp.ErrSameObject)
		return
	}
	v, found := c.Table().Get(src)
	if !found {
		c.W.Int(0)
		return
	}
	v, buf := detach(v)
	defer release(buf)
	v.Unshared = v.IsInt // a copy is a new object, never a shared integer
	to := c.Shard.DBs[db]
	if !replace && to.Exists(dst) {
		c.W.Int(0)
		return
	}
	if v.Big != nil {
		if v.Big = c.copyBig(v.Big); v.Big == nil {
			c.W.Err(errFull)
			return
		}
	}
	replaced := to.Exists(dst)
	if stored(c, putValue(to, dst, v)) {
		notifyReplaced(c, db, dst, replaced)
		c.NotifyIn(db, NotifyGeneric, "copy_to", dst)
		c.W.Int(1)
	} else if v.Big != nil {
		v.Big.Clear()
	}
}

// Move: MOVE key db. Moves the key to another database of this shard unless
// the key exists there.
func Move(c *Ctx, argv [][]byte) {
	n, ok := dbIndex(c, argv[2])
	if !ok {
		return
	}
	if n == c.DB {
		c.W.Err(resp.ErrSameObject)
		return
	}
	t, to := c.Table(), c.Shard.DBs[n]
	v, found := t.Get(argv[1])
	if !found {
		c.W.Int(0)
		return
	}
	v, buf := detach(v)
	defer release(buf)
	if to.Exists(argv[1]) {
		c.W.Int(0)
		return
	}
	if !stored(c, putValue(to, argv[1], v)) {
		return
	}
	t.Detach(argv[1])
	c.Notify(NotifyGeneric, "move_from", argv[1])
	c.NotifyIn(n, NotifyGeneric, "move_to", argv[1])
	c.W.Int(1)
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the internal encoding of the value stored at <key>.",
	"FREQ <key>",
	"    Return the access frequency counter of <key> (LFU policies only).",
	"IDLETIME <key>",
	"    Return the seconds since <key> was last read or written (LRU policies and noeviction).",
	"REFCOUNT <key>",
	"    Return the number of references to the value stored at <key>.",
	"HELP",
	"    Print this help.",
}

// Object: OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key, OBJECT HELP.
func Object(c *Ctx, argv [][]byte) {
	sub := argv[1]
	if resp.EqualFold(sub, "help") {
		if len(argv) != 2 {
			c.W.Err(resp.ErrWrongArgs("object|help"))
			return
		}
		c.W.SimpleArray(objectHelp)
		return
	}
	var name string
	switch {
	case resp.EqualFold(sub, "encoding"):
		name = "object|encoding"
	case resp.EqualFold(sub, "freq"):
		name = "object|freq"
	case resp.EqualFold(sub, "idletime"):
		name = "object|idletime"
	case resp.EqualFold(sub, "refcount"):
		name = "object|refcount"
	default:
		c.W.Err(resp.ErrUnknownSubcommand("object", sub))
		return
	}
	if len(argv) != 3 {
		c.W.Err(resp.ErrWrongArgs(name))
		return
	}
	t := c.Table()
	v, found := peek(t, argv[2])
	if !found {
		c.W.Null()
		return
	}
	switch name {
	case "object|encoding":
		c.W.BulkString(encodingOf(v))
	case "object|freq":
		if !c.Shard.access.LFU {
			c.W.Err(errNoLFU)
			return
		}
		n, _ := t.Freq(argv[2])
		c.W.Int(int64(n))
	case "object|idletime":
		if c.Shard.access.LFU {
			c.W.Err(errNoLRU)
			return
		}
		ms, _ := t.IdleMs(argv[2])
		c.W.Int(ms / 1000)
	case "object|refcount":
		c.W.Int(refcountOf(v))
	}
}

// encodingOf is the encoding OBJECT ENCODING and DEBUG OBJECT name for v:
// the one Redis 7.0 would hold it in.
func encodingOf(v Value) string {
	switch {
	case v.Kind == KindStream:
		return "stream"
	case v.Kind == KindList:
		// Redis 7.0 keeps every list in a quicklist (its listpack
		// lists came with 7.2).
		return "quicklist"
	case v.IntSet:
		return "intset"
	case v.Kind == KindZSet && v.Big != nil:
		return "skiplist"
	case v.Big != nil || v.Kind == KindSet:
		// A packed set of strings is what Redis 7.0 keeps in a
		// hashtable (its listpack sets came with 7.2).
		return "hashtable"
	case v.Kind != KindString:
		return "listpack"
	case v.IsInt:
		return "int"
	case !v.Grown && len(v.Str) <= embstrLimit:
		return "embstr"
	}
	return "raw"
}

// refcountOf is what OBJECT REFCOUNT reports for v: Redis shares the
// objects of the integers 0 to 9999.
func refcountOf(v Value) int64 {
	if v.IsInt && !v.Unshared && v.Int >= 0 && v.Int < 10000 {
		return sharedIntRefcount
	}
	return 1
}

// compressed writes s as a snapshot does under rdbcompression yes.
func compressed(dst, s []byte) []byte { return rdbfile.AppendString(dst, s, true) }

// lruClockMask keeps the 24 bits of Redis's LRU clock, in seconds.
const lruClockMask = 1<<24 - 1

// DebugObject: corekv.debugobject key, DEBUG OBJECT's part on the key's
// shard. Like Redis it looks the key up as stored, so an expired key the
// expiry has not reached yet is still there, and it touches nothing.
// "Value at" names the entry's place in the shard's arena, which stays
// while the value changes in place (INCR); serializedlength is the size of
// the value's RDB body as a snapshot writes it under rdbcompression yes.
func DebugObject(c *Ctx, argv [][]byte) {
	t := c.Table()
	v, ref, found := t.Peek(argv[1])
	if !found {
		c.W.Err(resp.ErrNoSuchKey)
		return
	}
	b := bytebufferpool.Get()
	b.B = appendObjectBody(b.B[:0], v, compressed)
	size := len(b.B)
	bytebufferpool.Put(b)
	idle, _ := t.IdleMs(argv[1])
	lru := int64(0)
	if c.Shard.access.LFU {
		// Redis shows the raw bits of its field there (minutes and
		// counter); the counter is what they say.
		freq, _ := t.Freq(argv[1])
		lru = int64(freq)
	} else {
		lru = (c.Shard.Clock.Ms/1000 - idle/1000) & lruClockMask
	}
	out := append(c.W.B, "+Value at:0x"...)
	out = strconv.AppendUint(out, uint64(ref), 16)
	out = append(out, " refcount:"...)
	out = strconv.AppendInt(out, refcountOf(v), 10)
	out = append(out, " encoding:"...)
	out = append(out, encodingOf(v)...)
	out = append(out, " serializedlength:"...)
	out = strconv.AppendInt(out, int64(size), 10)
	out = append(out, " lru:"...)
	out = strconv.AppendInt(out, lru, 10)
	out = append(out, " lru_seconds_idle:"...)
	out = strconv.AppendInt(out, idle/1000, 10)
	if v.Kind == KindList {
		out = appendListNodes(out, c, v, size)
	}
	c.W.B = append(out, '\r', '\n')
}

// appendListNodes appends the quicklist figures DEBUG OBJECT gives for a
// list: its nodes, their mean length, the node fill, and none compressed
// (list-compress-depth is not kept).
func appendListNodes(dst []byte, c *Ctx, v Value, size int) []byte {
	nodes, n := 1, listLen(v)
	if v.Big != nil {
		nodes = qlist{t: v.Big}.nodes()
	}
	dst = append(dst, " ql_nodes:"...)
	dst = strconv.AppendInt(dst, int64(nodes), 10)
	dst = append(dst, " ql_avg_node:"...)
	dst = strconv.AppendFloat(dst, float64(n)/float64(max(nodes, 1)), 'f', 2, 64)
	dst = append(dst, " ql_listpack_max:"...)
	dst = strconv.AppendInt(dst, c.Shard.Enc.ListMaxListpack.Load(), 10)
	dst = append(dst, " ql_compressed:0 ql_uncompressed_size:"...)
	dst = strconv.AppendInt(dst, int64(size), 10)
	return dst
}
