package shardowner

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// A stream's consumer groups live in its table beside its nodes:
//
//	"G"                   the groups: the next group number (4), then per
//	                      group, in name order, its number (4), name
//	                      length (4) and name
//	'g' group (5)         a group: last delivered ID (16), entries read (8;
//	                      -1: not known), the next consumer number (4),
//	                      then its consumers as "G" lists groups
//	'c' group consumer (9) a consumer: seen time (8), then its name
//	pel owner pelGroup    the group's pending entries: ID, delivery time
//	                      (8), delivery count (8), consumer number (4)
//	pel owner consumer    the IDs a consumer has pending (16 each)
//
// Integers are little-endian. Names are kept in byte order, the order
// Redis's radix trees list them in (XINFO, XPENDING, the RDB file).
const (
	nackTime  = 16
	nackCount = 24
	nackOwner = 32
	nackSize  = 36

	grRead  = 16
	grNextC = 24
	grHead  = 28

	// readUnknown: a group's entries-read counter that cannot be known.
	readUnknown = -1
)

var groupsKey = []byte("G")

// Consumer group errors.
const (
	errXGroupNoKey     resp.Error = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	errBusyGroup       resp.Error = "BUSYGROUP Consumer Group name already exists"
	errEntriesReadNeg  resp.Error = "ERR value for ENTRIESREAD must be positive or -1"
	errXReadGroupNoGrp resp.Error = "ERR Missing GROUP option for XREADGROUP"
	errXReadGroupDollr resp.Error = "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	errGroupGone       resp.Error = "NOGROUP the consumer group this client was blocked on no longer exists"
	errStreamGone      resp.Error = "UNBLOCKED the stream key no longer exists"
	errAutoclaimCount  resp.Error = "ERR COUNT must be > 0"
)

// cstr is b as C's "%s" prints it, as Redis's error texts show arguments:
// up to its first NUL.
func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func errNoGroup(key, group []byte) resp.Error {
	return resp.Error("NOGROUP No such key '" + cstr(key) + "' or consumer group '" + cstr(group) + "'")
}

func errNoGroupFor(key, group []byte) resp.Error {
	return resp.Error("NOGROUP No such consumer group '" + cstr(group) + "' for key name '" + cstr(key) + "'")
}

func errNoGroupRead(key, group []byte) resp.Error {
	return resp.Error("NOGROUP No such key '" + cstr(key) + "' or consumer group '" + cstr(group) + "' in XREADGROUP with GROUP option")
}

// cgroup is one consumer group of stream s.
type cgroup struct {
	s  strm
	id uint32
}

func groupKey(id uint32) [5]byte {
	k := [5]byte{'g'}
	binary.LittleEndian.PutUint32(k[1:], id)
	return k
}

func consumerKey(g, c uint32) [9]byte {
	k := [9]byte{'c'}
	binary.LittleEndian.PutUint32(k[1:], g)
	binary.LittleEndian.PutUint32(k[5:], c)
	return k
}

// dirEach calls fn on the entries of directory b (number, name, offset)
// until fn returns false.
func dirEach(b []byte, fn func(num uint32, name []byte, at int) bool) {
	for at := 0; at+8 <= len(b); {
		num := binary.LittleEndian.Uint32(b[at:])
		n := int(binary.LittleEndian.Uint32(b[at+4:]))
		if !fn(num, b[at+8:at+8+n], at) {
			return
		}
		at += 8 + n
	}
}

// dirFind returns name's entry in directory b: its number and offset, or,
// when it is not there, the offset it would go at.
func dirFind(b, name []byte) (num uint32, at int, found bool) {
	at = len(b)
	dirEach(b, func(n uint32, nm []byte, o int) bool {
		switch c := bytes.Compare(nm, name); {
		case c == 0:
			num, at, found = n, o, true
			return false
		case c > 0:
			at = o
			return false
		}
		return true
	})
	return num, at, found
}

func dirLen(b []byte) int {
	n := 0
	dirEach(b, func(uint32, []byte, int) bool { n++; return true })
	return n
}

func dirEntry(num uint32, name []byte) []byte {
	e := make([]byte, 8, 8+len(name))
	binary.LittleEndian.PutUint32(e, num)
	binary.LittleEndian.PutUint32(e[4:], uint32(len(name)))
	return append(e, name...)
}

// groupsDir returns the groups' directory entries (nil: no group).
func (s strm) groupsDir() []byte {
	b, ok := s.t.RawString(groupsKey)
	if !ok {
		return nil
	}
	return b[4:]
}

// groups returns the number of consumer groups.
func (s strm) groups() int { return dirLen(s.groupsDir()) }

// group looks up the group named name.
func (s strm) group(name []byte) (cgroup, bool) {
	num, _, ok := dirFind(s.groupsDir(), name)
	return cgroup{s, num}, ok
}

// eachGroup calls fn on the groups in name order until fn returns false.
// fn must not write to the stream.
func (s strm) eachGroup(fn func(g cgroup, name []byte) bool) {
	dirEach(s.groupsDir(), func(num uint32, name []byte, _ int) bool { return fn(cgroup{s, num}, name) })
}

// createGroup adds the group name with last delivered ID last and entries
// read read; ok is false when it exists.
func (s strm) createGroup(name []byte, last streamID, read int64) (g cgroup, ok bool, err error) {
	if _, ok := s.t.RawString(groupsKey); !ok {
		if err := s.t.SetVerbatim(groupsKey, make([]byte, 4), 0, false); err != nil {
			return g, false, err
		}
	}
	dir := s.groupsDir()
	_, at, found := dirFind(dir, name)
	if found {
		return g, false, nil
	}
	full, _ := s.t.RawString(groupsKey)
	num := binary.LittleEndian.Uint32(full)
	var rec [grHead]byte
	putID(rec[:], last)
	binary.LittleEndian.PutUint64(rec[grRead:], uint64(read))
	gk := groupKey(num)
	if err := s.t.SetVerbatim(gk[:], rec[:], 0, false); err != nil {
		return g, false, err
	}
	if ok, err := s.t.Insert(groupsKey, 4+at, dirEntry(num, name), math.MaxInt); !ok || err != nil {
		s.t.Delete(gk[:])
		return g, false, errOr(err)
	}
	var nb [4]byte
	binary.LittleEndian.PutUint32(nb[:], num+1)
	s.t.WriteAt(groupsKey, 0, nb[:]) // in place
	return cgroup{s, num}, true, nil
}

