package shardowner

import (
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
// notifications are off.
func (c *Ctx) Notify(class int, event string, key []byte) { c.Shard.notify(c.DB, class, event, key) }

func (s *Shard) notify(db, class int, event string, key []byte) {
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

// tableHook returns the function t calls for each key that expires or is
// created (kvtable.Table.OnExpire, OnNew), which publishes event of class
// from t's database.
func (s *Shard) tableHook(t *Table, class int, event string) func(key []byte) {
	return func(key []byte) {
		if s.Events == nil || int(s.Events.Classes.Load())&class == 0 {
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
