package shardowner

import (
	"strings"
	"testing"
)

func TestNotifyClassesString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""}, {"gK", "gK"}, {"AKEmn", "AKEm"}, {"nt$lsKd", "$lstdnK"}, {"AA", "A"},
		{"Eg$lshzxetdK", "AKE"}, {"KEA", "AKE"}, {"mE", "Em"}, {"xe", "xe"},
	} {
		c, ok := ParseNotifyClasses(tt.in)
		if !ok {
			t.Errorf("%q refused", tt.in)
			continue
		}
		if got := NotifyClassesString(c); got != tt.want {
			t.Errorf("%q reads back as %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"Q", "gK ", "a", "k"} {
		if _, ok := ParseNotifyClasses(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzNotifyClasses: any accepted value reads back as a value that parses
// to the same classes, but for n, which A hides.
func FuzzNotifyClasses(f *testing.F) {
	for _, s := range []string{"", "KEA", "gK", "AKEmn", "nt$lsKd", "Q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseNotifyClasses(s)
		if !ok {
			return
		}
		back := NotifyClassesString(c)
		c2, ok := ParseNotifyClasses(back)
		if !ok {
			t.Fatalf("%q reads back as %q, which is refused", s, back)
		}
		want := c
		if c&NotifyAll == NotifyAll {
			want &^= NotifyNew
		}
		if c2 != want {
			t.Fatalf("%q: classes %b read back as %q: %b", s, c, back, c2)
		}
	})
}

// hubLog is a Hub that keeps what the shard broadcasts.
type hubLog struct{ msgs []string }

func (h *hubLog) Publish(channel, msg []byte, sharded bool) int { return 0 }
func (h *hubLog) Monitor(line []byte)                           {}
func (h *hubLog) Broadcast(channel, msg []byte) {
	h.msgs = append(h.msgs, string(channel)+"="+string(msg))
}

// TestRecordAndReplay: a recording shard keeps its handlers' events, and
// corekv.restore publishes them on the key's owner after its write.
func TestRecordAndReplay(t *testing.T) {
	events := &NotifyConfig{}
	events.Classes.Store(NotifyKeyevent | NotifyAll)
	sc := newTestCtx()
	sc.Shard.Events = events
	do(sc, "sadd", "src", "a")
	do(sc, "sadd", "dst", "b")
	sc.Shard.StartRecording()
	if got := do(sc, "smove", "src", "dst", "a"); got != ":1\r\n" {
		t.Fatalf("smove: %q", got)
	}
	var rec []string
	for _, e := range sc.Shard.Recorded() {
		rec = append(rec, string(e.Class)+" "+string(e.Event)+" "+string(e.Key))
	}
	if want := "s srem src|g del src|s sadd dst"; strings.Join(rec, "|") != want {
		t.Errorf("recorded %q, want %q", rec, want)
	}

	owner := newTestCtx()
	hub := &hubLog{}
	owner.Shard.Events, owner.Shard.Hub = events, hub
	do(owner, "sadd", "src", "a")
	hub.msgs = nil
	for _, tt := range []struct {
		args []string
		want string
		msgs string
	}{
		{[]string{"corekv.restore", "src", "", "del", "s", "srem", "g", "del"}, ":1\r\n",
			"__keyevent@0__:srem=src|__keyevent@0__:del=src"},
		{[]string{"corekv.restore", "gone", "", "none", "m", "keymiss"}, ":1\r\n", ""},
		{[]string{"corekv.restore", "src", "", "del", "s"}, "-ERR syntax error\r\n", ""},
		{[]string{"corekv.restore", "src", "", "del", "sx", "srem"}, "-ERR syntax error\r\n", ""},
		{[]string{"corekv.restore", "src", "", "del", "Q", "srem"}, "-ERR syntax error\r\n", ""},
	} {
		hub.msgs = nil
		if got := do(owner, tt.args...); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
		if got := strings.Join(hub.msgs, "|"); got != tt.msgs {
			t.Errorf("%q published %q, want %q", tt.args, got, tt.msgs)
		}
	}
	if got := do(owner, "exists", "src"); got != ":0\r\n" {
		t.Errorf("src after the del write-back: exists %q", got)
	}
}
