// Package journal owns the change journal: what every change to a shard's
// data looks like once it leaves the shard (records), how a shard collects
// them in the order it applied them, how a transaction over several shards
// is marked so that it can be applied whole, and how the streams of all
// shards are merged into one (Merge). The AOF, replicas, client-side
// caching and eviction consume it; the call path (router) and the command
// handlers (shardowner) write it.
//
// A record is a command in Redis's replayable form, RESP-encoded as a client
// would send it: the command as received by default, or what a handler says
// it did when that differs (SET … EX → SET … PXAT, SPOP → SREM, a blocked
// pop → its plain form, an expiry → DEL). A shard's stream is a sequence of
// records, with SELECT where the database changes, and annotation lines,
// which start with '#' (Redis's AOF loader and redis-check-aof skip them):
//
//	#tx <id> <parts>   the MULTI … EXEC block that follows is one of <parts>
//	                   parts, one per shard, of transaction <id>
//	#all               the record that follows is in every part of its
//	                   transaction (SWAPDB, FLUSHALL, FLUSHDB run on every
//	                   shard): a merged stream carries it once
//
// Everything here runs on the shard's thread but the Sink's own work.
package journal

import (
	"strconv"
	"unsafe"

	"github.com/valyala/bytebufferpool"
)

// A Sink takes a shard's records, once per loop turn of the shard. Write runs
// on the shard's thread; records are the sink's from then on, and it puts
// them back in bytebufferpool when it is done with them, so that a turn's
// records are handed over, not copied.
type Sink interface {
	Write(shard int, records *bytebufferpool.ByteBuffer)
}

// Owner names a transaction to a shard: its client and the client's
// transaction number (router.Origin).
type Owner struct {
	Client int64
	Seq    uint8
}

// Journal collects one shard's records. The zero value is not ready: use
// New. Only the shard's thread touches it.
type Journal struct {
	buf []byte                     // records not yet handed to the sink, in out's storage
	out *bytebufferpool.ByteBuffer // what Flush hands over
	db  int                        // the database the stream's last SELECT named; -1 before any

	// frame is the request the running command was parsed from, as the
	// client sent it (Receive); nil: not known.
	frame []byte

	cur      *part // the part the running command writes to; nil: the stream
	explicit bool  // the running command recorded its effects itself
	parts    map[Owner]*part
	free     []*part

	// Holder names the transaction that holds a key on the shard, if one
	// does (router.Locks.Holder); nil: none ever does.
	Holder func(db int, key []byte) (Owner, bool)
}

// part is a transaction's records on this shard, kept until the
// transaction lets go of the shard (EndTx): other commands may run on the
// shard in between, on other keys, and their records must not land inside
// the block.
type part struct {
	b    []byte
	recs []rec
}

// rec is one record of a part: its database and where its bytes end in b.
type rec struct {
	db     int
	end    int
	shared bool // #all
}

// New returns an empty journal.
func New() *Journal { return &Journal{db: -1, parts: make(map[Owner]*part)} }

// Begin starts the records of one command run. held says it runs as a part
// of transaction o, whose records are kept for EndTx; scripted, that a
// script called it, whose records are kept for EndTx of ScriptOwner
// unless the script itself runs as such a part.
func (j *Journal) Begin(o Owner, held, scripted bool) {
	j.explicit = false
	j.cur = nil
	switch {
	case held:
		j.cur = j.partOf(o)
	case scripted:
		j.cur = j.partOf(ScriptOwner)
	}
}

// ScriptOwner names the part that collects the records of the script
// running on the shard, one at a time: a script runs whole in one turn,
// and EndTx(ScriptOwner, …) closes it when it ends.
var ScriptOwner = Owner{Client: -1}

// Records is how many records o's open part holds.
func (j *Journal) Records(o Owner) int {
	if p := j.parts[o]; p != nil {
		return len(p.recs)
	}
	return 0
}

// partOf returns o's part, opening it.
func (j *Journal) partOf(o Owner) *part {
	p := j.parts[o]
	if p == nil {
		if n := len(j.free); n > 0 {
			p = j.free[n-1]
			j.free = j.free[:n-1]
		} else {
			p = &part{}
		}
		j.parts[o] = p
	}
	return p
}