// destroyGroup removes group g, named name, with its consumers and
// pending entries.
func (s strm) destroyGroup(g cgroup, name []byte) {
	var cids []uint32
	g.eachConsumer(func(cid uint32, _ []byte) bool { cids = append(cids, cid); return true })
	for _, cid := range cids {
		g.cpel(cid).Clear()
		ck := consumerKey(g.id, cid)
		s.t.Delete(ck[:])
	}
	g.pel().Clear()
	gk := groupKey(g.id)
	s.t.Delete(gk[:])
	_, at, _ := dirFind(s.groupsDir(), name)
	s.t.Splice(groupsKey, 4+at, 8+len(name), nil)
	if len(s.groupsDir()) == 0 {
		s.t.Delete(groupsKey)
	}
}

func (g cgroup) key() [5]byte { return groupKey(g.id) }

func (g cgroup) rec() []byte {
	k := g.key()
	b, _ := g.s.t.RawString(k[:])
	return b
}

func (g cgroup) lastID() streamID   { return getID(g.rec()) }
func (g cgroup) entriesRead() int64 { return int64(binary.LittleEndian.Uint64(g.rec()[grRead:])) }

// setLast sets the group's last delivered ID and entries read.
func (g cgroup) setLast(id streamID, read int64) {
	var b [grNextC]byte
	putID(b[:], id)
	binary.LittleEndian.PutUint64(b[grRead:], uint64(read))
	k := g.key()
	g.s.t.WriteAt(k[:], 0, b[:]) // in place
}

func (g cgroup) pel() pel               { return pel{g.s.t, g.id, pelGroup, nackSize} }
func (g cgroup) cpel(cid uint32) pel    { return pel{g.s.t, g.id, cid, 16} }
func (g cgroup) consumers() int         { return dirLen(g.rec()[grHead:]) }
func (g cgroup) pending(cid uint32) int { return g.cpel(cid).Len() }

// consumer looks up the consumer named name.
func (g cgroup) consumer(name []byte) (uint32, bool) {
	num, _, ok := dirFind(g.rec()[grHead:], name)
	return num, ok
}

// eachConsumer calls fn on the group's consumers in name order until fn
// returns false. fn must not write to the stream.
func (g cgroup) eachConsumer(fn func(cid uint32, name []byte) bool) {
	dirEach(g.rec()[grHead:], func(num uint32, name []byte, _ int) bool { return fn(num, name) })
}

func (g cgroup) consumerRec(cid uint32) []byte {
	k := consumerKey(g.id, cid)
	b, _ := g.s.t.RawString(k[:])
	return b
}

func (g cgroup) consumerName(cid uint32) []byte { return g.consumerRec(cid)[8:] }
func (g cgroup) seen(cid uint32) int64          { return int64(binary.LittleEndian.Uint64(g.consumerRec(cid))) }

func (g cgroup) setSeen(cid uint32, ms int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ms))
	k := consumerKey(g.id, cid)
	g.s.t.WriteAt(k[:], 0, b[:]) // in place
}

// createConsumer adds the consumer name, which is not there, seen at ms.
func (g cgroup) createConsumer(name []byte, ms int64) (uint32, error) {
	rec := g.rec()
	cid := binary.LittleEndian.Uint32(rec[grNextC:])
	_, at, _ := dirFind(rec[grHead:], name)
	cr := make([]byte, 8, 8+len(name))
	binary.LittleEndian.PutUint64(cr, uint64(ms))
	cr = append(cr, name...)
	ck := consumerKey(g.id, cid)
	if err := g.s.t.SetVerbatim(ck[:], cr, 0, false); err != nil {
		return 0, err
	}
	gk := g.key()
	if ok, err := g.s.t.Insert(gk[:], grHead+at, dirEntry(cid, name), math.MaxInt); !ok || err != nil {
		g.s.t.Delete(ck[:])
		return 0, errOr(err)
	}
	var nb [4]byte
	binary.LittleEndian.PutUint32(nb[:], cid+1)
	g.s.t.WriteAt(gk[:], grNextC, nb[:]) // in place
	return cid, nil
}

// deleteConsumer removes consumer cid, named name, and its pending
// entries, from the group's list too.
func (g cgroup) deleteConsumer(cid uint32, name []byte) {
	var ids []streamID
	cp := g.cpel(cid)
	cp.Each(streamnode.MinID, func(r []byte) bool { ids = append(ids, decodeID(r)); return true })
	for _, id := range ids {
		g.pel().Delete(id)
	}
	cp.Clear()
	ck := consumerKey(g.id, cid)
	g.s.t.Delete(ck[:])
	_, at, _ := dirFind(g.rec()[grHead:], name)
	gk := g.key()
	g.s.t.Splice(gk[:], grHead+at, 8+len(name), nil)
}

// lookupOrCreateConsumer returns consumer name, its seen time set to now,
// creating it (with its event) when it is missing; created reports that.
func (c *Ctx) lookupOrCreateConsumer(g cgroup, key, name []byte) (cid uint32, created bool, err error) {
	now := c.Shard.Clock.Ms
	if cid, ok := g.consumer(name); ok {
		g.setSeen(cid, now)
		return cid, false, nil
	}
	cid, err = g.createConsumer(name, now)
	if err != nil {
		return 0, false, err
	}
	c.Notify(NotifyStream, "xgroup-createconsumer", key)
	return cid, true, nil
}

