package script

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// replyParser turns a command's RESP reply into the Lua value redis.call
// returns, as Redis's redisProtocolToLuaType does:
//
//	integer        number
//	bulk string    string
//	null bulk      false
//	null array     false
//	array          table of the elements (a RESP3 null leaves a hole)
//	status         {ok=<text>}
//	error          {err=<text>} (raised by redis.call)
//	RESP3 map      {map={[k]=v, ...}}
//	RESP3 set      {set={[e]=true, ...}}
//	RESP3 null     nil
//	RESP3 boolean  true or false
//	RESP3 double   {double=<number>}
//	RESP3 big num  {big_number=<text>}
//	RESP3 verbatim {verbatim_string={format=<3 letters>, string=<text>}}
//	RESP3 attribute  skipped, the value after it taken
//
// The host writes the replies, so they are trusted to be whole RESP, but a
// malformed one gives an error table rather than a crash.
type replyParser struct {
	b   []byte
	pos int
	L   *lua.LState
	bad bool
}

// maxReplyDepth bounds the nesting of a reply the parser follows.
const maxReplyDepth = 1000

// errBadReply is the error table text in place of a malformed reply.
const errBadReply = "-ERR the command's reply is not valid RESP"

// toLua converts reply, reporting whether it is an error reply (whose
// error table redis.call raises).
func (p *replyParser) toLua(L *lua.LState, reply []byte) (lua.LValue, bool) {
	p.b, p.pos, p.L, p.bad = reply, 0, L, false
	isErr := len(reply) > 0 && (reply[0] == '-' || reply[0] == '!')
	v := p.value(0)
	p.b, p.L = nil, nil
	if p.bad {
		t := errorTable(L, errBadReply)
		return t, true
	}
	return v, isErr
}

// line returns the bytes after the type byte up to CRLF.
func (p *replyParser) line() []byte {
	start := p.pos + 1
	for i := start; i+1 < len(p.b); i++ {
		if p.b[i] == '\r' && p.b[i+1] == '\n' {
			p.pos = i + 2
			return p.b[start:i]
		}
	}
	p.bad = true
	p.pos = len(p.b)
	return nil
}

func (p *replyParser) length() int64 {
	n, err := strconv.ParseInt(string(p.line()), 10, 64)
	if err != nil || n < -1 {
		p.bad = true
		return 0
	}
	return n
}

// blob reads n bytes and their CRLF.
func (p *replyParser) blob(n int64) []byte {
	if n < 0 || int64(len(p.b)-p.pos) < n+2 {
		p.bad = true
		p.pos = len(p.b)
		return nil
	}
	b := p.b[p.pos : p.pos+int(n)]
	if p.b[p.pos+int(n)] != '\r' || p.b[p.pos+int(n)+1] != '\n' {
		p.bad = true
	}
	p.pos += int(n) + 2
	return b
}

// count is an aggregate's length, bounded by what the rest of the reply
// can hold (each element takes 3 bytes or more).
func (p *replyParser) count() int {
	n := p.length()
	if n < 0 || n > int64(len(p.b)-p.pos)/3+1 {
		p.bad = true
		return 0
	}
	return int(n)
}

func (p *replyParser) value(depth int) lua.LValue {
	if p.bad || p.pos >= len(p.b) || depth > maxReplyDepth {
		p.bad = true
		return lua.LNil
	}
	L := p.L
	switch p.b[p.pos] {
	case ':':
		n, err := strconv.ParseInt(string(p.line()), 10, 64)
		if err != nil {
			p.bad = true
		}
		return lua.LNumber(n)
	case '$':
		n := p.length()
		if n == -1 {
			return lua.LFalse
		}
		return lua.LString(p.blob(n))
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(p.line()))
		return t
	case '-':
		return commandErrorTable(L, "-"+string(p.line()))
	case '!':
		// A RESP3 blob error: no Redis 7.0 command replies with one, but it
		// reads as the error it holds.
		s := p.blob(p.length())
		return commandErrorTable(L, "-"+string(s))
	case '>':
		// Redis's reply parser has no push type: the call gets nil (only
		// DEBUG PROTOCOL push answers one to a script).
		p.pos = len(p.b)
		return lua.LNil
	case '*':
		if p.peekNull() {
			return lua.LFalse
		}
		n := p.count()
		t := L.CreateTable(n, 0)
		for i := 1; i <= n && !p.bad; i++ {
			v := p.value(depth + 1)
			if v != lua.LNil {
				t.RawSetInt(i, v)
			}
		}
		return t
	case '%':
		n := p.count()
		m := L.CreateTable(0, n)
		for i := 0; i < n && !p.bad; i++ {
			k := p.value(depth + 1)
			v := p.value(depth + 1)
			setField(m, k, v)
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("map", m)
		return t
	case '~':
		n := p.count()
		s := L.CreateTable(0, n)
		for i := 0; i < n && !p.bad; i++ {
			setField(s, p.value(depth+1), lua.LTrue)
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("set", s)
		return t
	case '_':
		p.line()
		return lua.LNil
	case '#':
		l := p.line()
		return lua.LBool(len(l) > 0 && l[0] == 't')
	case ',':
		l := p.line()
		d := 0.0
		if len(l) <= 5*1024 {
			d, _ = str2d(string(l))
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(d))
		return t
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(p.line()))
		return t
	case '=':
		s := p.blob(p.length())
		if len(s) < 4 {
			p.bad = true
			return lua.LNil
		}
		v := L.CreateTable(0, 2)
		v.RawSetString("string", lua.LString(s[4:]))
		v.RawSetString("format", lua.LString(s[:3]))
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", v)
		return t
	case '|':
		n := p.count()
		for i := 0; i < 2*n && !p.bad; i++ {
			p.value(depth + 1) // not shown to scripts, as in Redis
		}
		return p.value(depth)
	}
	p.bad = true
	return lua.LNil
}

// peekNull reports whether the aggregate header at pos is *-1.
func (p *replyParser) peekNull() bool {
	b := p.b[p.pos:]
	if len(b) >= 5 && b[1] == '-' && b[2] == '1' && b[3] == '\r' && b[4] == '\n' {
		p.pos += 5
		return true
	}
	return false
}

// setField sets t[k] = v as lua_settable would, leaving out the keys a Lua
// table cannot hold (nil, NaN).
func setField(t *lua.LTable, k, v lua.LValue) {
	switch x := k.(type) {
	case *lua.LNilType:
		return
	case lua.LNumber:
		if math.IsNaN(float64(x)) {
			return
		}
	}
	t.RawSet(k, v)
}

// commandErrorTable is the table of a command's error reply, marked as
// counted already. Its fields go in the order Lua's hash puts them in
// Redis (ignore_error_stats_update first), which gopher-lua keeps as the
// order of insertion, so that cjson.encode and pairs see Redis's order.
func commandErrorTable(L *lua.LState, text string) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("ignore_error_stats_update", lua.LTrue)
	t.RawSetString("err", lua.LString(errorText(text)))
	return t
}
