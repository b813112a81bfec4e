package shardowner

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

// As Redis: an entry keeps at most slowlogMaxArgs arguments, each cut at
// slowlogMaxArgLen bytes.
const (
	slowlogMaxArgs   = 32
	slowlogMaxArgLen = 128
)

// SlowEntry is one command of the slow log.
type SlowEntry struct {
	ID    int64
	Time  int64 // Unix seconds when it was logged
	Usec  int64
	Argv  [][]byte // clipped copy of the arguments
	Addr  string
	Name  string
	bytes []byte
}

// SlowLog is one shard's slow log: the newest entries, at most MaxLen, kept
// by the shard's thread alone.
type SlowLog struct {
	entries []SlowEntry // ring, oldest at head
	head    int
}

// Len is the number of entries kept.
func (l *SlowLog) Len() int { return len(l.entries) }

// Reset drops every entry.
func (l *SlowLog) Reset() {
	clear(l.entries)
	l.entries, l.head = l.entries[:0], 0
}

// newest returns the i-th newest entry.
func (l *SlowLog) newest(i int) *SlowEntry {
	n := len(l.entries)
	return &l.entries[(l.head+n-1-i)%n]
}

// add appends e, dropping the oldest entries beyond maxLen.
func (l *SlowLog) add(e SlowEntry, maxLen int) {
	n := len(l.entries)
	switch {
	case maxLen <= 0:
		l.Reset()
		return
	case n == maxLen:
		// Full: the newest takes the oldest's place.
		l.entries[l.head] = e
		l.head = (l.head + 1) % n
		return
	}
	if l.head != 0 {
		// slowlog-max-len changed while the ring was full: straighten it.
		l.entries = append(append(make([]SlowEntry, 0, n), l.entries[l.head:]...), l.entries[:l.head]...)
		l.head = 0
	}
	if n > maxLen-1 {
		drop := n - (maxLen - 1)
		copy(l.entries, l.entries[drop:])
		clear(l.entries[n-drop:])
		l.entries = l.entries[:n-drop]
	}
	l.entries = append(l.entries, e)
}

// LogSlow adds a command that took usec microseconds to the shard's slow log;
// the caller has checked the threshold. argv is copied (clipped as Redis
// clips it); client is the connection's ID, resolved to its address and name
// now since the connection may be gone when the log is read.
func (s *Shard) LogSlow(argv [][]byte, usec int64, client int64) {
	cfg := s.Slowlog
	if cfg == nil {
		return
	}
	e := SlowEntry{Time: s.Clock.Ms / 1000, Usec: usec}
	n := min(len(argv), slowlogMaxArgs)
	size := 0
	for _, a := range argv[:n] {
		size += min(len(a), slowlogMaxArgLen) + 32
	}
	e.bytes = make([]byte, 0, size)
	e.Argv = make([][]byte, n)
	for j := 0; j < n; j++ {
		start := len(e.bytes)
		a := argv[j]
		switch {
		case n != len(argv) && j == n-1:
			e.bytes = append(e.bytes, "... ("...)
			e.bytes = strconv.AppendInt(e.bytes, int64(len(argv)-n+1), 10)
			e.bytes = append(e.bytes, " more arguments)"...)
		case len(a) > slowlogMaxArgLen:
			e.bytes = append(e.bytes, a[:slowlogMaxArgLen]...)
			e.bytes = append(e.bytes, "... ("...)
			e.bytes = strconv.AppendInt(e.bytes, int64(len(a)-slowlogMaxArgLen), 10)
			e.bytes = append(e.bytes, " more bytes)"...)
		default:
			e.bytes = append(e.bytes, a...)
		}
		e.Argv[j] = e.bytes[start:len(e.bytes):len(e.bytes)]
	}
	if cfg.Client != nil {
		e.Addr, e.Name = cfg.Client(client)
	}
	e.ID = cfg.nextID.Add(1) - 1
	s.Slow.add(e, int(cfg.MaxLen.Load()))
}

// SlowlogHelp is SLOWLOG HELP's text, as Redis 7.0 words it.
var SlowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

const errSlowlogCount resp.Error = "ERR count should be greater than or equal to -1"

// SlowlogCount reads SLOWLOG GET's optional count: 10 when absent, -1 for
// every entry.
func SlowlogCount(argv [][]byte) (int64, bool) {
	if len(argv) < 3 {
		return 10, true
	}
	n, ok := resp.ParseInt(argv[2])
	if !ok || n < -1 {
		return 0, false
	}
	return n, true
}

// Slowlog: SLOWLOG GET [count] | LEN | RESET | HELP. This shard's part: the
// router merges the shards' entries newest first, sums LEN and resets every
// shard.
func Slowlog(c *Ctx, argv [][]byte) {
	sub := argv[1]
	l := &c.Shard.Slow
	switch {
	case resp.EqualFold(sub, "get") && len(argv) <= 3:
		n, ok := SlowlogCount(argv)
		if !ok {
			c.W.Err(errSlowlogCount)
			return
		}
		if n < 0 || n > int64(l.Len()) {
			n = int64(l.Len())
		}
		c.W.Array(int(n))
		for i := 0; i < int(n); i++ {
			writeSlowEntry(c.W, l.newest(i))
		}
	case resp.EqualFold(sub, "len") && len(argv) == 2:
		c.W.Int(int64(l.Len()))
	case resp.EqualFold(sub, "reset") && len(argv) == 2:
		l.Reset()
		c.W.OK()
	case resp.EqualFold(sub, "help") && len(argv) == 2:
		c.W.Array(len(SlowlogHelp))
		for _, s := range SlowlogHelp {
			c.W.Simple(s)
		}
	case resp.EqualFold(sub, "get"):
		// GET checks its own argument count, as in Redis.
		c.W.Err(resp.ErrSubcommandSyntax("slowlog", sub))
	case resp.EqualFold(sub, "len") || resp.EqualFold(sub, "reset") || resp.EqualFold(sub, "help"):
		// Redis 7 checks these subcommands' arity as commands of their own.
		c.W.Err(resp.ErrWrongArgs("slowlog|" + strings.ToLower(string(sub))))
	default:
		c.W.Err(resp.ErrUnknownSubcommand("slowlog", sub))
	}
}

func writeSlowEntry(w *resp.Writer, e *SlowEntry) {
	w.Array(6)
	w.Int(e.ID)
	w.Int(e.Time)
	w.Int(e.Usec)
	w.Array(len(e.Argv))
	for _, a := range e.Argv {
		w.Bulk(a)
	}
	w.Bulk([]byte(e.Addr))
	w.Bulk([]byte(e.Name))
}
