package script

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// The cjson library, Lua CJSON 2.1.0 as Redis ships it: cjson.encode and
// cjson.decode with its settings, and cjson.null for JSON's null.
//
// The settings (encode_max_depth, encode_invalid_numbers, …) are the
// interpreter's, kept from script to script until SCRIPT FLUSH, as in
// Redis.

// cjsonConfig is json_config_t, less its buffers.
type cjsonConfig struct {
	sparseConvert  bool
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	// encodeInvalid: 0 off (error), 1 on (nan, inf), 2 null.
	encodeInvalid  int
	decodeInvalid  bool
	keepBuffer     bool
	numberPrecison int
}

func defaultCjsonConfig() cjsonConfig {
	return cjsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		decodeInvalid:  true,
		keepBuffer:     true,
		numberPrecison: 14,
	}
}

// cjson is the library's state in an Engine.
type cjson struct {
	cfg  cjsonConfig
	null *lua.LUserData
	buf  []byte
}

func (e *Engine) openCjson() *lua.LTable {
	L := e.vm
	j := &e.json
	j.cfg = defaultCjsonConfig()
	j.null = L.NewUserData()
	t := L.CreateTable(0, 12)
	set := func(name string, f func(L *lua.LState) int) { t.RawSetString(name, L.NewFunction(f)) }
	set("encode", j.encode)
	set("decode", j.decode)
	set("encode_sparse_array", func(L *lua.LState) int {
		cjsonArgs(L, 3)
		boolOption(L, 1, &j.cfg.sparseConvert)
		intOption(L, 2, &j.cfg.sparseRatio, 0, math.MaxInt32)
		intOption(L, 3, &j.cfg.sparseSafe, 0, math.MaxInt32)
		return 3
	})
	set("encode_max_depth", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		return intOption(L, 1, &j.cfg.encodeMaxDepth, 1, math.MaxInt32)
	})
	set("decode_max_depth", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		return intOption(L, 1, &j.cfg.decodeMaxDepth, 1, math.MaxInt32)
	})
	set("encode_number_precision", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		return intOption(L, 1, &j.cfg.numberPrecison, 1, 14)
	})
	set("encode_keep_buffer", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		return boolOption(L, 1, &j.cfg.keepBuffer)
	})
	set("encode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		v := L.Get(1)
		switch x := v.(type) {
		case *lua.LNilType:
		case lua.LBool:
			j.cfg.encodeInvalid = 0
			if x {
				j.cfg.encodeInvalid = 1
			}
		default:
			j.cfg.encodeInvalid = checkOption(L, 1, "encode_invalid_numbers", []string{"off", "on", "null"})
		}
		switch j.cfg.encodeInvalid {
		case 0:
			L.Push(lua.LFalse)
		case 1:
			L.Push(lua.LTrue)
		default:
			L.Push(lua.LString("null"))
		}
		return 1
	})
	set("decode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgs(L, 1)
		return boolOption(L, 1, &j.cfg.decodeInvalid)
	})
	set("new", func(L *lua.LState) int {
		// A fresh module with its own settings would need its own state;
		// Redis scripts get the one module. new() answers it.
		L.Push(t)
		return 1
	})
	t.RawSetString("null", j.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// cjsonArgs is json_arg_init: at most n arguments, the missing ones nil.
func cjsonArgs(L *lua.LState, n int) {
	if L.GetTop() > n {
		argErrorf(L, n+1, funcName(L), "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// funcName is the name the running Go function was called by, as Lua's
// argument errors name it.
func funcName(L *lua.LState) string {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("n", dbg, lua.LNil); err != nil || dbg.Name == "" {
		return "?"
	}
	return dbg.Name
}

// boolOption is json_enum_option for on/off settings.
func boolOption(L *lua.LState, n int, setting *bool) int {
	switch x := L.Get(n).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*setting = bool(x)
	default:
		*setting = checkOption(L, n, funcName(L), []string{"off", "on"}) == 1
	}
	L.Push(lua.LBool(*setting))
	return 1
}

// intOption is json_integer_option.
func intOption(L *lua.LState, n int, setting *int, min, max int) int {
	if L.Get(n) != lua.LNil {
		name := funcName(L)
		v := int(int32(luaInt(checkNumber(L, n, name))))
		if v < min || v > max {
			argErrorf(L, 1, name, "expected integer between "+strconv.Itoa(min)+" and "+strconv.Itoa(max))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
	return 1
}

// checkOption is luaL_checkoption without a default.
func checkOption(L *lua.LState, n int, fname string, options []string) int {
	s := checkString(L, n, fname)
	for i, o := range options {
		if o == s {
			return i
		}
	}
	argErrorf(L, n, fname, "invalid option '"+s+"'")
	return 0
}

// jsonEscape is char2escape: the escapes cjson writes, nil for a byte
// written as it is. '/' is escaped, and so is DEL; bytes from 0x80 pass.
var jsonEscape = func() [256]string {
	var t [256]string
	const hexd = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = "\\u00" + string(hexd[c>>4]) + string(hexd[c&15])
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'] = `\"`, `\\`, `\/`
	t[0x7f] = `\u007f`
	return t
}()

func (j *cjson) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argErrorf(L, 1, "encode", "expected 1 argument")
	}
	b := j.buf[:0]
	b = j.appendValue(L, b, L.Get(1), 0)
	L.Push(lua.LString(b))
	if j.cfg.keepBuffer && cap(b) <= 64<<10 {
		j.buf = b
	} else {
		j.buf = nil
	}
	return 1
}

// encodeError is json_encode_exception.
func encodeError(L *lua.LState, v lua.LValue, reason string) {
	L.RaiseError("Cannot serialise %s: %s", v.Type().String(), reason)
}

func (j *cjson) appendValue(L *lua.LState, b []byte, v lua.LValue, depth int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return appendJSONString(b, string(x))
	case lua.LNumber:
		return j.appendNumber(L, b, x)
	case lua.LBool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case *lua.LNilType:
		return append(b, "null"...)
	case *lua.LUserData:
		if x == j.null {
			return append(b, "null"...)
		}
	case *lua.LTable:
		depth++
		if depth > j.cfg.encodeMaxDepth {
			L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := j.arrayLength(L, x); n > 0 {
			b = append(b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b = append(b, ',')
				}
				b = j.appendValue(L, b, x.RawGetInt(i), depth)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		first := true
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			if !first {
				b = append(b, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				b = append(b, '"')
				b = j.appendNumber(L, b, kk)
				b = append(b, '"', ':')
			case lua.LString:
				b = appendJSONString(b, string(kk))
				b = append(b, ':')
			default:
				encodeError(L, k, "table key must be a number or string")
			}
			b = j.appendValue(L, b, val, depth)
		}
		return append(b, '}')
	}
	encodeError(L, v, "type not supported")
	return b
}

// arrayLength is lua_array_length: the largest key of a table whose keys
// are all integers from 1, or -1 for an object, or the sparse-array error
// (or -1 with encode_sparse_array's convert on).
func (j *cjson) arrayLength(L *lua.LState, t *lua.LTable) int {
	max, items := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f == 0 || math.Floor(f) != f || f < 1 {
			return -1
		}
		if f > float64(max) {
			if f > math.MaxInt32 {
				max = math.MaxInt32
			} else {
				max = int(f)
			}
		}
		items++
	}
	if j.cfg.sparseRatio > 0 && max > items*j.cfg.sparseRatio && max > j.cfg.sparseSafe {
		if !j.cfg.sparseConvert {
			encodeError(L, t, "excessively sparse array")
		}
		return -1
	}
	return max
}

func (j *cjson) appendNumber(L *lua.LState, b []byte, n lua.LNumber) []byte {
	f := float64(n)
	switch j.cfg.encodeInvalid {
	case 0:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			encodeError(L, n, "must not be NaN or Inf")
		}
	case 1:
		if math.IsNaN(f) {
			return append(b, "nan"...)
		}
	default:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return append(b, "null"...)
		}
	}
	return appendG(b, f, j.cfg.numberPrecison)
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if esc := jsonEscape[s[i]]; esc != "" {
			b = append(b, esc...)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, '"')
}

// jsonDecoder is one cjson.decode.
type jsonDecoder struct {
	L     *lua.LState
	j     *cjson
	s     string
	pos   int
	depth int
	tmp   []byte
}

// JSON token types, with json_token_type_name's names.
const (
	tObjBegin = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tError
)

var tokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_ERROR"}

type jsonToken struct {
	typ   int
	index int
	str   string // T_STRING's value, or T_ERROR's reason
	num   float64
	b     bool
}

func (j *cjson) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argErrorf(L, 1, "decode", "expected 1 argument")
	}
	s := checkString(L, 1, "decode")
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		L.RaiseError("JSON parser does not support UTF-16 or UTF-32")
	}
	d := jsonDecoder{L: L, j: j, s: s}
	var tok jsonToken
	d.next(&tok)
	v := d.value(&tok)
	d.next(&tok)
	if tok.typ != tEnd {
		d.fail("the end", &tok)
	}
	L.Push(v)
	return 1
}

