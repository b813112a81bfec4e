package shardowner

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/rdbfile"
)

func init() {
	handlers["dump"], handlers["restore"] = Dump, Restore
}

// Payloads redis-server 7.0.15 answered DUMP with, as redis-cli prints them.
const (
	redisDumpHello  = "\x00\x05hello\n\x00cr\xdfve4 \n"                                                                                                                    // SET s1 hello
	redisDumpLZF    = "\x00\xc3\t@d\x01aa\xe0W\x00\x01aa\n\x00\xe8\xa3\xb5\a\xb0m\xf2q"                                                                                    // 100 a's
	redisDumpList   = "\x12\x01\x02\x1c\x1c\x00\x00\x00\a\x00\x81a\x02\x81b\x02\x81c\x02\x01\x01\x02\x01\xc1,\x02\xf2\x90\xee\xfe\x04\xff\n\x00\x06\x88\xb5\xd5\xfa}_\x8e" // RPUSH a b c 1 2 300 -70000
	redisDumpIntset = "\x0b\x0e\x02\x00\x00\x00\x03\x00\x00\x00\x01\x00\x02\x00\x03\x00\n\x00\xa5\x02\\\xe2mnM\x1b"                                                        // SADD 1 2 3
	redisDumpHash   = "\x10\x15\x15\x00\x00\x00\x04\x00\x82f1\x03\x82v1\x03\x82f2\x03\x16\x01\xff\n\x00yN\xe6.\x9cH\xa9\x0c"                                               // HSET f1 v1 f2 22
	redisDumpZSetLP = "\x11\x1d\x1d\x00\x00\x00\x06\x00\x81c\x02\x84-inf\x05\x81a\x02\x01\x01\x81b\x02\x832.5\x04\xff\n\x009\x923\x9b\xe1\x1f2="                           // ZADD 1 a 2.5 b -inf c
)