// nack builds a group pending entry.
func nack(id streamID, at int64, count uint64, cid uint32) [nackSize]byte {
	var r [nackSize]byte
	encodeID(r[:], id)
	binary.LittleEndian.PutUint64(r[nackTime:], uint64(at))
	binary.LittleEndian.PutUint64(r[nackCount:], count)
	binary.LittleEndian.PutUint32(r[nackOwner:], cid)
	return r
}

func nackOf(r []byte) (at int64, count uint64, cid uint32) {
	return int64(binary.LittleEndian.Uint64(r[nackTime:])), binary.LittleEndian.Uint64(r[nackCount:]),
		binary.LittleEndian.Uint32(r[nackOwner:])
}

// own makes the pending entry id consumer cid's, delivered at at count
// times: moved from its owner, or created.
func (g cgroup) own(id streamID, at int64, count uint64, cid uint32) error {
	if r, ok := g.pel().Get(id); ok {
		if _, _, old := nackOf(r); old != cid {
			g.cpel(old).Delete(id)
		}
	}
	r := nack(id, at, count, cid)
	if _, err := g.pel().Put(r[:]); err != nil {
		return err
	}
	_, err := g.cpel(cid).Put(r[:16])
	return err
}

// ack removes the pending entry id, reporting whether there was one.
func (g cgroup) ack(id streamID) bool {
	r, ok := g.pel().Get(id)
	if !ok {
		return false
	}
	_, _, cid := nackOf(r)
	g.cpel(cid).Delete(id)
	g.pel().Delete(id)
	return true
}

// hasTombstonesFrom reports whether a deleted entry may lie at or after
// start, as Redis's streamRangeHasTombstones(start, +) does.
func (s strm) hasTombstonesFrom(start streamID) bool {
	upTo, any := s.tombstones()
	return any && start.Compare(upTo) <= 0
}

// tombstones reports whether a deleted entry may lie among the live ones,
// up to the largest deleted ID: what hasTombstonesFrom asks of every start,
// read once (it walks to the first live entry).
func (s strm) tombstones() (upTo streamID, any bool) {
	maxDel := s.maxDeleted()
	if s.length() == 0 || maxDel == (streamID{}) || s.firstLive().Compare(maxDel) > 0 {
		return streamID{}, false
	}
	return maxDel, true
}

// entriesBefore is Redis's streamEstimateDistanceFromFirstEverEntry: the
// entries added up to id, or readUnknown when that cannot be told.
func (s strm) entriesBefore(id streamID) int64 {
	added := int64(s.added())
	if added == 0 {
		return 0
	}
	last := s.lastID()
	if s.length() == 0 && id.Compare(last) < 1 {
		return added
	}
	switch c := id.Compare(last); {
	case c == 0:
		return added
	case c > 0:
		return readUnknown
	}
	maxDel, first := s.maxDeleted(), s.firstLive()
	if maxDel == (streamID{}) || maxDel.Compare(first) < 0 {
		switch c := id.Compare(first); {
		case c < 0:
			return added - int64(s.length())
		case c == 0:
			return added - int64(s.length()) + 1
		}
	}
	return readUnknown
}

// lag is the group's count of entries not yet delivered; ok is false when
// it cannot be told.
func (g cgroup) lag() (int64, bool) {
	s := g.s
	added := int64(s.added())
	if added == 0 {
		return 0, true
	}
	if read := g.entriesRead(); read != readUnknown && !s.hasTombstonesFrom(g.lastID()) {
		return added - read, true
	}
	if read := s.entriesBefore(g.lastID()); read != readUnknown {
		return added - read, true
	}
	return 0, false
}

var (
	wordXClaim         = []byte("XCLAIM")
	wordXGroup         = []byte("XGROUP")
	wordSetID          = []byte("SETID")
	wordCreateConsumer = []byte("CREATECONSUMER")
	wordEntriesRead    = []byte("ENTRIESREAD")
	wordTime           = []byte("TIME")
	wordRetryCount     = []byte("RETRYCOUNT")
	wordForce          = []byte("FORCE")
	wordJustID         = []byte("JUSTID")
	wordLastID         = []byte("LASTID")
	wordZero           = []byte("0")
)

// propagateClaim records the pending entry id (idText) as an XCLAIM that
// recreates it as it is now (r, its record), as Redis's
// streamPropagateXCLAIM.
func propagateClaim(c *Ctx, key, gname []byte, g cgroup, idText []byte, r []byte) {
	if !c.Journaling() {
		return
	}
	at, count, cid := nackOf(r)
	var tb, cb [20]byte
	var lb [41]byte
	c.Propagate(wordXClaim, key, gname, g.consumerName(cid), wordZero, idText,
		wordTime, strconv.AppendInt(tb[:0], at, 10), wordRetryCount, strconv.AppendUint(cb[:0], count, 10),
		wordForce, wordJustID, wordLastID, streamnode.AppendID(lb[:0], g.lastID()))
}

// propagateGroupID records the group's last ID and entries read as XGROUP
// SETID.
func propagateGroupID(c *Ctx, key, gname []byte, g cgroup) {
	if !c.Journaling() {
		return
	}
	var lb [41]byte
	var rb [20]byte
	c.Propagate(wordXGroup, wordSetID, key, gname, streamnode.AppendID(lb[:0], g.lastID()),
		wordEntriesRead, strconv.AppendInt(rb[:0], g.entriesRead(), 10))
}

var xgroupHelp = []string{
	"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
	"HELP",
	"    Prints this help.",
}