// at is the byte at i, or 0 past the end: cjson reads a C string, so the
// input ends at its first NUL.
func (d *jsonDecoder) at(i int) byte {
	if i < len(d.s) {
		return d.s[i]
	}
	return 0
}

func (d *jsonDecoder) fail(expected string, tok *jsonToken) {
	found := tokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.str
	}
	d.L.RaiseError("Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *jsonDecoder) setError(tok *jsonToken, reason string) {
	tok.typ = tError
	tok.index = d.pos
	tok.str = reason
}

func (d *jsonDecoder) next(tok *jsonToken) {
	for {
		c := d.at(d.pos)
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	c := d.at(d.pos)
	single := -1
	switch c {
	case '{':
		single = tObjBegin
	case '}':
		single = tObjEnd
	case '[':
		single = tArrBegin
	case ']':
		single = tArrEnd
	case ',':
		single = tComma
	case ':':
		single = tColon
	case 0:
		tok.typ = tEnd
		return
	}
	if single >= 0 {
		tok.typ = single
		d.pos++
		return
	}
	switch {
	case c == '"':
		d.stringToken(tok)
		return
	case c == '-' || c >= '0' && c <= '9':
		if !d.j.cfg.decodeInvalid && d.invalidNumber() {
			d.setError(tok, "invalid number")
			return
		}
		d.numberToken(tok)
		return
	case c == 't' || c == 'f' || c == 'n' || c == 'i' || c == 'I' || c == 'N' || c == '+':
		rest := d.s[d.pos:]
		switch {
		case len(rest) >= 4 && rest[:4] == "true":
			tok.typ, tok.b = tBoolean, true
			d.pos += 4
			return
		case len(rest) >= 5 && rest[:5] == "false":
			tok.typ, tok.b = tBoolean, false
			d.pos += 5
			return
		case len(rest) >= 4 && rest[:4] == "null":
			tok.typ = tNull
			d.pos += 4
			return
		case d.j.cfg.decodeInvalid && d.invalidNumber():
			d.numberToken(tok)
			return
		}
	}
	d.setError(tok, "invalid token")
}

// invalidNumber is json_is_invalid_number: what strtod reads but strict
// JSON does not have (a leading +, hex, leading zeros, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || c2 >= '0' && c2 <= '9'
	} else if c <= '9' {
		return false
	}
	if hasPrefixFold(d.s[min(p, len(d.s)):], "inf") || hasPrefixFold(d.s[min(p, len(d.s)):], "nan") {
		return true
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}