// Expired records the expiry of key in database db as a DEL. Outside a
// command (active expiry) a key a transaction holds expires between its
// commands on the shard, so the DEL goes into that transaction's part
// there, in the order it happened, not before the part.
func (j *Journal) Expired(db int, key []byte) {
	if j.cur == nil && j.Holder != nil {
		if o, ok := j.Holder(db, key); ok {
			j.cur = j.partOf(o)
			j.Record(db, wordDel, key)
			j.cur = nil
			return
		}
	}
	j.Record(db, wordDel, key)
}

// End ends the command run Begin started.
func (j *Journal) End() { j.cur, j.frame = nil, nil }

// Receive gives the journal the request, as the client sent it, that the
// next command on the shard is parsed from, until End. A record that is that
// command as received is a copy of frame rather than an encoding of its
// arguments (appendRecord); a frame that is not theirs (an inline request,
// a command another one ran first, arguments rewritten) is ignored.
func (j *Journal) Receive(frame []byte) { j.frame = frame }

// Explicit reports whether the running command recorded its effects itself
// (Propagate), so that the call path adds nothing.
func (j *Journal) Explicit() bool { return j.explicit }

// Propagate records argv as the effect of the running command in database
// db, in place of the command as received.
func (j *Journal) Propagate(db int, argv ...[]byte) {
	j.explicit = true
	j.Record(db, argv...)
}

// Suppress marks the running command's effects as recorded without
// recording any: what it changed needs no replay (XREADGROUP of a
// consumer's history only counts deliveries), or what it did record was
// all there is.
func (j *Journal) Suppress() { j.explicit = true }

// Record appends argv, run in database db, to the running command's
// transaction part, or to the stream.
func (j *Journal) Record(db int, argv ...[]byte) {
	j.record(db, false, argv)
}

// Shared records argv as Record does, for a command that every shard runs
// its own slice of: in a transaction each part carries it, and a merged
// stream carries it once.
func (j *Journal) Shared(db int, argv ...[]byte) {
	j.record(db, true, argv)
}

func (j *Journal) record(db int, shared bool, argv [][]byte) {
	if p := j.cur; p != nil {
		p.b = j.appendRecord(p.b, argv)
		p.recs = append(p.recs, rec{db: db, end: len(p.b), shared: shared})
		return
	}
	j.selectDB(db)
	j.buf = j.appendRecord(j.buf, argv)
}

// appendRecord appends argv as a RESP command: the received frame as it is
// when it is argv's own encoding, which a pipeline of small commands
// copies at about half the cost of encoding them.
func (j *Journal) appendRecord(b []byte, argv [][]byte) []byte {
	if j.frame != nil && encodes(j.frame, argv) {
		return append(b, j.frame...)
	}
	return AppendCommand(b, argv...)
}

// encodes reports whether frame is exactly what AppendCommand makes of
// argv, reading little of it: a RESP array (not an inline request) whose
// arguments lie where AppendCommand would put them, each header in between
// as long as its canonical form, each CRLF a CRLF (the parser, like
// Redis's, skips the byte after a CR unread; the AOF loader does not).
// argv parsed from frame in place has its bytes there and its lengths in
// those headers, and a longer header ("$03"), an argument cut or moved, one
// from elsewhere or one missing, all shift an argument off its place.
func encodes(frame []byte, argv [][]byte) bool {
	if len(frame) == 0 || frame[0] != '*' {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(frame)))
	at := headerLen(len(argv))
	for _, a := range argv {
		at += headerLen(len(a))
		end := at + len(a)
		if end+2 > len(frame) || string(frame[at-2:at]) != "\r\n" || string(frame[end:end+2]) != "\r\n" {
			return false
		}
		// An empty argument's place is its neighbours' to check.
		if len(a) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(a)))-base != uintptr(at) {
			return false
		}
		at = end + 2
	}
	return at == len(frame) && string(frame[headerLen(len(argv))-2:headerLen(len(argv))]) == "\r\n"
}

