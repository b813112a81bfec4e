package script

import (
	"strings"
	"testing"
)

// evalString runs a script that returns a string (or raises) and gives
// the string, or the error text.
func evalString(t *testing.T, e *Engine, src string) string {
	t.Helper()
	got, _ := eval(t, e, src, 2, nil)
	switch {
	case strings.HasPrefix(got, "$"):
		i := strings.Index(got, "\r\n")
		return got[i+2 : len(got)-2]
	case strings.HasPrefix(got, ":"):
		return strings.TrimSuffix(got[1:], "\r\n")
	case strings.HasPrefix(got, "-"):
		msg := strings.TrimSuffix(got[1:], "\r\n")
		if i := strings.Index(msg, " script: "); i >= 0 {
			msg = msg[:i]
		}
		return msg
	}
	return got
}

func TestBit(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"return bit.tobit(0xffffffff)":         "-1",
		"return bit.tobit(2^32 + 1)":           "1",
		"return bit.tobit(1.5)":                "2",
		"return bit.tobit(2.5)":                "2",
		"return bit.tobit(-1.5)":               "-2",
		"return bit.tobit('10')":               "10",
		"return bit.tohex(255)":                "000000ff",
		"return bit.tohex(-1, -4)":             "FFFF",
		"return bit.tohex(0x12345678, 2)":      "78",
		"return bit.tohex(1, 20)":              "00000001",
		"return bit.bnot(0)":                   "-1",
		"return bit.band(0xff, 0x0f)":          "15",
		"return bit.band(1)":                   "1",
		"return bit.bor(1,2,4,8,16,32,64,128)": "255",
		"return bit.bxor(1, 2)":                "3",
		"return bit.lshift(1, 31)":             "-2147483648",
		"return bit.lshift(1, 32)":             "1",
		"return bit.rshift(-1, 28)":            "15",
		"return bit.arshift(-256, 4)":          "-16",
		"return bit.rol(0x12345678, 8)":        "878082066",
		"return bit.ror(0x12345678, 8)":        "2014458966",
		"return bit.bswap(0x12345678)":         "2018915346",
		"return bit.tobit()":                   "ERR user_script:1: bad argument #1 to 'tobit' (number expected, got no value)",
		"return bit.bor(1, 'x')":               "ERR user_script:1: bad argument #2 to 'bor' (number expected, got string)",
		"assert(0x7fffffff == 2147483647, 'broken hex literals'); assert(0xffffffff == -1 or 0xffffffff == 2^32-1); assert(tostring(-1) == '-1'); assert(tostring(0xffffffff) == '-1' or tostring(0xffffffff) == '4294967295') return 'ok'": "ok",
	} {
		if got := evalString(t, e, src); got != want {
			t.Errorf("%s: got %q, want %q", src, got, want)
		}
	}
}