func (d *jsonDecoder) numberToken(tok *jsonToken) {
	f, n := strtod(d.cstr(d.pos))
	if n == 0 {
		d.setError(tok, "invalid number")
		return
	}
	tok.typ = tNumber
	tok.num = f
	d.pos += n
}

// cstr is the input from i up to its first NUL.
func (d *jsonDecoder) cstr(i int) string {
	s := d.s[min(i, len(d.s)):]
	if k := indexByte(s, 0); k >= 0 {
		s = s[:k]
	}
	return s
}

func (d *jsonDecoder) stringToken(tok *jsonToken) {
	d.pos++ // the opening quote
	tmp := d.tmp[:0]
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.setError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			switch e := d.at(d.pos + 1); e {
			case '"', '\\', '/':
				c = e
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'u':
				var ok bool
				if tmp, ok = d.unicodeEscape(tmp); !ok {
					d.setError(tok, "invalid unicode escape code")
					return
				}
				continue
			default:
				d.setError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		tmp = append(tmp, c)
		d.pos++
	}
	d.pos++ // the closing quote
	d.tmp = tmp
	tok.typ = tString
	tok.str = string(tmp)
}

func (d *jsonDecoder) hex4(i int) int {
	v := 0
	for k := 0; k < 4; k++ {
		c := d.at(i + k)
		x := digitValue(c)
		if x < 0 || x > 15 {
			return -1
		}
		v = v<<4 | x
	}
	return v
}