func TestRDBCRC(t *testing.T) {
	// The check value of Redis's crc64 (its own self-test).
	if got := rdbfile.CRC([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %#x", got)
	}
	for _, p := range []string{redisDumpHello, redisDumpLZF, redisDumpList, redisDumpIntset, redisDumpHash, redisDumpZSetLP} {
		if !payloadOK([]byte(p)) {
			t.Errorf("payload %q: footer refused", p)
		}
	}
}

func TestRestoreRedisPayloads(t *testing.T) {
	c := newTestCtx()
	steps := []struct{ payload, check, want string }{
		{redisDumpHello, "get k", bulk("hello")},
		{redisDumpLZF, "get k", bulk(strings.Repeat("a", 100))},
		{redisDumpList, "lrange k 0 -1", "*7\r\n" + bulk("a") + bulk("b") + bulk("c") + bulk("1") + bulk("2") + bulk("300") + bulk("-70000")},
		{redisDumpIntset, "object encoding k", bulk("intset")},
		{redisDumpHash, "hgetall k", "*4\r\n" + bulk("f1") + bulk("v1") + bulk("f2") + bulk("22")},
		{redisDumpZSetLP, "zrange k 0 -1 withscores", "*6\r\n" + bulk("c") + bulk("-inf") + bulk("a") + bulk("1") + bulk("b") + bulk("2.5")},
	}
	for _, s := range steps {
		if got := do(c, "restore", "k", "0", s.payload, "replace"); got != ok {
			t.Fatalf("restore %q: %q", s.payload, got)
		}
		if got := do(c, strings.Fields(s.check)...); got != s.want {
			t.Errorf("%q after restore of %q: got %q, want %q", s.check, s.payload, got, s.want)
		}
	}
}

// payload wraps an object in a footer of version 10 and its checksum.
func payload(obj string) string { return string(appendPayloadFooter([]byte(obj))) }

func TestRestoreReplies(t *testing.T) {
	hello := redisDumpHello
	payloads := map[string]string{
		"HELLO":  hello,
		"BADCRC": hello[:len(hello)-1] + "x",
		"NEWER":  string(appendPayloadFooterVersion([]byte("\x00\x01a"), 11)),
		"NOTYPE": payload("\x07\x01a"),
		"EMPTY":  payload("\x01\x00"),
	}
	for _, tc := range []scriptCase{
		{"busy key and replace", []step{
			{"set k old", ok},
			{"restore k 0 HELLO", errr(errBusyKey)},
			{"restore k 0 HELLO REPLACE", ok},
			{"get k", bulk("hello")},
			{"ttl k", num(-1)},
		}},
		{"checks in Redis's order", []step{
			{"set k old", ok},
			{"restore k x  BADCRC", errr(errBusyKey)},
			{"restore k2 x  BADCRC", errr(resp.ErrNotInteger)},
			{"restore k2 -1  BADCRC", errr(errRestoreTTL)},
			{"restore k2 0  BADCRC", errr(errBadPayload)},
			{"restore k2 0  NEWER", errr(errBadPayload)},
			{"restore k2 0 short", errr(errBadPayload)},
			{"restore k2 0  NOTYPE", errr(errBadDataFormat)},
			{"restore k2 0  EMPTY", errr(errBadDataFormat)}, // an empty list
			{"exists k2", num(0)},
		}},
		{"options", []step{
			{"restore k 0 HELLO bogus", errr(resp.ErrSyntax)},
			{"restore k 0 HELLO idletime", errr(resp.ErrSyntax)},
			{"restore k 0 HELLO idletime x", errr(resp.ErrNotInteger)},
			{"restore k 0 HELLO idletime -1", errr(errIdleTime)},
			{"restore k 0 HELLO freq 256", errr(errFreq)},
			{"restore k 0 HELLO freq -1", errr(errFreq)},
			{"restore k 0 HELLO idletime 5 freq 5", errr(resp.ErrSyntax)},
			{"restore k 0 HELLO freq 5 idletime 5", errr(resp.ErrSyntax)},
			{"restore k 0 HELLO idletime 5 idletime 6", ok},
			{"restore k 0 HELLO freq 255 replace absttl", ok},
		}},
		{"ttl", []step{
			{"restore k 5000 HELLO", ok},
			{"pttl k", num(5000)},
			{"restore k2 " + strconv.FormatInt(testNow+7000, 10) + " HELLO absttl", ok},
			{"pttl k2", num(7000)},
			{"restore k3 " + strconv.FormatInt(testNow-1, 10) + " HELLO absttl", ok},
			{"exists k3", num(0)},
			{"restore k 1 HELLO absttl replace", ok}, // past: the old key goes
			{"exists k", num(0)},
			{"restore k 9223372036854775807 HELLO", ok}, // wraps into the past, as in Redis
			{"exists k", num(0)},
		}},
		{"dump", []step{
			{"dump nope", null},
			{"set k hello", ok},
			{"dump k", bulk(hello)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCtx()
			for i, s := range tc.steps {
				args := strings.Fields(s.cmd)
				for j, a := range args {
					if p, ok := payloads[a]; ok {
						args[j] = p
					}
				}
				if got := do(c, args...); got != s.want {
					t.Fatalf("step %d %q: got %q, want %q", i, s.cmd, got, s.want)
				}
			}
		})
	}
}

// appendPayloadFooterVersion is appendPayloadFooter with another version.
func appendPayloadFooterVersion(dst []byte, v uint16) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, v)
	return binary.LittleEndian.AppendUint64(dst, rdbfile.CRC(dst))
}

// TestDumpRestoreRoundTrip restores what DUMP gives for every type and
// encoding, and compares.
func TestDumpRestoreRoundTrip(t *testing.T) {
	c := newTestCtx()
	long := strings.Repeat("x", 100)
	setup := [][]string{
		{"set", "s", "hello"}, {"set", "i", "-12345678901"}, {"set", "l", long},
		{"rpush", "list", "a", "1", long, ""},
		{"sadd", "iset", "1", "2", "-3"}, {"sadd", "pset", "a", "b"}, {"sadd", "bset", long, "b"},
		{"hset", "ph", "f", "v", "n", "12"}, {"hset", "bh", "f", long},
		{"zadd", "pz", "1", "a", "-inf", "b", "2.5", "c"}, {"zadd", "bz", "1", long, "2", "b"},
	}
	checks := map[string]string{
		"s": "get", "i": "get", "l": "get", "list": "lrange 0 -1",
		"iset": "smembers", "pset": "smembers", "bset": "smembers",
		"ph": "hgetall", "bh": "hgetall", "pz": "zrange 0 -1 withscores", "bz": "zrange 0 -1 withscores",
	}
	for _, s := range setup {
		do(c, s...)
	}
	for key, check := range checks {
		f := strings.Fields(check)
		args := append([]string{f[0], key}, f[1:]...)
		want := do(c, args...)
		enc := do(c, "object", "encoding", key)
		dump := do(c, "dump", key)
		p := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
		if got := do(c, "restore", key+"2", "0", p); got != ok {
			t.Fatalf("restore %s: %q", key, got)
		}
		args[1] = key + "2"
		if got := do(c, args...); got != want && f[0] != "smembers" {
			t.Errorf("%s: got %q, want %q", key, got, want)
		}
		if got := do(c, "object", "encoding", key+"2"); got != enc {
			t.Errorf("%s: encoding %q, want %q", key, got, enc)
		}
	}
}

