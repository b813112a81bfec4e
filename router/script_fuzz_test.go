package router

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/script"
)

// FuzzScriptCommand runs EVAL, EVALSHA, EVAL_RO and EVALSHA_RO with
// arbitrary bodies, key counts and keys, on one shard through Call and
// over three shards as a split (scriptplan.go), whose runs gather, lack
// keys and run again: each answers exactly one well-formed reply, the
// split frees every part it took, and nothing panics.
func FuzzScriptCommand(f *testing.F) {
	for _, seed := range []struct {
		body, keys string
		numkeys    int8
		mode       uint8
	}{
		{"return redis.call('incr', KEYS[1])", "a", 1, 0},
		{"redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[2])", "a,b,v", 2, 0},
		{"return redis.call('get', 'undeclared')", "a,b", 2, 0},
		{"local t = {} for i = 1, #KEYS do t[i] = redis.call('rpush', KEYS[i] .. ':l', i) end return t", "x,y,z", 3, 0},
		{"redis.call('select', 3) return redis.call('set', KEYS[1], 1)", "a,b", 2, 0},
		{"return redis.call('set', KEYS[1], 1)", "a,b", 2, 2},
		{"return {err='boom'}", "", 0, 1},
		{"while true do end", "", -1, 0},
		{"return redis.call('rename', KEYS[1], KEYS[2])", "a,b", 2, 3},
		{"return redis.pcall('lmove', KEYS[1], 'other', 'left', 'right')", "a,b", 2, 0},
	} {
		f.Add(seed.body, seed.keys, seed.numkeys, seed.mode)
	}
	names := []string{"eval", "evalsha", "eval_ro", "evalsha_ro"}
	one := newTestExec(1, false)
	three := newTestExec(3, true)
	f.Fuzz(func(t *testing.T, body, keys string, numkeys int8, mode uint8) {
		if len(body) > 4096 || strings.Contains(body, "while") || strings.Contains(body, "repeat") ||
			strings.Contains(body, "for") || strings.Contains(body, "goto") || strings.Contains(body, "function") || strings.Contains(body, "rep") {
			return // a script may loop for ever or fill memory, as in Redis
		}
		name := names[int(mode)%len(names)]
		cmd := LookupString(name)
		argv := [][]byte{[]byte(name), []byte(body), []byte(strconv.Itoa(int(numkeys)))}
		if name == "evalsha" || name == "evalsha_ro" {
			argv[1] = []byte(script.SHA1Hex([]byte(body)))
		}
		if keys != "" {
			for _, k := range strings.Split(keys, ",") {
				argv = append(argv, []byte(k))
			}
		}
		w := resp.Writer{Proto: 2}
		ctx := shardowner.Ctx{Shard: one.shards[0], W: &w}
		Call(&ctx, cmd, argv, Origin{Client: 1}, Now())
		if n := replyEnd(w.B); n != len(w.B) {
			t.Fatalf("%q on one shard: not one reply: %q", argv, w.B)
		}
		s := three.parent
		s.Reset()
		StartSplit(three, s, cmd, 0, 2, argv)
		three.drain()
		if !s.Filled || replyEnd(s.Reply) != len(s.Reply) {
			t.Fatalf("%q over three shards: filled %v, reply %q", argv, s.Filled, s.Reply)
		}
		if len(three.bad) > 0 || three.newSlots != three.freeSlots || len(three.live) != 0 {
			t.Fatalf("%q over three shards: exec misuse %v, %d slots taken, %d freed", argv, three.bad, three.newSlots, three.freeSlots)
		}
	})
}

// replyEnd is the length of the RESP2 reply b starts with, or -1.
func replyEnd(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	line := bytes.Index(b, []byte("\r\n"))
	if line < 0 {
		return -1
	}
	switch b[0] {
	case '+', '-', ':':
		return line + 2
	case '$':
		n, ok := resp.ParseInt(b[1:line])
		if !ok || n < -1 {
			return -1
		}
		if n == -1 {
			return line + 2
		}
		end := line + 2 + int(n) + 2
		if end > len(b) || string(b[end-2:end]) != "\r\n" {
			return -1
		}
		return end
	case '*':
		n, ok := resp.ParseInt(b[1:line])
		if !ok || n < -1 {
			return -1
		}
		at := line + 2
		for range max(n, 0) {
			m := replyEnd(b[at:])
			if m < 0 {
				return -1
			}
			at += m
		}
		return at
	}
	return -1
}