// xgroupArity are XGROUP's subcommands and their arities, as in the command
// table (negative: at least so many arguments).
var xgroupArity = []struct {
	name  string
	arity int
}{{"create", -5}, {"setid", -5}, {"destroy", 4}, {"createconsumer", 5}, {"delconsumer", 5}, {"help", 2}}

// XGroup: XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n], SETID
// key group id|$ [ENTRIESREAD n], DESTROY key group, CREATECONSUMER key
// group consumer, DELCONSUMER key group consumer, HELP.
func XGroup(c *Ctx, argv [][]byte) {
	sub := argv[1]
	arity, name := 0, ""
	for _, a := range xgroupArity {
		if resp.EqualFold(sub, a.name) {
			arity, name = a.arity, "xgroup|"+a.name
		}
	}
	switch {
	case arity == 0:
		c.W.Err(resp.ErrUnknownSubcommand("xgroup", sub))
		return
	case (arity > 0 && len(argv) != arity) || len(argv) < -arity:
		c.W.Err(resp.ErrWrongArgs(name))
		return
	case name == "xgroup|help":
		c.W.SimpleArray(xgroupHelp)
		return
	}
	var (
		s       strm
		found   bool
		g       cgroup
		hasG    bool
		mk      bool
		read    = int64(readUnknown)
		key     []byte
		gname   []byte
		isSetID = resp.EqualFold(sub, "setid")
		create  = resp.EqualFold(sub, "create")
	)
	if len(argv) >= 4 {
		for i := 5; i < len(argv); {
			switch {
			case create && resp.EqualFold(argv[i], "mkstream"):
				mk = true
				i++
			case (create || isSetID) && resp.EqualFold(argv[i], "entriesread") && i+1 < len(argv):
				n, ok := resp.ParseInt(argv[i+1])
				if !ok {
					c.W.Err(resp.ErrNotInteger)
					return
				}
				if n < 0 && n != readUnknown {
					c.W.Err(errEntriesReadNeg)
					return
				}
				read = n
				i += 2
			default:
				c.W.Err(resp.ErrSubcommandSyntax("xgroup", sub))
				return
			}
		}
		key, gname = argv[2], argv[3]
		var ok bool
		if s, found, ok = streamOf(c, key, false); !ok {
			return
		}
		if !mk {
			if !found {
				c.W.Err(errXGroupNoKey)
				return
			}
			g, hasG = s.group(gname)
			if !hasG && (isSetID || resp.EqualFold(sub, "createconsumer") || resp.EqualFold(sub, "delconsumer")) {
				c.W.Err(errNoGroupFor(key, gname))
				return
			}
		}
	}
	switch {
	case create && len(argv) >= 5 && len(argv) <= 8:
		var id streamID
		switch a := argv[4]; {
		case len(a) == 1 && a[0] == '$':
			if found {
				id = s.lastID()
			}
		default:
			var ok bool
			if id, ok = streamnode.ParseStrictID(a, 0); !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
		}
		if !found {
			s = c.stream(c.newStream())
			if !stored(c, c.Table().SetBig(key, KindStream, s.t, 0)) {
				s.t.Clear()
				return
			}
			c.Table().Modified(key)
		}
		_, ok, err := s.createGroup(gname, id, read)
		switch {
		case err != nil:
			c.W.Err(errFull)
		case !ok:
			c.W.Err(errBusyGroup)
		default:
			c.Table().Modified(key)
			c.W.OK()
			c.Notify(NotifyStream, "xgroup-create", key)
		}
	case isSetID && (len(argv) == 5 || len(argv) == 7):
		var id streamID
		switch a := argv[4]; {
		case len(a) == 1 && a[0] == '$':
			id = s.lastID()
		default:
			var ok bool
			if id, ok = streamnode.ParseID(a, 0); !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
		}
		g.setLast(id, read)
		c.Table().Modified(key)
		c.W.OK()
		c.Notify(NotifyStream, "xgroup-setid", key)
	case resp.EqualFold(sub, "destroy") && len(argv) == 4:
		if !hasG {
			c.W.Int(0)
			return
		}
		s.destroyGroup(g, gname)
		c.Table().Modified(key)
		c.W.Int(1)
		c.Notify(NotifyStream, "xgroup-destroy", key)
	case resp.EqualFold(sub, "createconsumer") && len(argv) == 5:
		if _, ok := g.consumer(argv[4]); ok {
			c.W.Int(0)
			return
		}
		if _, err := g.createConsumer(argv[4], c.Shard.Clock.Ms); err != nil {
			c.W.Err(errFull)
			return
		}
		c.Table().Modified(key)
		c.W.Int(1)
		c.Notify(NotifyStream, "xgroup-createconsumer", key)
	case resp.EqualFold(sub, "delconsumer") && len(argv) == 5:
		cid, ok := g.consumer(argv[4])
		if !ok {
			c.W.Int(0)
			return
		}
		n := g.pending(cid)
		g.deleteConsumer(cid, argv[4])
		c.Table().Modified(key)
		c.W.Int(int64(n))
		c.Notify(NotifyStream, "xgroup-delconsumer", key)
	default:
		c.W.Err(resp.ErrSubcommandSyntax("xgroup", sub))
	}
}