// testListpack builds a listpack of strings and 7-bit integers.
func testListpack(entries ...any) string {
	var body []byte
	for _, e := range entries {
		var enc []byte
		switch e := e.(type) {
		case int:
			enc = []byte{byte(e)}
		case string:
			enc = append([]byte{0x80 | byte(len(e))}, e...)
			if len(e) >= 64 {
				enc = append([]byte{0xe0 | byte(len(e)>>8), byte(len(e))}, e...)
			}
		}
		body = append(body, enc...)
		if l := len(enc); l < 128 {
			body = append(body, byte(l))
		} else {
			body = append(body, byte(l>>7), byte(l&127)|128)
		}
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(6+len(body)+1))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	return string(append(append(b, body...), 0xff))
}

// testZiplist builds a ziplist of strings and 8-bit integers.
func testZiplist(entries ...any) string {
	var body []byte
	prev, tail := 0, 10
	for _, e := range entries {
		ent := []byte{byte(prev)}
		switch e := e.(type) {
		case int:
			ent = append(ent, 0xfe, byte(int8(e)))
		case string:
			if len(e) < 64 {
				ent = append(append(ent, byte(len(e))), e...)
			} else {
				ent = append(append(ent, 0x40|byte(len(e)>>8), byte(len(e))), e...)
			}
		}
		tail = 10 + len(body)
		body = append(body, ent...)
		prev = len(ent)
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(10+len(body)+1))
	b = binary.LittleEndian.AppendUint32(b, uint32(tail))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	return string(append(append(b, body...), 0xff))
}

// rdbStr is s as an RDB string.
func rdbStr(s string) string { return string(rdbfile.AppendRawString(nil, []byte(s))) }