// headerLen is the length of "$<n>\r\n" with n in decimal.
func headerLen(n int) int {
	l := 4
	for ; n >= 10; n /= 10 {
		l++
	}
	return l
}

// selectDB adds a SELECT to the stream when db is not its database.
func (j *Journal) selectDB(db int) {
	if db == j.db {
		return
	}
	j.db = db
	var n [20]byte
	j.buf = AppendCommand(j.buf, []byte("SELECT"), strconv.AppendInt(n[:0], int64(db), 10))
}

var (
	wordMulti = []byte("MULTI")
	wordExec  = []byte("EXEC")
	wordDel   = []byte("DEL")
)

// EndTx closes transaction o's part on this shard: the records its parts
// left here go into the stream as one MULTI … EXEC block marked as one of
// parts parts of transaction id. With parts 0 (a transaction that writes
// nothing) there is no block: what the part holds (the expiry of a key it
// held) goes into the stream as it is.
func (j *Journal) EndTx(o Owner, id uint64, parts int) {
	p := j.parts[o] // nil: the transaction changed nothing here
	if p == nil && parts == 0 {
		return
	}
	if parts > 0 {
		j.buf = append(j.buf, "#tx "...)
		j.buf = strconv.AppendUint(j.buf, id, 10)
		j.buf = append(j.buf, ' ')
		j.buf = strconv.AppendInt(j.buf, int64(parts), 10)
		j.buf = append(j.buf, "\r\n"...)
		j.buf = AppendCommand(j.buf, wordMulti)
	}
	if p != nil {
		start := 0
		for _, r := range p.recs {
			j.selectDB(r.db)
			if r.shared && parts > 0 {
				j.buf = append(j.buf, "#all\r\n"...)
			}
			j.buf = append(j.buf, p.b[start:r.end]...)
			start = r.end
		}
		j.release(o, p)
	}
	if parts > 0 {
		j.buf = AppendCommand(j.buf, wordExec)
	}
}

// DropTx forgets what owner o's part holds: a script stopped for SHUTDOWN
// NOSAVE, whose effects the process ends without keeping, as Redis ends
// without propagating them.
func (j *Journal) DropTx(o Owner) {
	if p := j.parts[o]; p != nil {
		j.release(o, p)
	}
}

// release ends owner o's part p, keeping it for a later owner unless its
// buffer grew large.
func (j *Journal) release(o Owner, p *part) {
	delete(j.parts, o)
	p.b, p.recs = p.b[:0], p.recs[:0]
	if cap(p.b) > 1<<20 {
		p.b = nil
	}
	j.free = append(j.free, p)
}

// Stamp puts the annotation line "#TS:<unix>" before the records collected
// since the last Flush, when there are any: Redis's timestamp annotation
// (aof-timestamp-enabled), which redis-check-aof --truncate-to-timestamp
// cuts at. The records of a turn are all outside any block, so the line
// never falls inside one. It reports whether it put the line.
func (j *Journal) Stamp(unix int64) bool {
	if len(j.buf) == 0 {
		return false
	}
	var line [32]byte
	l := append(strconv.AppendInt(append(line[:0], "#TS:"...), unix, 10), "\r\n"...)
	j.buf = append(j.buf, l...)
	copy(j.buf[len(l):], j.buf[:len(j.buf)-len(l)])
	copy(j.buf, l)
	return true
}

// Flush hands the records collected since the last Flush to sink.
func (j *Journal) Flush(shard int, sink Sink) {
	if len(j.buf) == 0 {
		return
	}
	if j.out == nil {
		j.out = new(bytebufferpool.ByteBuffer)
	}
	j.out.B = j.buf
	sink.Write(shard, j.out)
	j.out = bytebufferpool.Get()
	j.buf = j.out.B[:0]
}

// AppendCommand appends argv to b as a RESP array of bulk strings.
func AppendCommand(b []byte, argv ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(argv)), 10)
	b = append(b, "\r\n"...)
	for _, a := range argv {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}