// XReadGroup: XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms]
// [NOACK] STREAMS key [key ...] id [id ...]. ">" reads entries never
// delivered to the group, and parks (with BLOCK) while there are none; an
// ID reads the consumer's own pending entries after it. What it delivers
// is propagated as XCLAIM (and XGROUP SETID, XGROUP CREATECONSUMER with
// NOACK), as Redis does.
func XReadGroup(c *Ctx, argv [][]byte) {
	c.PreventPropagation()
	var a xreadArgs
	if !parseXRead(c, argv, true, &a) {
		return
	}
	timeout, count, at, gname, cname, noack := a.timeout, a.count, a.at, a.gname, a.cname, a.noack
	n := (len(argv) - at) / 2
	keys, idArgs := argv[at:at+n], argv[at+n:]
	if c.ServeKey != nil {
		for _, key := range keys {
			if !bytes.Equal(key, c.ServeKey) {
				continue
			}
			v, found := c.Table().Get(key)
			if !found || v.Kind != KindStream {
				c.W.Err(errStreamGone)
				return
			}
			s := c.stream(v.Big)
			g, ok := s.group(gname)
			if !ok {
				c.W.Err(errGroupGone)
				return
			}
			if s.lastID().Compare(g.lastID()) <= 0 {
				break
			}
			if c.W.RESP3() {
				c.W.Map(1)
			} else {
				c.W.Array(1)
			}
			if err := readGroup(c, key, s, g, gname, cname, g.lastID(), cmp.Or(count, xreadServedCount), noack, false); err != nil {
				c.W.Err(errFull)
			}
			return
		}
		c.Blocked = true
		return
	}
	sc := &c.Shard.streamPairs
	sc.after, sc.history = sc.after[:0], sc.history[:0]
	for i, key := range keys {
		s, found, ok := streamOf(c, key, true)
		if !ok {
			return
		}
		if !found {
			c.W.Err(errNoGroupRead(key, gname))
			return
		}
		if _, ok := s.group(gname); !ok {
			c.W.Err(errNoGroupRead(key, gname))
			return
		}
		switch a := idArgs[i]; {
		case len(a) == 1 && a[0] == '$':
			c.W.Err(errXReadGroupDollr)
			return
		case len(a) == 1 && a[0] == '>':
			sc.after = append(sc.after, streamnode.MaxID)
			sc.history = append(sc.history, false)
		default:
			id, ok := streamnode.ParseStrictID(a, 0)
			if !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
			sc.after = append(sc.after, id)
			sc.history = append(sc.history, true)
		}
	}
	mark, served := len(c.W.B), 0
	for i, key := range keys {
		s, _ := servedStream(c, key)
		g, _ := s.group(gname)
		after := sc.after[i]
		if !sc.history[i] {
			if s.length() == 0 || s.lastLive().Compare(g.lastID()) <= 0 {
				continue
			}
			after = g.lastID()
		}
		served++
		if err := readGroup(c, key, s, g, gname, cname, after, count, noack, sc.history[i]); err != nil {
			c.W.B = c.W.B[:mark]
			c.W.Err(errFull)
			return
		}
		c.Shard.Dirty++
	}
	switch {
	case served > 0:
		insertHeader(c.W, mark, served, c.W.RESP3())
	case timeout >= 0 && c.MayBlock:
		c.Blocked = true
	default:
		c.W.NullArray()
	}
}

// readGroup answers one key of XREADGROUP: [key, entries] (RESP3: a map's
// key and value). history reads consumer cname's pending entries after
// after; otherwise the entries after after are delivered to it.
func readGroup(c *Ctx, key []byte, s strm, g cgroup, gname, cname []byte, after streamID, count int64, noack, history bool) error {
	if !c.W.RESP3() {
		c.W.Array(2)
	}
	c.W.Bulk(key)
	cid, created, err := c.lookupOrCreateConsumer(g, key, cname)
	if err != nil {
		return err
	}
	if created && noack && c.Journaling() {
		c.Propagate(wordXGroup, wordCreateConsumer, key, gname, cname)
	}
	now := c.Shard.Clock.Ms
	from, ok := after.Next()
	if !ok {
		from = streamID{} // as Redis's streamIncrID leaves the last ID
	}
	sc := &c.Shard.streamPairs
	ids := sc.ids[:0]
	if history {
		g.cpel(cid).Each(from, func(r []byte) bool {
			ids = append(ids, decodeID(r))
			return count <= 0 || int64(len(ids)) < count
		})
		c.W.Array(len(ids))
		var idBuf [41]byte
		for _, id := range ids {
			if !s.replyEntry(c, id) {
				c.W.Array(2)
				c.W.Bulk(streamnode.AppendID(idBuf[:0], id))
				c.W.NullArray()
				continue
			}
			r, _ := g.pel().Get(id)
			_, n, _ := nackOf(r)
			var upd [16]byte
			binary.LittleEndian.PutUint64(upd[:], uint64(now))
			binary.LittleEndian.PutUint64(upd[8:], n+1)
			if err := g.pel().Update(id, nackTime, upd[:]); err != nil {
				return err
			}
		}
		sc.ids = ids
		return nil
	}
	mark := len(c.W.B)
	s.each(from, streamnode.MaxID, false, func(e streamnode.Entry) bool {
		writeEntry(c, e)
		ids = append(ids, e.ID)
		return count <= 0 || int64(len(ids)) < count
	})
	insertArrayHeader(c.W, mark, len(ids))
	sc.ids = ids
	last, read := g.lastID(), g.entriesRead()
	tombsTo, tombs := s.tombstones() // the stream does not change below
	moved := false
	var idBuf [41]byte
	for _, id := range ids {
		if id.Compare(last) > 0 {
			if read != readUnknown && !(tombs && id.Compare(tombsTo) <= 0) {
				read++
			} else if s.added() != 0 {
				read = s.entriesBefore(id)
			}
			last, moved = id, true
			g.setLast(last, read)
		}
		if noack {
			continue
		}
		if err := g.own(id, now, 1, cid); err != nil {
			return err
		}
		r, _ := g.pel().Get(id)
		propagateClaim(c, key, gname, g, streamnode.AppendID(idBuf[:0], id), r)
	}
	if noack && moved {
		propagateGroupID(c, key, gname, g)
	}
	return nil
}