// TestRestoreEdgePayloads pins what RESTORE does with payloads redis-server
// 7.0.15 was asked about by hand: the reply, the encoding, and the value.
func TestRestoreEdgePayloads(t *testing.T) {
	long := strings.Repeat("v", 70)
	intset := func(w uint32, xs ...int16) string {
		b := binary.LittleEndian.AppendUint32(nil, w)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(xs)))
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
		return string(b)
	}
	bad := errr(errBadDataFormat)
	tests := []struct {
		name, obj, reply, check, want string
	}{
		{"set repeats a member", "\x02\x02\x01a\x01a", bad, "", ""},
		{"hash repeats a field", "\x04\x02\x01f\x011\x01f\x012", bad, "", ""},
		{"ziplist hash repeats a field", "\x0d" + rdbStr(testZiplist("f", "1", "f", "2")), bad, "", ""},
		{"NaN score", "\x05\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x7f", bad, "", ""},
		{"NaN text score", "\x03\x01\x01a\xfd", bad, "", ""},
		{"sorted set repeats a member", "\x05\x02\x01a\x00\x00\x00\x00\x00\x00\xf0\x3f\x01a\x00\x00\x00\x00\x00\x00\x00\x40", bad, "", ""},
		{"listpack hash keeps long values", "\x10" + rdbStr(testListpack("f", long)), ok, "object encoding k", bulk("listpack")},
		{"ziplist hash keeps long values", "\x0d" + rdbStr(testZiplist("f", long)), ok, "object encoding k", bulk("listpack")},
		{"listpack sorted set keeps long members", "\x11" + rdbStr(testListpack(long, 1)), ok, "object encoding k", bulk("listpack")},
		{"ziplist sorted set keeps long members", "\x0c" + rdbStr(testZiplist(long, 1)), ok, "object encoding k", bulk("listpack")},
		{"plain hash with a long value", "\x04\x01\x01f" + rdbStr(long), ok, "object encoding k", bulk("hashtable")},
		{"unsorted listpack sorted set", "\x11" + rdbStr(testListpack("b", 1, "a", 2, "c", 0)), ok, "zrange k 0 -1", "*3\r\n" + bulk("c") + bulk("b") + bulk("a")},
		{"listpack score that is no number", "\x11" + rdbStr(testListpack("a", "junk", "b", "1e", "c", " 2x")), ok, "zrange k 0 -1 withscores", "*6\r\n" + bulk("a") + bulk("0") + bulk("b") + bulk("1") + bulk("c") + bulk("2")},
		{"text score read as sscanf", "\x03\x02\x01a\x05 1.5x\x01b\x033\x005", ok, "zrange k 0 -1 withscores", "*4\r\n" + bulk("a") + bulk("1.5") + bulk("b") + bulk("3")},
		{"text score that is no number", "\x03\x01\x01a\x03abc", bad, "", ""},
		{"unsorted intset", "\x0b" + rdbStr(intset(2, 5, 3)), ok, "smembers k", "*2\r\n" + bulk("3") + bulk("5")},
		{"intset repeats a member", "\x0b" + rdbStr(intset(2, 5, 5)), ok, "scard k", num(1)},
		{"intset of a bad width", "\x0b" + rdbStr(intset(3, 5)), bad, "", ""},
		{"LZF of nothing", "\x00\xc3\x03\x00abc", ok, "get k", empty},
		{"LZF past its data", "\x00\xc3\x00\x03", bad, "", ""},
		{"quicklist 2 with an empty node", "\x12\x02\x02" + rdbStr(testListpack()) + "\x02" + rdbStr(testListpack("x")), ok, "lrange k 0 -1", "*1\r\n" + bulk("x")},
		{"quicklist 2 of only an empty node", "\x12\x01\x02" + rdbStr(testListpack()), bad, "", ""},
		{"quicklist 2 plain node", "\x12\x01\x01" + rdbStr("hello"), ok, "lrange k 0 -1", "*1\r\n" + bulk("hello")},
		{"quicklist 1", "\x0e\x01" + rdbStr(testZiplist("a", 5, "c")), ok, "lrange k 0 -1", "*3\r\n" + bulk("a") + bulk("5") + bulk("c")},
		{"ziplist list", "\x0a" + rdbStr(testZiplist("a", -5)), ok, "lrange k 0 -1", "*2\r\n" + bulk("a") + bulk("-5")},
		{"empty ziplist sorted set", "\x0c" + rdbStr(testZiplist()), bad, "", ""},
		{"ziplist sorted set of an odd count", "\x0c" + rdbStr(testZiplist("a")), bad, "", ""},
		{"bytes after the object", "\x01\x01\x01agarbage", ok, "llen k", num(1)},
		{"string that runs into the footer", "\x00\x0fabc", bad, "", ""},
		{"count past the payload", "\x01\x80\xff\xff\xff\xff", bad, "", ""},
		{"zipmap", "\x09\x01\x00", bad, "", ""},
	}
	for _, tt := range tests {
		c := newTestCtx()
		if got := do(c, "restore", "k", "0", payload(tt.obj)); got != tt.reply {
			t.Errorf("%s: restore %q", tt.name, got)
			continue
		}
		if tt.check != "" {
			if got := do(c, strings.Fields(tt.check)...); got != tt.want {
				t.Errorf("%s: %s = %q, want %q", tt.name, tt.check, got, tt.want)
			}
		} else if do(c, "exists", "k") != num(0) {
			t.Errorf("%s: a refused payload made a key", tt.name)
		}
	}
}

