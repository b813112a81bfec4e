package rdbfile

// go test -run XXX -fuzz FuzzParse -fuzztime 60s ./shardowner/rdbfile/

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// buildFile is a file of records (already encoded) after a version 10
// header, with EOF and a checksum.
func buildFile(records ...[]byte) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Header(Aux{"redis-ver", "7.0.15"}, AuxInt("redis-bits", 64))
	for _, r := range records {
		w.Raw(r)
	}
	w.End(true)
	return buf.Bytes()
}

func stringRecord(key, val string) []byte {
	return AppendString(AppendKey(nil, TypeString, []byte(key), false), []byte(val), false)
}

func seedFiles(tb testing.TB) [][]byte {
	data, err := os.ReadFile("testdata/redis-7.0.rdb")
	if err != nil {
		tb.Fatal(err)
	}
	long := strings.Repeat("compressible ", 20)
	return [][]byte{data, buildFile(
		AppendSelectDB(nil, 2), AppendResizeDB(nil, 2, 1),
		AppendFreq(AppendIdle(AppendExpire(nil, 1<<40), 5), 3), stringRecord("a", "1"),
		AppendString(AppendKey(nil, TypeString, []byte(long), true), []byte(long), true),
		moduleAuxRecord(),
	)}
}

// moduleAuxRecord is MODULE_AUX data of a module "testmodul" version 3.
func moduleAuxRecord() []byte {
	b := append([]byte{OpModuleAux}, appendLen(nil, moduleID("testmodul", 3))...)
	b = append(AppendLen(b, moduleOpUint), 2)                          // when: after the keys
	b = AppendLen(AppendLen(b, moduleOpUint), 12345)                   // an unsigned integer
	b = AppendString(AppendLen(b, moduleOpString), []byte("s"), false) // a string
	b = append(AppendLen(b, moduleOpDouble), make([]byte, 8)...)       // a double
	return AppendLen(b, moduleOpEOF)
}

func moduleID(name string, ver int) uint64 {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var id uint64
	for i := 0; i < 9; i++ {
		id = id<<6 | uint64(strings.IndexByte(set, name[i]))
	}
	return id<<10 | uint64(ver)
}

// skipModules is a counter that skips module aux data.
type skipModules struct {
	*counter
	seen []string
}

func (s *skipModules) ModuleAux(e *ModuleError) error {
	s.seen = append(s.seen, fmt.Sprintf("%s/%d", e.Name, e.Ver))
	return nil
}

func TestParseSeeds(t *testing.T) {
	files := seedFiles(t)
	h := &skipModules{counter: newCounter()}
	if err := Parse(files[1], h); err != nil {
		t.Fatal(err)
	}
	if len(h.seen) != 1 || h.seen[0] != "testmodul/3" {
		t.Errorf("module aux seen %q", h.seen)
	}
	r := h.records[0]
	if r.DB != 2 || string(r.Key) != "a" || r.ExpireAt != 1<<40 || r.Idle != 5 || r.Freq != 3 {
		t.Errorf("record %+v", r)
	}
	if r := h.records[1]; r.ExpireAt != -1 || r.Idle != -1 || r.Freq != -1 || r.Key[0] != 'c' {
		t.Errorf("second record %+v", r)
	}
	// A handler that refuses module data stops the parse with its error.
	var me *ModuleError
	if err := Parse(files[1], newCounter()); !errors.As(err, &me) || me.Name != "testmodul" ||
		!strings.Contains(err.Error(), `"testmodul"`) {
		t.Errorf("module aux refused with %v", err)
	}
	if err := Parse(files[0], newCounter()); err != nil {
		t.Fatal(err)
	}
}