func TestCjsonEncode(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"return cjson.encode({1,2,3})":               `[1,2,3]`,
		"return cjson.encode({})":                    `{}`,
		"return cjson.encode({a=1})":                 `{"a":1}`,
		"return cjson.encode({a={b={true,false}}})":  `{"a":{"b":[true,false]}}`,
		`return cjson.encode("a/b\"\\\n\1\127\200")`: "\"a\\/b\\\"\\\\\\n\\u0001\\u007f\xc8\"",
		"return cjson.encode(0.1)":                   `0.1`,
		"return cjson.encode(1/3)":                   `0.33333333333333`,
		"return cjson.encode(1e20)":                  `1e+20`,
		"return cjson.encode(-0.0)":                  `-0`,
		"return cjson.encode(100)":                   `100`,
		"return cjson.encode({[1]=1,[3]=3})":         `[1,null,3]`,
		"return cjson.encode({[0]=1})":               `{"0":1}`,
		"return cjson.encode({[1.5]=1})":             `{"1.5":1}`,
		"return cjson.encode({[1]=1, x=2})":          `{"1":1,"x":2}`,
		"return cjson.encode(cjson.null)":            `null`,
		"return cjson.encode(nil)":                   `null`,
		"return cjson.encode({cjson.null})":          `[null]`,
		"return cjson.encode({[1]=1,[20]=2})":        "ERR user_script:1: Cannot serialise table: excessively sparse array",
		"return cjson.encode({[1]=1,[10]=2})":        `[1,null,null,null,null,null,null,null,null,2]`,
		"return cjson.encode({[true]=1})":            "ERR user_script:1: Cannot serialise boolean: table key must be a number or string",
		"return cjson.encode(0/0)":                   "ERR user_script:1: Cannot serialise number: must not be NaN or Inf",
		"return cjson.encode(function() end)":        "ERR user_script:1: Cannot serialise function: type not supported",
		"return cjson.encode()":                      "ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument)",
		"local t = {} local c = t for i = 1, 1001 do c[1] = {} c = c[1] end return cjson.encode(t)":                            "ERR user_script:1: Cannot serialise, excessive nesting (1001)",
		"cjson.encode_invalid_numbers(true) local s = cjson.encode({1/0, 0/0}) cjson.encode_invalid_numbers(false) return s":   `[inf,nan]`,
		"cjson.encode_invalid_numbers('null') local s = cjson.encode({1/0, 0/0}) cjson.encode_invalid_numbers(false) return s": `[null,null]`,
		"cjson.encode_number_precision(3) local s = cjson.encode(1/3) cjson.encode_number_precision(14) return s":              `0.333`,
		"local r = cjson.encode_number_precision(15) return r":                                                                 "ERR user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)",
		"cjson.encode_sparse_array(true) local s = cjson.encode({[1]=1,[20]=2}) cjson.encode_sparse_array(false) return s":     `{"1":1,"20":2}`,
		"cjson.encode_max_depth(1) local ok = pcall(cjson.encode, {{}}) cjson.encode_max_depth(1000) return tostring(ok)":      "false",
		"return tostring(cjson.encode_keep_buffer())":                                                                          "true",
		"return cjson._NAME .. ' ' .. cjson._VERSION":                                                                          "cjson 2.1.0",
		"return cjson.encode_max_depth(1, 2)":                                                                                  "ERR user_script:1: bad argument #2 to 'encode_max_depth' (found too many arguments)",
	} {
		if got := evalString(t, e, src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

func TestCjsonDecode(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		`return table.concat(cjson.decode("[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]"), " ")`: "0 -5000 -1 0.0003 1023.2 0",
		`local d = cjson.decode('{"keya": "a", "keyb": "b"}') return d.keya .. d.keyb`:    "ab",
		`return tostring(cjson.decode('null') == cjson.null)`:                             "true",
		`return type(cjson.decode('null'))`:                                               "userdata",
		`return cjson.decode('"\\u00e9\\/\\"\\\\\\b\\f\\n\\r\\t"')`:                       "\u00e9/\"\\\b\f\n\r\t",
		`return cjson.decode('"\\ud83d\\ude00"')`:                                         "\U0001F600",
		`return tostring(cjson.decode('true'))`:                                           "true",
		`return tostring(cjson.decode(' 12 '))`:                                           "12",
		`return tostring(cjson.decode('nan'))`:                                            "nan",
		`return tostring(cjson.decode('-Infinity'))`:                                      "-inf",
		`return tostring(cjson.decode('0x10'))`:                                           "16",
		`return tostring(cjson.decode('+1'))`:                                             "1",
		`return tostring(cjson.decode('01'))`:                                             "1",
		`return tostring(#cjson.decode('[1,2,3]\0junk'))`:                                 "3",
		`return tostring(#cjson.decode('[]'))`:                                            "0",
		`return tostring(next(cjson.decode('{}')))`:                                       "nil",
		`return cjson.decode('[1,2')`:                                                     "ERR user_script:1: Expected comma or array end but found T_END at character 5",
		`return cjson.decode('{"a" 1}')`:                                                  "ERR user_script:1: Expected colon but found T_NUMBER at character 6",
		`return cjson.decode('{1:2}')`:                                                    "ERR user_script:1: Expected object key string but found T_NUMBER at character 2",
		`return cjson.decode('{"a":1,}')`:                                                 "ERR user_script:1: Expected object key string but found T_OBJ_END at character 8",
		`return cjson.decode('')`:                                                         "ERR user_script:1: Expected value but found T_END at character 1",
		`return cjson.decode('tru')`:                                                      "ERR user_script:1: Expected value but found invalid token at character 1",
		`return cjson.decode('"abc')`:                                                     "ERR user_script:1: Expected value but found unexpected end of string at character 5",
		`return cjson.decode('"\\x"')`:                                                    "ERR user_script:1: Expected value but found invalid escape code at character 2",
		`return cjson.decode('"\\u12"')`:                                                  "ERR user_script:1: Expected value but found invalid unicode escape code at character 2",
		`return cjson.decode('"\\udc00\\u0041"')`:                                         "ERR user_script:1: Expected value but found invalid unicode escape code at character 2",
		`return cjson.decode('[1] x')`:                                                    "ERR user_script:1: Expected the end but found invalid token at character 5",
		`return cjson.decode('[1]]')`:                                                     "ERR user_script:1: Expected the end but found T_ARR_END at character 4",
		`return cjson.decode('-')`:                                                        "ERR user_script:1: Expected value but found invalid number at character 1",
		`return cjson.decode('\0[')`:                                                      "ERR user_script:1: JSON parser does not support UTF-16 or UTF-32",
		`return cjson.decode()`:                                                           "ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument)",
		`cjson.decode_max_depth(1) local ok, err = pcall(cjson.decode, '[[1]]') cjson.decode_max_depth(1000) return err`:               "user_script:1: Found too many nested data structures (2) at character 2",
		`cjson.decode_invalid_numbers(false) local ok, err = pcall(cjson.decode, 'nan') cjson.decode_invalid_numbers(true) return err`: "user_script:1: Expected value but found invalid token at character 1",
		`cjson.decode_invalid_numbers(false) local ok, err = pcall(cjson.decode, '01') cjson.decode_invalid_numbers(true) return err`:  "user_script:1: Expected value but found invalid number at character 1",
		`local s = string.rep('[', 1001) .. string.rep(']', 1001) local ok, err = pcall(cjson.decode, s) return err`:                   "user_script:1: Found too many nested data structures (1001) at character 1001",
	} {
		if got := evalString(t, e, src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

// tests/unit/scripting.tcl's JSON smoke test.
func TestCjsonSmoke(t *testing.T) {
	e := New(Options{})
	src := `
            local some_map = {
                s1="Some string",
                n1=100,
                a1={"Some","String","Array"},
                nil1=nil,
                b1=true,
                b2=false}
            local encoded = cjson.encode(some_map)
            local decoded = cjson.decode(encoded)
            assert(table.concat(some_map) == table.concat(decoded))

            cjson.encode_keep_buffer(false)
            encoded = cjson.encode(some_map)
            decoded = cjson.decode(encoded)
            assert(table.concat(some_map) == table.concat(decoded))

            local table1 = {one="one", [1]="one"}
            encoded = cjson.encode(table1)
            decoded = cjson.decode(encoded)
            assert(decoded["one"] == table1["one"])
            assert(decoded["1"] == table1[1])

            local array1 = {[1]="one", [2]="two"}
            encoded = cjson.encode(array1)
            decoded = cjson.decode(encoded)
            assert(table.concat(array1) == table.concat(decoded))

            local invalid_map = {}
            invalid_map[false] = "false"
            local ok, encoded = pcall(cjson.encode, invalid_map)
            assert(ok == false)

            cjson.encode_max_depth(1)
            ok, encoded = pcall(cjson.encode, some_map)
            assert(ok == false)

            cjson.decode_max_depth(1)
            ok, decoded = pcall(cjson.decode, '{"obj": {"array": [1,2,3,4]}}')
            assert(ok == false)

            ok, encoded = pcall(cjson.encode, {num1=0/0})
            assert(ok == false)
            cjson.encode_invalid_numbers(true)
            ok, encoded = pcall(cjson.encode, {num1=0/0})
            assert(ok == true)

            cjson.decode_max_depth(1000)
            cjson.encode_max_depth(1000)
            cjson.encode_invalid_numbers(false)
            cjson.encode_keep_buffer(true)
            return 'ok'`
	if got := evalString(t, e, src); got != "ok" {
		t.Fatal(got)
	}
	// Round trips keep what JSON can say.
	if got := evalString(t, e, `local v = {1, 'two', {three = 3, four = {true, false}}, -0.5, 'é\n'}
		local s = cjson.encode(v) local d = cjson.decode(s)
		assert(cjson.encode(d) == s) return s`); got != `[1,"two",{"three":3,"four":[true,false]},-0.5,"é\n"]` {
		t.Fatal(got)
	}
}
