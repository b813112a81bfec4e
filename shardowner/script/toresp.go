package script

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/corekv/corekv/resp"
)

// luaStackLimit is Lua 5.1's LUAI_MAXCSTACK: the stack slots a C function
// may use. Redis converts a script's reply on the Lua stack and gives up on
// a value nested so deep that 4 more slots would pass this limit, with
// "reached lua stack limit": the conversion here counts the slots Redis's
// would hold at each value, so that a table nested in itself ends at the
// same depth.
const luaStackLimit = 8000

// errStackLimit is the reply in place of a value nested too deep.
const errStackLimit Error = "ERR reached lua stack limit"

// writeReply writes v as luaReplyToRedisReply does, to w in w's protocol
// (the client's): slots is the Lua stack depth Redis would be at with v on
// top, scriptResp the protocol redis.setresp chose, which decides how
// booleans read. It reports whether v was written as an error reply and
// whether that error is a command's, already counted (Result.Counted).
func (e *Engine) writeReply(w *resp.Writer, v lua.LValue, slots, scriptResp int) (isErr, counted bool) {
	if slots+4 > luaStackLimit {
		w.Err(errStackLimit)
		return true, false
	}
	switch x := v.(type) {
	case lua.LString:
		w.Bulk(stringBytes(string(x)))
	case lua.LBool:
		switch {
		case scriptResp == 2 && bool(x):
			w.Int(1)
		case scriptResp == 2:
			w.Null()
		case !w.RESP3():
			if x {
				w.Int(1)
			} else {
				w.Int(0)
			}
		case bool(x):
			w.B = append(w.B, "#t\r\n"...)
		default:
			w.B = append(w.B, "#f\r\n"...)
		}
	case lua.LNumber:
		w.Int(luaInt(float64(x)))
	case *lua.LTable:
		return e.writeTable(w, x, slots, scriptResp)
	default:
		w.Null()
	}
	return false, false
}

// writeTable writes a table reply: error, status, double, big number,
// verbatim string, map, set, in that order of precedence, else an array of
// the values at 1, 2, … up to the first nil. Fields are read raw, as Redis
// reads them: no metamethod runs.
func (e *Engine) writeTable(w *resp.Writer, t *lua.LTable, slots, scriptResp int) (isErr, counted bool) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		// "-%s" with the message as a C string, trailing CR and LF trimmed:
		// no ERR is added, what the table says is the whole error.
		w.Err(Error(trimCRLF(cString(string(s)))))
		return true, t.RawGetString("ignore_error_stats_update") == lua.LTrue
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.B = append(w.B, '+')
		w.B = appendNoCRLF(w.B, cString(string(s)))
		w.B = append(w.B, '\r', '\n')
		return false, false
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		writeDouble(w, float64(d))
		return false, false
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		if w.RESP3() {
			w.B = append(w.B, '(')
			w.B = appendNoCRLF(w.B, string(s))
			w.B = append(w.B, '\r', '\n')
		} else {
			w.B = append(w.B, '$')
			w.B = strconv.AppendInt(w.B, int64(len(s)), 10)
			w.B = append(w.B, '\r', '\n')
			w.B = appendNoCRLF(w.B, string(s))
			w.B = append(w.B, '\r', '\n')
		}
		return false, false
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, fok := vt.RawGetString("format").(lua.LString)
		str, sok := vt.RawGetString("string").(lua.LString)
		if fok && sok {
			writeVerbatim(w, cString(string(format)), string(str))
			return false, false
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		n := 0
		for k, _ := m.Next(lua.LNil); k != lua.LNil; k, _ = m.Next(k) {
			n++
		}
		w.Map(n)
		for k, v := m.Next(lua.LNil); k != lua.LNil; k, v = m.Next(k) {
			e.writeReply(w, k, slots+4, scriptResp)
			e.writeReply(w, v, slots+3, scriptResp)
		}
		return false, false
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			n++
		}
		w.Set(n)
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			e.writeReply(w, k, slots+3, scriptResp)
		}
		return false, false
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		e.writeReply(w, t.RawGetInt(i), slots+1, scriptResp)
	}
	return false, false
}

// appendNoCRLF appends s with CR and LF as spaces (sdsmapchars).
func appendNoCRLF(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// writeDouble is addReplyDouble: %.17g as a bulk string in RESP2, a double
// in RESP3; infinities as inf and -inf.
func writeDouble(w *resp.Writer, d float64) {
	var tmp [32]byte
	num := appendG(tmp[:0], d, 17)
	if w.RESP3() {
		w.B = append(w.B, ',')
		w.B = append(w.B, num...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(num)
}

// writeVerbatim is addReplyVerbatim: a bulk string in RESP2; in RESP3 the
// format's first three characters, padded with spaces.
func writeVerbatim(w *resp.Writer, format, s string) {
	if !w.RESP3() {
		w.BulkString(s)
		return
	}
	w.B = append(w.B, '=')
	w.B = strconv.AppendInt(w.B, int64(len(s)+4), 10)
	w.B = append(w.B, '\r', '\n')
	for i := 0; i < 3; i++ {
		if i < len(format) {
			w.B = append(w.B, format[i])
		} else {
			w.B = append(w.B, ' ')
		}
	}
	w.B = append(w.B, ':')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}