// TestParseTruncated: every proper prefix of a file fails, with the
// offset, and nothing panics.
func TestParseTruncated(t *testing.T) {
	for _, f := range seedFiles(t) {
		for n := 0; n < len(f); n++ {
			err := Parse(f[:n], newCounter())
			if err == nil {
				t.Fatalf("prefix of %d of %d bytes parsed", n, len(f))
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("prefix of %d bytes: %v", n, err)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	file := buildFile(stringRecord("k", "value"))
	corrupt := bytes.Clone(file)
	corrupt[bytes.Index(corrupt, []byte("value"))] = 'V'
	wrongCRC := bytes.Clone(file)
	wrongCRC[len(wrongCRC)-1] ^= 1
	zeroCRC := append(bytes.Clone(file[:len(file)-8]), make([]byte, 8)...)
	v11 := bytes.Clone(file)
	copy(v11, "REDIS0011")
	old := []byte("REDIS0003\xfe\x00\xfd\x01\x00\x00\x00\x00\x01k\x01v\xff") // no checksum before 5
	withType := func(typ byte, obj string) []byte {
		return buildFile(append(AppendKey(nil, typ, []byte("k"), false), obj...))
	}
	for _, c := range []struct {
		name string
		data []byte
		opt  Options
		want string // "" for no error
	}{
		{"ok", file, Options{}, ""},
		{"trailing bytes", append(bytes.Clone(file), "junk"...), Options{}, ""},
		{"zero CRC", zeroCRC, Options{}, ""},
		{"old version", old, Options{}, ""},
		{"corrupt", corrupt, Options{}, "RDB CRC error"},
		{"corrupt unchecked", corrupt, Options{SkipChecksum: true}, ""},
		{"wrong CRC", wrongCRC, Options{}, "RDB CRC error"},
		{"version 11", v11, Options{}, "Can't handle RDB format version 11"},
		{"version 0", append([]byte("REDIS0000"), file[9:]...), Options{}, "Can't handle RDB format version 0"},
		{"version text", append([]byte("REDIS00x1"), file[9:]...), Options{}, "not a number"},
		{"signature", append([]byte("REDIX0010"), file[9:]...), Options{}, "wrong signature"},
		{"pre-GA function", buildFile([]byte{OpFunctionPreGA}), Options{}, "Pre-release function format"},
		{"type 8", withType(8, "\x00"), Options{}, "unknown object type 8"},
		{"type 20", withType(20, "\x00"), Options{}, "object type 20 is newer"},
		{"module", withType(TypeModule2, string(appendLen(nil, moduleID("ReJSON-RL", 3)))), Options{}, `module value "ReJSON-RL"`},
		{"pre-GA module", withType(TypeModulePreGA, "\x00"), Options{}, "module value"},
		{"quicklist container", withType(TypeListQuicklist2, "\x01\x03\x01a"), Options{}, "container 3"},
		{"count past end", withType(TypeList, "\x80\x00\x01\x00\x00\x01a"), Options{}, "element list"},
		{"bad key", buildFile([]byte{TypeString, 0xc4}), Options{}, "the key of the record"},
	} {
		err := ParseWith(c.data, newCounter(), c.opt)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestObjectExtent frames each type Parse knows, with something after
// the object that it must not take.
func TestObjectExtent(t *testing.T) {
	str := func(s string) string { return string(AppendRawString(nil, []byte(s))) }
	id := string(make([]byte, 16))
	for _, c := range []struct {
		typ byte
		obj string
	}{
		{TypeString, "\xc0\x05"},
		{TypeString, string(AppendString(nil, []byte(strings.Repeat("ab", 40)), true))},
		{TypeList, "\x02" + str("a") + "\xc1\x00\x01"},
		{TypeSet, "\x01" + str("a")},
		{TypeHash, "\x01" + str("f") + str("v")},
		{TypeZSet, "\x03" + str("a") + "\x031.5" + str("b") + "\xfe" + str("c") + "\xfd"},
		{TypeZSet2, "\x01" + str("a") + "\x00\x00\x00\x00\x00\x00\xf0\x3f"},
		{TypeHashZipmap, str("zipmap")},
		{TypeListQuicklist, "\x02" + str("zl1") + str("zl2")},
		{TypeListQuicklist2, "\x02\x01" + str("plain") + "\x02" + str("lp")},
		// A stream: one node, length, last ID, first ID, max deleted ID,
		// entries added; a group (name, last ID, entries read) with one
		// pending entry and one consumer owning it.
		{TypeStreamListpacks2, "\x01" + str(id) + str("lp") + "\x01\x05\x00\x01\x00\x00\x00\x01" +
			"\x01" + str("g") + "\x05\x00\x01" + "\x01" + id + "\x00\x00\x00\x00\x00\x00\x00\x00\x01" +
			"\x01" + str("alice") + "\x00\x00\x00\x00\x00\x00\x00\x00" + "\x01" + id},
		{TypeStreamListpacks, "\x01" + str(id) + str("lp") + "\x01\x05\x00" +
			"\x01" + str("g") + "\x05\x00" + "\x00" + "\x00"},
	} {
		p := []byte(c.obj + "\xff\xff")
		n, err := ObjectExtent(c.typ, p)
		if err != nil || n != len(c.obj) {
			t.Errorf("type %d %q: extent %d, %v; want %d", c.typ, c.obj, n, err, len(c.obj))
		}
		for k := 0; k < len(c.obj); k++ {
			if _, err := ObjectExtent(c.typ, []byte(c.obj[:k])); err == nil {
				t.Errorf("type %d: prefix of %d bytes framed", c.typ, k)
			}
		}
	}
}

func TestModuleName(t *testing.T) {
	if name, ver := moduleName(moduleID("ReJSON-RL", 3)); name != "ReJSON-RL" || ver != 3 {
		t.Errorf("moduleName = %q %d", name, ver)
	}
}

// checker is a Handler that checks what it is given lies in the file.
type checker struct {
	t    *testing.T
	data []byte
	n    int
}

func (c *checker) Aux(k, v []byte) error         { return nil }
func (c *checker) SelectDB(int) error            { return nil }
func (c *checker) ResizeDB(uint64, uint64) error { return nil }
func (c *checker) Function([]byte) error         { return nil }
func (c *checker) ModuleAux(*ModuleError) error  { return nil }
func (c *checker) Key(r *Record) error {
	if r.Off < 9 || r.Off >= len(c.data) || len(r.Object) > len(c.data)-r.Off {
		c.t.Fatalf("record at %d of %d bytes, object %d bytes", r.Off, len(c.data), len(r.Object))
	}
	if _, err := ObjectExtent(r.Type, r.Object); err != nil {
		c.t.Fatalf("object Parse framed does not frame alone: %v", err)
	}
	c.n++
	return nil
}

func FuzzParse(f *testing.F) {
	for _, s := range seedFiles(f) {
		f.Add(s)
	}
	f.Add([]byte("REDIS0003\xfe\x00\xfd\x01\x00\x00\x00\x00\x01k\x01v\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {SkipChecksum: true}} {
			err := ParseWith(data, &checker{t: t, data: data}, opt)
			if err != nil && err.Error() == "" {
				t.Fatal("empty error")
			}
		}
		if len(data) > 9 && data[9] < 20 { // an object at the start of the first record
			n, err := ObjectExtent(data[9], data[10:])
			if err == nil && (n < 0 || n > len(data)-10) {
				t.Fatalf("extent %d of %d bytes", n, len(data)-10)
			}
		}
	})
}
