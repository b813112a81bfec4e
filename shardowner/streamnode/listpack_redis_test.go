package streamnode_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// These tests run a real redis-server, when one is on PATH, to check our
// listpacks against the ones Redis writes and reads.

// redisConn is a minimal RESP2 client.
type redisConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

type redisError string

// startRedis starts a redis-server on a free local port with persistence
// off, stopped when the test ends, or skips the test without one.
func startRedis(t *testing.T) *redisConn {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server on PATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--rdbcompression", "no")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			rc := &redisConn{t: t, c: c, r: bufio.NewReader(c)}
			t.Cleanup(func() { c.Close() })
			if rc.do("PING") == "PONG" {
				return rc
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not come up: %v\n%s", err, out.Bytes())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// do sends a command and returns its reply: a string for simple and bulk
// strings, int64, []any, nil, or redisError.
func (c *redisConn) do(args ...any) any {
	c.t.Helper()
	buf := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		var b []byte
		switch a := a.(type) {
		case string:
			b = []byte(a)
		case []byte:
			b = a
		default:
			b = fmt.Append(nil, a)
		}
		buf = fmt.Appendf(buf, "$%d\r\n", len(b))
		buf = append(append(buf, b...), "\r\n"...)
	}
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.c.Write(buf); err != nil {
		c.t.Fatal(err)
	}
	v, err := c.read()
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

// must is do for commands that may not fail.
func (c *redisConn) must(args ...any) any {
	c.t.Helper()
	v := c.do(args...)
	if err, ok := v.(redisError); ok {
		c.t.Fatalf("%q: %s", args, err)
	}
	return v
}

func (c *redisConn) read() (any, error) {
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, errors.New("short reply line")
	}
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return redisError(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		a := make([]any, n)
		for i := range a {
			if a[i], err = c.read(); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}

// xrange returns XRANGE key - + as entries.
func (c *redisConn) xrange(key string) []testEntry {
	c.t.Helper()
	var entries []testEntry
	for _, item := range c.must("XRANGE", key, "-", "+").([]any) {
		item := item.([]any)
		eid, ok := streamnode.ParseStrictID([]byte(item[0].(string)), 0)
		if !ok {
			c.t.Fatalf("XRANGE gave ID %q", item[0])
		}
		e := testEntry{id: eid, fields: [][]byte{}, values: [][]byte{}}
		pairs := item[1].([]any)
		for i := 0; i < len(pairs); i += 2 {
			e.fields = append(e.fields, []byte(pairs[i].(string)))
			e.values = append(e.values, []byte(pairs[i+1].(string)))
		}
		entries = append(entries, e)
	}
	return entries
}

// dumpedNode is one node of a DUMP payload: the master key and listpack.
type dumpedNode struct{ key, lp []byte }

// parseDump takes the nodes out of a stream's DUMP payload: the type byte
// (15 or 19), the node count, then per node the master key and listpack,
// each an RDB string; what follows is not looked at. Strings must be plain:
// the server runs with rdbcompression off.
func parseDump(t *testing.T, payload []byte) []dumpedNode {
	t.Helper()
	if len(payload) < 11 {
		t.Fatalf("payload of %d bytes", len(payload))
	}
	if payload[0] != 19 && payload[0] != 15 {
		t.Fatalf("payload type %d, not a stream", payload[0])
	}
	p := payload[1:]
	readLen := func() uint64 {
		if len(p) == 0 {
			t.Fatal("payload ends in a length")
		}
		var n uint64
		switch b := p[0]; {
		case b>>6 == 0:
			n, p = uint64(b&0x3F), p[1:]
		case b>>6 == 1:
			n, p = uint64(b&0x3F)<<8|uint64(p[1]), p[2:]
		case b == 0x80:
			n, p = uint64(binary.BigEndian.Uint32(p[1:])), p[5:]
		case b == 0x81:
			n, p = binary.BigEndian.Uint64(p[1:]), p[9:]
		default:
			t.Fatalf("length encoding %#x (an encoded or compressed string?)", b)
		}
		return n
	}
	readString := func() []byte {
		n := readLen()
		if n > uint64(len(p)) {
			t.Fatalf("string of %d bytes, %d left", n, len(p))
		}
		s := p[:n:n]
		p = p[n:]
		return s
	}
	nodes := make([]dumpedNode, readLen())
	for i := range nodes {
		nodes[i].key = readString()
		nodes[i].lp = readString()
	}
	return nodes
}

// decodeNodes runs FromListpack on each node, checks that AppendListpack
// gives Redis's bytes back, and returns the entries, live and deleted.
func decodeNodes(t *testing.T, nodes []dumpedNode) (live, deleted []testEntry) {
	t.Helper()
	for _, n := range nodes {
		node, err := streamnode.FromListpack(nil, n.key, n.lp)
		if err != nil {
			t.Fatalf("FromListpack of Redis's listpack %x: %v", n.lp, err)
		}
		checkDecoded(t, n.key, n.lp)
		if lp := streamnode.AppendListpack(nil, node); !bytes.Equal(lp, n.lp) {
			t.Errorf("AppendListpack differs from Redis's listpack\n got %x\nwant %x", lp, n.lp)
		}
		entries, flags := collect(streamnode.NewIter(node), false)
		for i, e := range entries {
			if flags[i] {
				deleted = append(deleted, e)
			} else {
				live = append(live, e)
			}
		}
	}
	return live, deleted
}

func idsOf(entries []testEntry) []id {
	ids := make([]id, len(entries))
	for i, e := range entries {
		ids[i] = e.id
	}
	return ids
}

// TestRedisDump decodes the listpacks of streams Redis built, with entries
// of the master fields and other fields, integers of each size, deleted
// entries and a node with no live entry left.
func TestRedisDump(t *testing.T) {
	c := startRedis(t)
	c.must("CONFIG", "SET", "stream-node-max-entries", "3")
	for _, add := range [][]any{
		{"1-1", "a", "1", "b", "hello"},
		{"1-2", "a", "2", "b", "world"},
		{"2-0", "c", "300", "7", "-5000"},
		{"3-5", "a", "-7", "b", "9223372036854775807"},
		{"3-6", "a", "01", "b", "4096"},
		{"1000000000000-0", "a", "x", "b", "18446744073709551616"},
		{"1000000000000-1", "x", "-2147483649", "a", ""},
		{"1000000000001-18446744073709551615", "a", "1.5", "b", "-32768"},
	} {
		c.must(append([]any{"XADD", "s"}, add...)...)
	}
	c.must("XDEL", "s", "1-2", "3-6")
	// A node with every entry deleted, by XDEL and then XTRIM, which marks
	// entries deleted in place while a node keeps one at or above MINID.
	for _, idText := range []string{"1-1", "1-2", "1-3", "2-0"} {
		c.must("XADD", "t", idText, "f", "v"+idText)
	}
	c.must("XDEL", "t", "1-3")
	c.must("XTRIM", "t", "MINID", "1-3")

	// The node TestListpackBytes checks by hand.
	for _, e := range handEntries {
		args := []any{"XADD", "h", e.id.String()}
		for i := range e.fields {
			args = append(args, e.fields[i], e.values[i])
		}
		c.must(args...)
	}
	c.must("XDEL", "h", handDeleted.String())
	if nodes := parseDump(t, []byte(c.must("DUMP", "h").(string))); len(nodes) != 1 || !bytes.Equal(nodes[0].lp, handListpack) {
		t.Errorf("Redis's listpack for handEntries differs from handListpack:\n%x", nodes[0].lp)
	}

	// XSETID back below a deleted entry: the next entry follows it in its
	// node with a lower ID ...
	for _, cmd := range [][]any{
		{"XADD", "x", "5-0", "f", "v"}, {"XADD", "x", "6-0", "f", "w"}, {"XDEL", "x", "6-0"},
		{"XSETID", "x", "5-0"}, {"XADD", "x", "5-1", "f", "u"},
		// ... or, once no live entry is left, below the master ID.
		{"XADD", "y", "5-0", "f", "v"}, {"XADD", "y", "6-0", "f", "v"}, {"XADD", "y", "7-0", "f", "v"},
		{"XDEL", "y", "7-0"}, {"XTRIM", "y", "MINID", "7-0"}, {"XSETID", "y", "1-0"},
		{"XADD", "y", "2-0", "f", "z"},
	} {
		c.must(cmd...)
	}

	for key, wantDeleted := range map[string][]id{
		"s": {{1, 2}, {3, 6}},
		"t": {{1, 1}, {1, 2}, {1, 3}},
		"x": {{6, 0}},
		"y": {{5, 0}, {6, 0}, {7, 0}},
	} {
		payload := []byte(c.must("DUMP", key).(string))
		nodes := parseDump(t, payload)
		if (key == "s" || key == "t") && len(nodes) < 2 {
			t.Fatalf("%s: %d nodes, want several", key, len(nodes))
		}
		live, deleted := decodeNodes(t, nodes)
		if want := c.xrange(key); !slices.EqualFunc(live, want, equalEntry) {
			t.Errorf("%s: live entries\n got %v\nwant %v", key, live, want)
		}
		if got := idsOf(deleted); !slices.Equal(got, wantDeleted) {
			t.Errorf("%s: deleted entries %v, want %v", key, got, wantDeleted)
		}
	}
}

// TestRedisRestore has Redis load our listpacks, with deep sanitizing,
// and checks that it reads back the entries they hold.
func TestRedisRestore(t *testing.T) {
	c := startRedis(t)
	c.must("CONFIG", "SET", "sanitize-dump-payload", "yes")
	r := rand.New(rand.NewPCG(9, 10))
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	for i := range rounds {
		entries := listpackEntries(r, 1+r.IntN(250))
		deleted := make([]bool, len(entries))
		for _, j := range r.Perm(len(entries))[:r.IntN(len(entries)/2+1)] {
			deleted[j] = true
		}
		if i == 0 {
			for j := range deleted {
				deleted[j] = j < len(deleted)-1 // a node with nothing live
			}
		}
		// Split the entries into nodes of up to 100 entries, as Redis does.
		var nodes [][]byte
		for start := 0; start < len(entries); start += 100 {
			end := min(start+100, len(entries))
			node := buildNode(entries[start:end])
			for j := start; j < end; j++ {
				if deleted[j] {
					streamnode.MarkDeleted(node, entries[j].id)
				}
			}
			nodes = append(nodes, node)
		}
		key := "r" + strconv.Itoa(i)
		// The same with one lp-count off by one must fail the checks.
		bad := streamPayload(entries, deleted, nodes, func(lp []byte) { lp[len(lp)-3] ^= 1 })
		if reply, ok := c.do("RESTORE", key, "0", bad).(redisError); !ok {
			t.Fatalf("RESTORE of a bad listpack: %v", reply)
		} else if i == 0 {
			t.Logf("RESTORE of a bad listpack: %s", reply)
		}
		payload := streamPayload(entries, deleted, nodes, func([]byte) {})
		if reply := c.do("RESTORE", key, "0", payload); reply != "OK" {
			t.Fatalf("RESTORE of %v: %v", entries, reply)
		}
		var wantLive []testEntry
		for j, e := range entries {
			if !deleted[j] {
				wantLive = append(wantLive, e)
			}
		}
		if got := c.xrange(key); !slices.EqualFunc(got, wantLive, equalEntry) {
			t.Fatalf("XRANGE after RESTORE\n got %v\nwant %v", got, wantLive)
		}
		if n := c.must("XLEN", key).(int64); n != int64(len(wantLive)) {
			t.Fatalf("XLEN %d, want %d", n, len(wantLive))
		}
		// Redis's own DUMP holds our listpacks as they were.
		dumped := parseDump(t, []byte(c.must("DUMP", key).(string)))
		if len(dumped) != len(nodes) {
			t.Fatalf("DUMP has %d nodes, we restored %d", len(dumped), len(nodes))
		}
		decodeNodes(t, dumped)
	}
}

// streamPayload builds a DUMP payload of a stream (RDB type 19) of the
// listpacks of nodes, passed through edit, which holds entries (deleted[i]
// telling which are deleted) and no consumer groups.
func streamPayload(entries []testEntry, deleted []bool, nodes [][]byte, edit func(lp []byte)) []byte {
	appendLen := func(b []byte, n uint64) []byte {
		switch {
		case n < 1<<6:
			return append(b, byte(n))
		case n < 1<<14:
			return append(b, 0x40|byte(n>>8), byte(n))
		case n <= 0xFFFFFFFF:
			return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0x81), n)
	}
	appendString := func(b, s []byte) []byte { return append(appendLen(b, uint64(len(s))), s...) }
	appendID := func(b []byte, i id) []byte { return appendLen(appendLen(b, i.Ms), i.Seq) }

	p := []byte{19}
	p = appendLen(p, uint64(len(nodes)))
	for _, node := range nodes {
		first, _ := streamnode.FirstID(node)
		key := streamnode.MasterKey(first)
		p = appendString(p, key[:])
		lp := streamnode.AppendListpack(nil, node)
		edit(lp)
		p = appendString(p, lp)
	}
	var live uint64
	var firstLive, maxDeleted id
	for i, e := range entries {
		if deleted[i] {
			maxDeleted = e.id
			continue
		}
		if live == 0 {
			firstLive = e.id
		}
		live++
	}
	p = appendLen(p, live)
	p = appendID(p, entries[len(entries)-1].id)     // last ID
	p = appendID(p, firstLive)                      // first live ID
	p = appendID(p, maxDeleted)                     // largest deleted ID
	p = appendLen(p, uint64(len(entries)))          // entries ever added
	p = appendLen(p, 0)                             // consumer groups
	p = binary.LittleEndian.AppendUint16(p, 10)     // RDB version of Redis 7.0
	crc := ^crc64.Update(^uint64(0), jonesTable, p) // Redis's CRC-64: no pre or post inversion
	return binary.LittleEndian.AppendUint64(p, crc)
}

// jonesTable is CRC-64/Jones, reflected, as Redis's crc64 uses it.
var jonesTable = crc64.MakeTable(0x95AC9329AC4BC9B5)

func TestRedisCRC64(t *testing.T) {
	if got := ^crc64.Update(^uint64(0), jonesTable, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %x, want e9c6d914c4b8d9ca (Redis's check value)", got)
	}
}