// writeEntry answers entry e as [ID, [field, value, ...]].
func writeEntry(c *Ctx, e streamnode.Entry) {
	var idBuf [41]byte
	c.W.Array(2)
	c.W.Bulk(streamnode.AppendID(idBuf[:0], e.ID))
	c.W.Array(2 * e.Len())
	p := e.Pairs()
	for f, v, ok := p.Next(); ok; f, v, ok = p.Next() {
		c.W.Bulk(f)
		c.W.Bulk(v)
	}
}

// replyEntry answers the live entry id, reporting whether there is one
// (then nothing is written).
func (s strm) replyEntry(c *Ctx, id streamID) bool {
	found := false
	s.each(id, id, false, func(e streamnode.Entry) bool {
		writeEntry(c, e)
		found = true
		return false
	})
	return found
}

// hasEntry reports whether the live entry id is in the stream.
func (s strm) hasEntry(id streamID) bool {
	found := false
	s.each(id, id, false, func(streamnode.Entry) bool { found = true; return false })
	return found
}

// XAck: XACK key group id [id ...].
func XAck(c *Ctx, argv [][]byte) {
	key := argv[1]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	var g cgroup
	if found {
		g, found = s.group(argv[2])
	}
	if !found {
		c.W.Int(0)
		return
	}
	for _, a := range argv[3:] {
		if _, ok := streamnode.ParseStrictID(a, 0); !ok {
			c.W.Err(streamnode.ErrInvalidID)
			return
		}
	}
	n := 0
	for _, a := range argv[3:] {
		id, _ := streamnode.ParseStrictID(a, 0)
		if g.ack(id) {
			n++
		}
	}
	if n > 0 {
		c.Table().Modified(key)
		c.Shard.Dirty += uint64(n)
	}
	c.W.Int(int64(n))
}

// XPending: XPENDING key group [[IDLE min-idle] start end count
// [consumer]].
func XPending(c *Ctx, argv [][]byte) {
	if len(argv) != 3 && (len(argv) < 6 || len(argv) > 9) {
		c.W.Err(resp.ErrSyntax)
		return
	}
	var from, to streamID
	var count, minIdle int64
	var cname []byte
	if len(argv) >= 6 {
		at := 3
		if resp.EqualFold(argv[3], "idle") {
			n, ok := resp.ParseInt(argv[4])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			minIdle = n
			if len(argv) < 8 {
				c.W.Err(resp.ErrSyntax)
				return
			}
			at += 2
		}
		n, ok := resp.ParseInt(argv[at+2])
		if !ok {
			c.W.Err(resp.ErrNotInteger)
			return
		}
		count = max(n, 0)
		var perr resp.Error
		if from, to, perr = streamnode.ParseInterval(argv[at], argv[at+1]); perr != "" {
			c.W.Err(perr)
			return
		}
		if at+3 < len(argv) {
			cname = argv[at+3]
		}
	}
	key, gname := argv[1], argv[2]
	s, found, ok := streamOf(c, key, true)
	if !ok {
		return
	}
	var g cgroup
	if found {
		g, found = s.group(gname)
	}
	if !found {
		c.W.Err(errNoGroup(key, gname))
		return
	}
	var idBuf [41]byte
	gp := g.pel()
	if len(argv) == 3 {
		c.W.Array(4)
		n := gp.Len()
		c.W.Int(int64(n))
		if n == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return
		}
		gp.Each(streamnode.MinID, func(r []byte) bool {
			c.W.Bulk(streamnode.AppendID(idBuf[:0], decodeID(r)))
			return false
		})
		last, _ := gp.Last()
		c.W.Bulk(streamnode.AppendID(idBuf[:0], decodeID(last)))
		mark, k := len(c.W.B), 0
		g.eachConsumer(func(cid uint32, name []byte) bool {
			if p := g.pending(cid); p > 0 {
				c.W.Array(2)
				c.W.Bulk(name)
				c.W.BulkInt(int64(p))
				k++
			}
			return true
		})
		insertArrayHeader(c.W, mark, k)
		return
	}
	src := gp
	if cname != nil {
		cid, ok := g.consumer(cname)
		if !ok {
			c.W.Array(0)
			return
		}
		src = g.cpel(cid)
	}
	now := c.Shard.Clock.Ms
	mark, k := len(c.W.B), 0
	var key16 [16]byte
	encodeID(key16[:], to)
	src.Each(from, func(r []byte) bool {
		if count == 0 || bytes.Compare(r[:16], key16[:]) > 0 {
			return false
		}
		nr := r
		if cname != nil {
			nr, _ = gp.Get(decodeID(r))
		}
		at, n, cid := nackOf(nr)
		if minIdle != 0 && now-at < minIdle {
			return true
		}
		k++
		count--
		c.W.Array(4)
		c.W.Bulk(streamnode.AppendID(idBuf[:0], decodeID(r)))
		c.W.Bulk(g.consumerName(cid))
		c.W.Int(max(now-at, 0))
		c.W.Int(int64(n))
		return true
	})
	insertArrayHeader(c.W, mark, k)
}