// unicodeEscape is json_append_unicode_escape: \uXXXX, or a surrogate pair
// of them, appended in UTF-8.
func (d *jsonDecoder) unicodeEscape(tmp []byte) ([]byte, bool) {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return tmp, false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return tmp, false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return tmp, false
		}
		lo := d.hex4(d.pos + 8)
		if lo < 0 || lo&0xFC00 != 0xDC00 {
			return tmp, false
		}
		cp = ((cp&0x3FF)<<10 | lo&0x3FF) + 0x10000
		n = 12
	}
	switch {
	case cp <= 0x7F:
		tmp = append(tmp, byte(cp))
	case cp <= 0x7FF:
		tmp = append(tmp, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		tmp = append(tmp, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		tmp = append(tmp, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.pos += n
	return tmp, true
}

func (d *jsonDecoder) descend() {
	d.depth++
	if d.depth > d.j.cfg.decodeMaxDepth {
		d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

func (d *jsonDecoder) value(tok *jsonToken) lua.LValue {
	L := d.L
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.j.null
	case tObjBegin:
		d.descend()
		t := L.NewTable()
		d.next(tok)
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		for {
			if tok.typ != tString {
				d.fail("object key string", tok)
			}
			key := tok.str
			d.next(tok)
			if tok.typ != tColon {
				d.fail("colon", tok)
			}
			d.next(tok)
			t.RawSetString(key, d.value(tok))
			d.next(tok)
			if tok.typ == tObjEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or object end", tok)
			}
			d.next(tok)
		}
	case tArrBegin:
		d.descend()
		t := L.NewTable()
		d.next(tok)
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		for i := 1; ; i++ {
			t.RawSetInt(i, d.value(tok))
			d.next(tok)
			if tok.typ == tArrEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or array end", tok)
			}
			d.next(tok)
		}
	}
	d.fail("value", tok)
	return lua.LNil
}

// strtod reads the longest prefix of s that glibc's strtod reads (after
// leading spaces: decimal with exponent, hex with a binary exponent, inf,
// infinity, nan, nan(...)) and returns its value and length, 0 when there
// is none.
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := i > start && s[start] == '-'
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return math.Copysign(math.Inf(1), signOf(neg)), i + 8
	case hasPrefixFold(rest, "inf"):
		return math.Copysign(math.Inf(1), signOf(neg)), i + 3
	case hasPrefixFold(rest, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			k := n + 1
			for k < len(s) && (s[k] == '_' || s[k] >= '0' && s[k] <= '9' || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				n = k + 1
			}
		}
		return math.Copysign(math.NaN(), signOf(neg)), n
	}
	if len(rest) >= 2 && rest[0] == '0' && rest[1]|0x20 == 'x' {
		// Hex: digits, an optional fraction, an optional p exponent.
		k := i + 2
		digits := 0
		for k < len(s) && isHex(s[k]) {
			k++
			digits++
		}
		if k < len(s) && s[k] == '.' {
			k++
			for k < len(s) && isHex(s[k]) {
				k++
				digits++
			}
		}
		if digits == 0 {
			// "0x" alone reads as the 0.
			return math.Copysign(0, signOf(neg)), i + 1
		}
		mant := s[i:k]
		exp := "p0"
		if k < len(s) && s[k]|0x20 == 'p' {
			e := k + 1
			if e < len(s) && (s[e] == '+' || s[e] == '-') {
				e++
			}
			if e < len(s) && s[e] >= '0' && s[e] <= '9' {
				for e < len(s) && s[e] >= '0' && s[e] <= '9' {
					e++
				}
				exp = s[k:e]
				k = e
			}
		}
		f, err := strconv.ParseFloat(mant+exp, 64)
		if err != nil && !isRangeErr(err) {
			return 0, 0
		}
		if neg {
			f = -f
		}
		return f, k
	}
	k := i
	digits := 0
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
		digits++
	}
	if k < len(s) && s[k] == '.' {
		k++
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if k < len(s) && s[k]|0x20 == 'e' {
		e := k + 1
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && s[e] >= '0' && s[e] <= '9' {
			for e < len(s) && s[e] >= '0' && s[e] <= '9' {
				e++
			}
			k = e
		}
	}
	f, err := strconv.ParseFloat(s[start:k], 64)
	if err != nil && !isRangeErr(err) {
		return 0, 0
	}
	return f, k
}

func signOf(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}
