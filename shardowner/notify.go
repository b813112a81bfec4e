package shardowner

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
)

// Keyspace notification classes: the letters of notify-keyspace-events.
const (
	NotifyKeyspace = 1 << iota // K: events on __keyspace@<db>__:<key>
	NotifyKeyevent             // E: events on __keyevent@<db>__:<event>
	NotifyGeneric              // g: DEL, EXPIRE, RENAME, …
	NotifyString               // $
	NotifyList                 // l
	NotifySet                  // s
	NotifyHash                 // h
	NotifyZset                 // z
	NotifyExpired              // x: a key expired
	NotifyEvicted              // e: a key was evicted
	NotifyStream               // t
	NotifyKeyMiss              // m: a read found no key
	NotifyModule               // d
	NotifyNew                  // n: a key was created

	// NotifyAll is A: every class but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash | NotifyZset |
		NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// notifyLetters lists the class letters in the order Redis writes them.
var notifyLetters = []struct {
	class  int
	letter byte
}{
	{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'}, {NotifyHash, 'h'},
	{NotifyZset, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'}, {NotifyStream, 't'}, {NotifyModule, 'd'},
	{NotifyNew, 'n'}, {NotifyKeyspace, 'K'}, {NotifyKeyevent, 'E'}, {NotifyKeyMiss, 'm'},
}

// ParseNotifyClasses reads a notify-keyspace-events value; false for a
// character that names no class.
func ParseNotifyClasses(s string) (int, bool) {
	classes := 0
outer:
	for i := 0; i < len(s); i++ {
		if s[i] == 'A' {
			classes |= NotifyAll
			continue
		}
		for _, l := range notifyLetters {
			if l.letter == s[i] {
				classes |= l.class
				continue outer
			}
		}
		return 0, false
	}
	return classes, true
}

// NotifyClassesString writes classes as CONFIG GET shows them: A for all of
// NotifyAll (n then goes unsaid, as in Redis), else each letter, then K, E
// and m.
func NotifyClassesString(classes int) string {
	var b strings.Builder
	all := classes&NotifyAll == NotifyAll
	if all {
		b.WriteByte('A')
	}
	for _, l := range notifyLetters {
		inAll := l.class&NotifyAll != 0 || l.class == NotifyNew
		if classes&l.class != 0 && !(all && inAll) {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

// NotifyConfig is notify-keyspace-events, shared by the server's shards.
type NotifyConfig struct {
	Classes atomic.Int64
}

// Notify publishes a keyspace notification for key in the client's
// database, as Redis's handlers do after a change: event on
// __keyspace@<db>__:<key> when K is on, and key on __keyevent@<db>__:<event>
// when E is on, if notify-keyspace-events enables class. Handlers call it
// from the shard that made the change, after making it; the messages reach
// subscribers on every core (Hub.Broadcast). Costs one atomic load when
// class is off.
func (c *Ctx) Notify(class int, event string, key []byte) {
	if class != NotifyKeyMiss {
		c.Shard.Dirty++ // a read's miss changes nothing
	}
	if e := c.Shard.Events; e != nil && e.Classes.Load()&int64(class) != 0 {
		c.Shard.notify(c.DB, class, event, key)
	}
}

// Changed counts a change that publishes no keyspace event (PFCOUNT's
// cached cardinality), so that the call path journals the command.
func (c *Ctx) Changed() { c.Shard.Dirty++ }

// NotifyIn is Notify for a change to key of database db rather than the
// client's (COPY … DB, MOVE).
func (c *Ctx) NotifyIn(db, class int, event string, key []byte) {
	c.Shard.Dirty++
	if e := c.Shard.Events; e != nil && e.Classes.Load()&int64(class) != 0 {
		c.Shard.notify(db, class, event, key)
	}
}

// NotifyRemoval publishes event of class on key, then Redis's del when the
// change took the aggregate's last element and with it the key.
func (c *Ctx) NotifyRemoval(class int, event string, key []byte) {
	if !c.Shard.notifying() {
		c.Shard.Dirty++
		return
	}
	c.Notify(class, event, key)
	if !c.Table().Exists(key) {
		c.Notify(NotifyGeneric, "del", key)
	}
}

// notifying reports whether a notification may be published or recorded.
func (s *Shard) notifying() bool {
	return s.Events != nil && (s.Hub != nil || s.recording) &&
		s.Events.Classes.Load()&(NotifyKeyspace|NotifyKeyevent) != 0
}

func (s *Shard) notify(db, class int, event string, key []byte) {
	if s.recording {
		if s.notifying() && int(s.Events.Classes.Load())&class != 0 {
			s.record(class, event, key)
		}
		return
	}
	notifyEvent(s, db, class, event, key)
}

func notifyEvent[E string | []byte](s *Shard, db, class int, event E, key []byte) {
	if s.Events == nil || s.Hub == nil {
		return
	}
	classes := int(s.Events.Classes.Load())
	if classes&class == 0 || classes&(NotifyKeyspace|NotifyKeyevent) == 0 {
		return
	}
	s.notifyMsg = append(s.notifyMsg[:0], event...)
	if classes&NotifyKeyspace != 0 {
		s.notifyChan = notifyChannel(s.notifyChan[:0], "__keyspace@", db, key)
		s.Hub.Broadcast(s.notifyChan, s.notifyMsg)
	}
	if classes&NotifyKeyevent != 0 {
		s.notifyChan = notifyChannel(s.notifyChan[:0], "__keyevent@", db, s.notifyMsg)
		s.Hub.Broadcast(s.notifyChan, key)
	}
}

func notifyChannel(b []byte, prefix string, db int, name []byte) []byte {
	b = append(b, prefix...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, "__:"...)
	return append(b, name...)
}

// expireHook returns the function t calls for each key that expires:
// the journal records the expiry as a DEL, then notify publishes it.
func (s *Shard) expireHook(t *Table, notify func(key []byte)) func(key []byte) {
	return func(key []byte) {
		if s.Snap != nil {
			s.beforeExpire(t, key)
		}
		if j := s.Journal; j != nil {
			j.Expired(s.dbOf(t), key)
		}
		notify(key)
	}
}

// dbOf returns the database of table t. SWAPDB moves tables between
// databases, so it is looked up when needed.
func (s *Shard) dbOf(t *Table) int {
	for db, d := range s.DBs {
		if d == t {
			return db
		}
	}
	return 0
}

// tableHook returns the function t calls for each key that expires or is
// created (kvtable.Table.OnExpire, OnNew), which publishes event of class
// from t's database.
func (s *Shard) tableHook(t *Table, class int, event string) func(key []byte) {
	return func(key []byte) {
		if s.recording || s.Events == nil || int(s.Events.Classes.Load())&class == 0 {
			return
		}
		// SWAPDB moves tables between databases: look t up now.
		for db, d := range s.DBs {
			if d == t {
				s.notify(db, class, event, key)
				return
			}
		}
	}
}

// Recording: a command that runs whole on a scratch keyspace over values
// gathered from several shards (router's gathering plans) must publish its
// events from the shards that own its keys, when its changes are written
// back there. The scratch shard records what the command would publish,
// and the write-back (corekv.restore) replays each key's events on the
// key's owner, in the command's order. Recording rather than telling the
// write-back which events each command implies keeps one place, the
// handler, that knows them; and the scratch shard, which has no Hub,
// publishes nothing itself. The new and expired events are not recorded:
// the owner's table publishes them itself when the write-back creates a key
// or finds one expired.

// RecordedEvent is one recorded notification: the letter of its class (as
// notify-keyspace-events writes it), its event and its key, valid until the
// shard records again.
type RecordedEvent struct {
	Class, Event, Key []byte
}

type recordedEvent struct {
	class      byte
	start, end int // the event then the key, in recBuf
	keyAt      int
}

// StartRecording makes the shard keep the notifications its Events enable,
// rather than publish them, until Recorded. It also notes which keys its
// tables see written (Touched), whether or not notifications are on: a
// write that leaves a value as it was (SUNIONSTORE of the same result) still
// touches the key for WATCH, and its write-back must too. A shard that
// records has no WATCH of its own.
func (s *Shard) StartRecording() {
	s.recording = true
	s.recorded = s.recorded[:0]
	s.recBuf = s.recBuf[:0]
	s.touches = s.touches[:0]
	for _, t := range s.DBs {
		t.SetWatcher(touchRecorder{s})
	}
}

// Recorded stops recording and returns the notifications recorded since
// StartRecording, in their order.
func (s *Shard) Recorded() []RecordedEvent {
	s.recording = false
	for _, t := range s.DBs {
		t.SetWatcher(nil)
	}
	s.recordedOut = s.recordedOut[:0]
	for _, r := range s.recorded {
		s.recordedOut = append(s.recordedOut, RecordedEvent{
			Class: notifyClassLetters[r.class : r.class+1],
			Event: s.recBuf[r.start:r.keyAt:r.keyAt],
			Key:   s.recBuf[r.keyAt:r.end:r.end],
		})
	}
	return s.recordedOut
}

// Touched reports whether the shard's tables saw key written, its TTL
// changed or it deleted between StartRecording and Recorded.
func (s *Shard) Touched(key []byte) bool {
	for b := s.touches; len(b) > 0; {
		n, w := binary.Uvarint(b)
		k := b[w : w+int(n)]
		if bytes.Equal(k, key) {
			return true
		}
		b = b[w+int(n):]
	}
	return false
}

// touchRecorder is a recording shard's tables' kvtable.Watcher.
type touchRecorder struct{ s *Shard }

func (r touchRecorder) Touched(key []byte, _ bool) {
	r.s.touches = binary.AppendUvarint(r.s.touches, uint64(len(key)))
	r.s.touches = append(r.s.touches, key...)
}

func (r touchRecorder) Clearing() {}

// notifyClassLetters holds each class's letter at the class's bit index.
var notifyClassLetters = func() []byte {
	b := make([]byte, 16)
	for _, l := range notifyLetters {
		b[bits.TrailingZeros(uint(l.class))] = l.letter
	}
	return b
}()

func (s *Shard) record(class int, event string, key []byte) {
	start := len(s.recBuf)
	s.recBuf = append(s.recBuf, event...)
	keyAt := len(s.recBuf)
	s.recBuf = append(s.recBuf, key...)
	s.recorded = append(s.recorded, recordedEvent{
		class: byte(bits.TrailingZeros(uint(class))), start: start, keyAt: keyAt, end: len(s.recBuf)})
}

// notifyClassOf returns the class whose letter is l, or 0.
func notifyClassOf(l byte) int {
	for _, n := range notifyLetters {
		if n.letter == l {
			return n.class
		}
	}
	return 0
}