// XClaim: XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
// [TIME unix-ms] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id].
func XClaim(c *Ctx, argv [][]byte) {
	key, gname, cname := argv[1], argv[2], argv[3]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	var g cgroup
	if found {
		g, found = s.group(gname)
	}
	if !found {
		c.W.Err(errNoGroup(key, gname))
		return
	}
	minIdle, ok := resp.ParseInt(argv[4])
	if !ok {
		c.W.Err("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	j := 5
	for ; j < len(argv); j++ {
		if _, ok := streamnode.ParseStrictID(argv[j], 0); !ok {
			break
		}
	}
	lastArg := j
	now := c.Shard.Clock.Ms
	var lastID streamID
	retry, deliverAt := int64(-1), int64(-1)
	force, justID := false, false
	for ; j < len(argv); j++ {
		more, o := len(argv)-1-j, argv[j]
		switch {
		case resp.EqualFold(o, "force"):
			force = true
		case resp.EqualFold(o, "justid"):
			justID = true
		case resp.EqualFold(o, "idle") && more > 0:
			j++
			n, ok := resp.ParseInt(argv[j])
			if !ok {
				c.W.Err("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			deliverAt = now - n
		case resp.EqualFold(o, "time") && more > 0:
			j++
			n, ok := resp.ParseInt(argv[j])
			if !ok {
				c.W.Err("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			deliverAt = n
		case resp.EqualFold(o, "retrycount") && more > 0:
			j++
			n, ok := resp.ParseInt(argv[j])
			if !ok {
				c.W.Err("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			retry = n
		case resp.EqualFold(o, "lastid") && more > 0:
			j++
			id, ok := streamnode.ParseStrictID(argv[j], 0)
			if !ok {
				c.W.Err(streamnode.ErrInvalidID)
				return
			}
			lastID = id
		default:
			c.W.Err(resp.Error("ERR Unrecognized XCLAIM option '" + cstr(o) + "'"))
			return
		}
	}
	c.PreventPropagation()
	propagateLast := false
	if lastID.Compare(g.lastID()) > 0 {
		g.setLast(lastID, g.entriesRead())
		propagateLast = true
		c.Table().Modified(key)
	}
	if deliverAt < 0 || deliverAt > now {
		deliverAt = now
	}
	mark, k := len(c.W.B), 0
	cl := claimer{c: c, key: key, gname: gname, cname: cname, s: s, g: g, justID: justID}
	changed := false
	for _, a := range argv[5:lastArg] {
		id, _ := streamnode.ParseStrictID(a, 0)
		r, pending := g.pel().Get(id)
		if !s.hasEntry(id) {
			if pending {
				propagateClaim(c, key, gname, g, a, r)
				propagateLast = false
				g.ack(id)
				c.Shard.Dirty++
				changed = true
			}
			continue
		}
		var count uint64
		if pending {
			at, n, _ := nackOf(r)
			if minIdle != 0 && now-at < minIdle {
				continue
			}
			count = n
		} else if !force {
			continue
		}
		switch {
		case retry >= 0:
			count = uint64(retry)
		case !justID:
			count++
		}
		if err := cl.claim(id, a, deliverAt, count); err != nil {
			c.W.B = c.W.B[:mark]
			c.W.Err(errFull)
			return
		}
		k++
		propagateLast = false
		changed = true
	}
	if propagateLast {
		propagateGroupID(c, key, gname, g)
		c.Shard.Dirty++
	}
	if changed {
		c.Table().Modified(key)
	}
	insertArrayHeader(c.W, mark, k)
}

// claimer claims pending entries of one group for one consumer, as XCLAIM
// and XAUTOCLAIM do: it looks the consumer up (or makes it) at its first
// claim, and answers and propagates each entry it claims.
type claimer struct {
	c                 *Ctx
	key, gname, cname []byte
	s                 strm
	g                 cgroup
	justID            bool
	cid               uint32
	haveConsumer      bool
}

// claim makes id the consumer's, delivered at at, count times, answers it
// (its ID with JUSTID, else the entry) and propagates the claim with idArg
// as the ID.
func (cl *claimer) claim(id streamID, idArg []byte, at int64, count uint64) error {
	c, g := cl.c, cl.g
	if !cl.haveConsumer {
		cid, _, err := c.lookupOrCreateConsumer(g, cl.key, cl.cname)
		if err != nil {
			return err
		}
		cl.cid, cl.haveConsumer = cid, true
	}
	if err := g.own(id, at, count, cl.cid); err != nil {
		return err
	}
	if cl.justID {
		var idBuf [41]byte
		c.W.Bulk(streamnode.AppendID(idBuf[:0], id))
	} else {
		cl.s.replyEntry(c, id)
	}
	r, _ := g.pel().Get(id)
	propagateClaim(c, cl.key, cl.gname, g, idArg, r)
	c.Shard.Dirty++
	return nil
}

// XAutoClaim: XAUTOCLAIM key group consumer min-idle-time start [COUNT
// count] [JUSTID].
func XAutoClaim(c *Ctx, argv [][]byte) {
	minIdle, ok := resp.ParseInt(argv[4])
	if !ok {
		c.W.Err("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, exclusive, ok := streamnode.ParseRangeID(argv[5], 0)
	if !ok {
		c.W.Err(streamnode.ErrInvalidID)
		return
	}
	if exclusive {
		if start, ok = start.Next(); !ok {
			c.W.Err(streamnode.ErrRangeStart)
			return
		}
	}
	count, justID := int64(100), false
	for j := 6; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch o := argv[j]; {
		case resp.EqualFold(o, "count") && more > 0:
			n, ok := resp.ParseInt(argv[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.W.Err(errAutoclaimCount)
				return
			}
			count = n
			j++
		case resp.EqualFold(o, "justid"):
			justID = true
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	key, gname, cname := argv[1], argv[2], argv[3]
	s, found, ok := streamOf(c, key, false)
	if !ok {
		return
	}
	var g cgroup
	if found {
		g, found = s.group(gname)
	}
	if !found {
		c.W.Err(errNoGroup(key, gname))
		return
	}
	c.PreventPropagation()
	attempts := count * 10
	now := c.Shard.Clock.Ms
	c.W.Array(3)
	cursorAt := len(c.W.B)
	mark, k := len(c.W.B), 0
	var deleted []streamID
	cl := claimer{c: c, key: key, gname: gname, cname: cname, s: s, g: g, justID: justID}
	var idBuf [41]byte
	pos, more := start, true
	var next streamID // the cursor: the first entry not looked at
	batch := make([][nackSize]byte, 0, 64)
	changed := false
	for more && attempts > 0 && count > 0 {
		batch = batch[:0]
		g.pel().Each(pos, func(r []byte) bool {
			batch = append(batch, [nackSize]byte(r))
			return len(batch) < cap(batch)
		})
		if len(batch) == 0 {
			more = false
			break
		}
		for bi, r := range batch {
			if attempts == 0 || count == 0 {
				next = decodeID(r[:])
				more = false
				break
			}
			attempts--
			id := decodeID(r[:])
			if bi == len(batch)-1 {
				if pos, ok = id.Next(); !ok {
					more = false
				}
			}
			if !s.hasEntry(id) {
				propagateClaim(c, key, gname, g, streamnode.AppendID(idBuf[:0], id), r[:])
				g.ack(id)
				deleted = append(deleted, id)
				count--
				c.Shard.Dirty++
				changed = true
				continue
			}
			at, n, _ := nackOf(r[:])
			if minIdle != 0 && now-at < minIdle {
				continue
			}
			if !justID {
				n++
			}
			if err := cl.claim(id, streamnode.AppendID(idBuf[:0], id), now, n); err != nil {
				c.W.B = c.W.B[:cursorAt]
				c.W.Err(errFull)
				return
			}
			k++
			count--
			changed = true
		}
	}
	if more {
		// Stopped at the bound with the batch used up: the next pending
		// entry, if any, is the cursor.
		g.pel().Each(pos, func(r []byte) bool { next = decodeID(r); return false })
	}
	insertArrayHeader(c.W, mark, k)
	var cb [41]byte
	cursor := streamnode.AppendID(cb[:0], next)
	var hb [64]byte
	h := append(append(strconv.AppendInt(append(hb[:0], '$'), int64(len(cursor)), 10), '\r', '\n'), cursor...)
	h = append(h, '\r', '\n')
	c.W.B = append(c.W.B[:cursorAt], append(h, c.W.B[cursorAt:]...)...)
	c.W.Array(len(deleted))
	for _, id := range deleted {
		c.W.Bulk(streamnode.AppendID(idBuf[:0], id))
	}
	if changed {
		c.Table().Modified(key)
	}
}

// xinfoGroups answers XINFO GROUPS: each group's name, consumers, pending
// entries, last delivered ID, entries read and lag.
func xinfoGroups(c *Ctx, s strm) {
	c.W.Array(s.groups())
	s.eachGroup(func(g cgroup, name []byte) bool {
		c.W.Map(6)
		c.W.BulkString("name")
		c.W.Bulk(name)
		c.W.BulkString("consumers")
		c.W.Int(int64(g.consumers()))
		c.W.BulkString("pending")
		c.W.Int(int64(g.pel().Len()))
		groupProgress(c, g)
		return true
	})
}

// groupProgress answers a group's last-delivered-id, entries-read and lag.
func groupProgress(c *Ctx, g cgroup) {
	var idBuf [41]byte
	c.W.BulkString("last-delivered-id")
	c.W.Bulk(streamnode.AppendID(idBuf[:0], g.lastID()))
	c.W.BulkString("entries-read")
	if r := g.entriesRead(); r != readUnknown {
		c.W.Int(r)
	} else {
		c.W.Null()
	}
	c.W.BulkString("lag")
	if lag, ok := g.lag(); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

// xinfoConsumers answers XINFO CONSUMERS: each consumer's name, pending
// entries and idle time.
func xinfoConsumers(c *Ctx, g cgroup) {
	now := c.Shard.Clock.Ms
	c.W.Array(g.consumers())
	g.eachConsumer(func(cid uint32, name []byte) bool {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.Bulk(name)
		c.W.BulkString("pending")
		c.W.Int(int64(g.pending(cid)))
		c.W.BulkString("idle")
		c.W.Int(max(now-g.seen(cid), 0))
		return true
	})
}

// xinfoGroupsFull answers XINFO STREAM FULL's groups, each with at most
// count pending entries listed (0: all), and so for its consumers.
func xinfoGroupsFull(c *Ctx, s strm, count int64) {
	var idBuf [41]byte
	c.W.Array(s.groups())
	s.eachGroup(func(g cgroup, name []byte) bool {
		c.W.Map(7)
		c.W.BulkString("name")
		c.W.Bulk(name)
		groupProgress(c, g)
		c.W.BulkString("pel-count")
		c.W.Int(int64(g.pel().Len()))
		c.W.BulkString("pending")
		mark, k := len(c.W.B), int64(0)
		g.pel().Each(streamnode.MinID, func(r []byte) bool {
			if count != 0 && k >= count {
				return false
			}
			at, n, cid := nackOf(r)
			c.W.Array(4)
			c.W.Bulk(streamnode.AppendID(idBuf[:0], decodeID(r)))
			c.W.Bulk(g.consumerName(cid))
			c.W.Int(at)
			c.W.Int(int64(n))
			k++
			return true
		})
		insertArrayHeader(c.W, mark, int(k))
		c.W.BulkString("consumers")
		c.W.Array(g.consumers())
		g.eachConsumer(func(cid uint32, cname []byte) bool {
			c.W.Map(4)
			c.W.BulkString("name")
			c.W.Bulk(cname)
			c.W.BulkString("seen-time")
			c.W.Int(g.seen(cid))
			c.W.BulkString("pel-count")
			c.W.Int(int64(g.pending(cid)))
			c.W.BulkString("pending")
			mark, k := len(c.W.B), int64(0)
			g.cpel(cid).Each(streamnode.MinID, func(r []byte) bool {
				if count != 0 && k >= count {
					return false
				}
				nr, _ := g.pel().Get(decodeID(r))
				at, n, _ := nackOf(nr)
				c.W.Array(3)
				c.W.Bulk(streamnode.AppendID(idBuf[:0], decodeID(r)))
				c.W.Int(at)
				c.W.Int(int64(n))
				k++
				return true
			})
			insertArrayHeader(c.W, mark, int(k))
			return true
		})
		return true
	})
}
