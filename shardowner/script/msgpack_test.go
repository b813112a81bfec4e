package script

import "testing"

const hexOf = `local function hex(s) local h = "" for i = 1, #s do h = h .. string.format("%02x", string.byte(s, i)) end return h end `

func TestCmsgpack(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"return hex(cmsgpack.pack(0.1))":                                "cb3fb999999999999a",
		"return hex(cmsgpack.pack(-1099511627776))":                     "d3ffffff0000000000",
		"return hex(cmsgpack.pack(1.5))":                                "ca3fc00000",
		"return hex(cmsgpack.pack(0, 127, 128, 255, 256, 65536, 2^32))": "007fcc80ccffcd0100ce00010000cf0000000100000000",
		"return hex(cmsgpack.pack(-1, -32, -33, -129, -32769))":         "ffe0d0dfd1ff7fd2ffff7fff",
		"return hex(cmsgpack.pack(nil, true, false))":                   "c0c3c2",
		"return hex(cmsgpack.pack('abc', string.rep('x', 32)))":         "a3616263d920" + "7878787878787878787878787878787878787878787878787878787878787878",
		"return hex(cmsgpack.pack({1, 2, 3}))":                          "93010203",
		"return hex(cmsgpack.pack({a = 1}))":                            "81a16101",
		"return hex(cmsgpack.pack({}))":                                 "90",
		"return hex(cmsgpack.pack({[1] = 1, [3] = 3}))":                 "82010103" + "03",
		"return hex(cmsgpack.pack(function() end))":                     "c0",
		"return hex(cmsgpack.pack(0/0))":                                "cb" + "fff8000000000000",
		"local t = {cmsgpack.unpack(cmsgpack.pack(1, 'a', {2, 3}, {k = 'v'}))} return t[1] .. t[2] .. t[3][2] .. t[4].k": "1a3v",
		"return tostring(cmsgpack.unpack(cmsgpack.pack(-1099511627776)))":                                                "-1099511627776",
		"return tostring(cmsgpack.unpack(cmsgpack.pack(0.1)))":                                                           "0.1",
		"return tostring(cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255'))":                              "-1",
		"local o, v = cmsgpack.unpack_one(cmsgpack.pack(1, 2), 0) return o .. ' ' .. v":                                  "1 1",
		"local o, v = cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1) return o .. ' ' .. v":                                  "-1 2",
		"local o, a, b = cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2) return o .. a .. b":                            "212",
		"return cmsgpack.unpack('\\147\\1')":                                                                             "ERR user_script:1: Missing bytes in input.",
		"return cmsgpack.unpack('\\193')":                                                                                "ERR user_script:1: Bad data format in input.",
		"return cmsgpack.unpack_one('\\1', 5)":                                                                           "ERR user_script:1: Start offset 5 greater than input length 1.",
		"return cmsgpack.unpack_one('\\1', -1)":                                                                          "ERR user_script:1: Invalid request to unpack with offset of -1 and limit of 1.",
		"return cmsgpack.pack()":                                                                                         "ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)",
		"return cmsgpack.unpack('\\129\\192\\1')":                                                                        "ERR table index is nil",
		"return tostring(select('#', cmsgpack.unpack('')))":                                                              "0",
		"return cmsgpack._VERSION":                                                                                       "lua-cmsgpack 0.4.0",
	} {
		if got := evalString(t, e, hexOf+src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

// tests/unit/scripting.tcl's cmsgpack tests.
func TestCmsgpackScriptingTcl(t *testing.T) {
	e := New(Options{})
	smoke := `
                local str_lt_32 = string.rep("x", 30)
                local str_lt_255 = string.rep("x", 250)
                local str_lt_65535 = string.rep("x", 65530)
                local str_long = string.rep("x", 100000)
                local array_lt_15 = {1, 2, 3, 4, 5}
                local array_lt_65535 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
                local array_big = {}
                for i=1, 100000 do
                    array_big[i] = i
                end
                local map_lt_15 = {a=1, b=2}
                local map_big = {}
                for i=1, 100000 do
                    map_big[tostring(i)] = i
                end
                local some_map = {
                    s1=str_lt_32, s2=str_lt_255, s3=str_lt_65535, s4=str_long,
                    d1=0.1, i1=1, i2=250, i3=65530, i4=100000, i5=2^40,
                    i6=-1, i7=-120, i8=-32000, i9=-100000, i10=-3147483648,
                    a1=array_lt_15, a2=array_lt_65535, a3=array_big,
                    m1=map_lt_15, m2=map_big, b1=false, b2=true, n=nil
                }
                local encoded = cmsgpack.pack(some_map)
                local decoded = cmsgpack.unpack(encoded)
                assert(table.concat(some_map) == table.concat(decoded))
                local offset, decoded_one = cmsgpack.unpack_one(encoded, 0)
                assert(table.concat(some_map) == table.concat(decoded_one))
                assert(offset == -1)
                assert(decoded.s4 == str_long and decoded.a3[100000] == 100000 and decoded.m2["77"] == 77)
                assert(decoded.i10 == -3147483648 and decoded.i5 == 2^40 and decoded.d1 == 0.1)

                local encoded_multiple = cmsgpack.pack(str_lt_32, str_lt_255, str_lt_65535, str_long)
                local offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, 0)
                assert(obj == str_lt_32)
                offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
                assert(obj == str_lt_255)
                offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
                assert(obj == str_lt_65535)
                offset, obj = cmsgpack.unpack_limit(encoded_multiple, 1, offset)
                assert(obj == str_long)
                assert(offset == -1)
                return 'ok'`
	if got := evalString(t, e, smoke); got != "ok" {
		t.Fatal(got)
	}
	circular := hexOf + `local a = {x=nil,y=5}
                local b = {x=a}
                a['x'] = b
                local encoded = cmsgpack.pack(a)
                local re = cmsgpack.unpack(encoded)
                assert(re)
                assert(re.x)
                assert(re.x.x.y == re.y)
                assert(re.x.x.x.x.y == re.y)
                assert(re.x.x.x.x.x.x.y == re.y)
                assert(re.x.x.x.x.x.x.x.x.x.x.y == re.y)
                assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.y == re.y)
                assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x)
                assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x == nil)
                return hex(encoded)`
	want := "82a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a178c0"
	if got := evalString(t, e, circular); got != want {
		t.Fatalf("circular:\n got %s\nwant %s", got, want)
	}
}

func TestStruct(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"return hex(struct.pack('>I2', 258))":                 "0102",
		"return hex(struct.pack('<I2', 258))":                 "0201",
		"return hex(struct.pack('i', -1))":                    "ffffffff",
		"return hex(struct.pack('>l', 1))":                    "0000000000000001",
		"return hex(struct.pack('bBhH', -1, 255, -2, 65535))": "ffff" + "feff" + "ffff",
		"return hex(struct.pack('>d', 1.5))":                  "3ff8000000000000",
		"return hex(struct.pack('<f', 1.5))":                  "0000c03f",
		"return hex(struct.pack('s', 'ab'))":                  "616200",
		"return hex(struct.pack('c3', 'abcd'))":               "616263",
		"return hex(struct.pack('c0', 'abcd'))":               "61626364",
		"return hex(struct.pack('!4 b i', 1, 2))":             "0100000002000000",
		"return hex(struct.pack('b x b', 1, 2))":              "010002",
		"return hex(struct.pack('>i16', -1))":                 "0000000000000000ffffffffffffffff",
		"local a, b, c, n = struct.unpack('>I2 <I2 b', '\\1\\2\\1\\2\\255') return a .. ' ' .. b .. ' ' .. c .. ' ' .. n": "258 513 -1 6",
		"local s, n = struct.unpack('s', 'ab\\0cd') return s .. n":                                                        "ab4",
		"local s, n = struct.unpack('b c0', '\\3abcd') return s .. n":                                                     "abc5",
		"local a, n = struct.unpack('>I2', '\\0\\0\\1\\2', 3) return a .. ' ' .. n":                                       "258 5",
		"return tostring(struct.unpack('>d', struct.pack('>d', 0.1)))":                                                    "0.1",
		"return tostring(struct.unpack('<i8', struct.pack('<i8', -2^40)))":                                                "-1099511627776",
		"return struct.size('bhi')":            "7",
		"return struct.size('!4 bhi')":         "8",
		"return struct.size('<d')":             "8",
		"return struct.size('c10 x')":          "11",
		"return struct.size('s')":              "ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)",
		"return struct.size('c0')":             "ERR user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size)",
		"return struct.pack('y', 1)":           "ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'y')",
		"return struct.pack('=i', 1)":          "ERR user_script:1: bad argument #1 to 'pack' (invalid format option '=')",
		"return struct.pack('i33', 1)":         "ERR user_script:1: integral size 33 is larger than limit of 32",
		"return struct.pack('!3', 1)":          "ERR user_script:1: alignment 3 is not a power of 2",
		"return struct.pack('c5', 'ab')":       "ERR user_script:1: bad argument #3 to 'pack' (string too short)",
		"return struct.pack('i')":              "ERR user_script:1: bad argument #2 to 'pack' (number expected, got no value)",
		"return struct.unpack('i', 'ab')":      "ERR user_script:1: bad argument #2 to 'unpack' (data string too short)",
		"return struct.unpack('i', 'abcd', 0)": "ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)",
		"return struct.unpack('s', 'ab')":      "ERR user_script:1: unfinished string in data",
		"return struct.unpack('c0', 'ab')":     "ERR user_script:1: format 'c0' needs a previous size",
	} {
		if got := evalString(t, e, hexOf+src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}