// TestRestoreEvents: RESTORE publishes new and restore for a key it makes,
// also one REPLACE removed first, and del alone when a past TTL leaves the
// replaced key gone; DUMP of a missing key is a keymiss; as redis-server
// 7.0.15 does.
func TestRestoreEvents(t *testing.T) {
	events := &NotifyConfig{}
	events.Classes.Store(NotifyKeyevent | NotifyAll | NotifyNew | NotifyKeyMiss)
	c := newTestCtx()
	hub := &hubLog{}
	c.Shard.Events, c.Shard.Hub = events, hub
	p := redisDumpHello
	for _, tt := range []struct {
		args []string
		msgs string
	}{
		{[]string{"restore", "k", "0", p}, "__keyevent@0__:new=k|__keyevent@0__:restore=k"},
		{[]string{"restore", "k", "0", p, "replace"}, "__keyevent@0__:new=k|__keyevent@0__:restore=k"},
		{[]string{"restore", "k", "1", p, "replace", "absttl"}, "__keyevent@0__:del=k"},
		{[]string{"restore", "k", "1", p, "absttl"}, ""},
		{[]string{"restore", "k", "0", "x"}, ""},
		{[]string{"dump", "nokey"}, "__keyevent@0__:keymiss=nokey"},
		{[]string{"restore", "k", "0", p}, "__keyevent@0__:new=k|__keyevent@0__:restore=k"},
		{[]string{"dump", "k"}, ""},
	} {
		hub.msgs = nil
		do(c, tt.args...)
		if got := strings.Join(hub.msgs, "|"); got != tt.msgs {
			t.Errorf("%q published %q, want %q", tt.args[min(len(tt.args), 3):], got, tt.msgs)
		}
	}
}

// TestRestoreTouchesWatch: a RESTORE that writes the key, or whose past TTL
// deletes the key REPLACE names, touches a WATCH of it; one that leaves
// nothing changed does not, as in redis-server 7.0.15.
func TestRestoreTouchesWatch(t *testing.T) {
	p := redisDumpHello
	for _, tc := range []struct {
		name    string
		setup   [][]string
		restore []string
		touched bool
	}{
		{"new key", nil, []string{"restore", "x", "0", p}, true},
		{"replace", [][]string{{"set", "x", "1"}}, []string{"restore", "x", "0", p, "replace"}, true},
		{"busy key", [][]string{{"set", "x", "1"}}, []string{"restore", "x", "0", p}, false},
		{"bad payload", nil, []string{"restore", "x", "0", "nope"}, false},
		{"past ttl, replace", [][]string{{"set", "x", "1"}}, []string{"restore", "x", "1", p, "absttl", "replace"}, true},
		{"past ttl, no key", nil, []string{"restore", "x", "1", p, "absttl"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCtx()
			for _, s := range tc.setup {
				do(c, s...)
			}
			if r := do(c, "corekv.watch", "7", "x"); r != ok {
				t.Fatalf("corekv.watch: %q", r)
			}
			do(c, tc.restore...)
			if got := watched(t, c, "7"); got != tc.touched {
				t.Fatalf("touched = %v, want %v", got, tc.touched)
			}
		})
	}
}

func TestStrtodPrefix(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true}, {" \t2x", 2, true}, {"5.", 5, true}, {".5e1z", 5, true}, {"1e", 1, true},
		{"1e+", 1, true}, {"-2E-1", -0.2, true}, {"+inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true},
		{"INFx", math.Inf(1), true}, {"0x10", 0, true}, {"1e999", math.Inf(1), true},
		{"", 0, false}, {".", 0, false}, {"-", 0, false}, {"abc", 0, false}, {"e5", 0, false},
	} {
		got, ok := strtodPrefix([]byte(tt.in))
		if ok != tt.ok || got != tt.want {
			t.Errorf("%q: %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := strtodPrefix([]byte("nan")); !ok || !math.IsNaN(f) {
		t.Errorf("nan: %v %v", f, ok)
	}
}

// TestDumpCountsLookups: DUMP's lookup is a keyspace hit or miss, as
// redis-server 7.0.15 counts it.
func TestDumpCountsLookups(t *testing.T) {
	c := newTestCtx()
	do(c, "set", "k", "v")
	do(c, "dump", "k")
	do(c, "dump", "nokey")
	do(c, "dump", "nokey")
	if s := c.Shard.Stats; s.Hits != 1 || s.Misses != 2 {
		t.Fatalf("hits %d, misses %d; want 1 and 2", s.Hits, s.Misses)
	}
}

func TestLeInt(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want int64
	}{
		{[]byte{0x34, 0x12}, 0x1234},
		{[]byte{0xff, 0xff}, -1},
		{[]byte{0x00, 0x00, 0x80}, -1 << 23},
		{[]byte{0xff, 0xff, 0xff, 0x7f}, 1<<31 - 1},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0x80}, -1 << 63},
	} {
		if got := leInt(c.b); got != c.want {
			t.Errorf("leInt(% x) = %d, want %d", c.b, got, c.want)
		}
	}
}
