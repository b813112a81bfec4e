package main

import (
	"bytes"
	"testing"
)

// commandInfoNewer lists the subcommands corekv serves that redis-server
// 7.0 does not have (they came in 7.2), so there is nothing to compare.
var commandInfoNewer = map[string]bool{"client|setinfo": true, "client|no-touch": true}

// commandInfoAbsent are the subcommands redis-server 7.0 has that corekv
// does not serve, so its containers do not list them.
var commandInfoAbsent = map[string]bool{
	"memory|doctor": true, "memory|malloc-stats": true, "memory|purge": true, "memory|stats": true,
	"latency|doctor": true, "latency|graph": true, "latency|history": true, "latency|latest": true,
	"latency|reset": true, "script|debug": true,
}

// commandInfoFlagDiffs are the known differences in COMMAND's flags field,
// with the reason; none at present.
var commandInfoFlagDiffs = map[string]string{}

// TestCommandInfoCompat compares COMMAND's entries with redis-server's for
// every command both have and for their subcommands, in RESP2 and RESP3:
// arity, flags, key positions, ACL categories, tips and key
// specifications byte for byte, and the names of the subcommands.
func TestCommandInfoCompat(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	redisAddr := compatStartRedis(t, redisPath)
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	for _, proto := range []int{2, 3} {
		want := commandEntries(t, redisAddr, proto)
		got := commandEntries(t, srv.addr, proto)
		compared := 0
		for name, e := range got {
			r, ok := want[name]
			if !ok {
				if !commandInfoNewer[name] {
					t.Errorf("%s: in corekv's COMMAND, not in redis-server's", name)
				}
				continue
			}
			compared++
			if len(e.elems) != 10 {
				t.Errorf("%s: %d fields, want 10", name, len(e.elems))
				continue
			}
			for i, field := range []string{1: "arity", 3: "first key", 4: "last key", 5: "step",
				6: "ACL categories", 7: "tips", 8: "key specs"} {
				if g, w := e.elems[i].raw, r.elems[i].raw; field != "" && !bytes.Equal(g, w) {
					t.Errorf("RESP%d %s: %s\n got %q\nwant %q", proto, name, field, g, w)
				}
			}
			sameFlags := bytes.Equal(e.elems[2].raw, r.elems[2].raw)
			if reason := commandInfoFlagDiffs[name]; reason == "" && !sameFlags {
				t.Errorf("%s: flags\n got %q\nwant %q", name, e.elems[2].raw, r.elems[2].raw)
			} else if reason != "" && sameFlags {
				t.Errorf("%s: flags now agree; drop the known difference %q", name, reason)
			}
			// Subcommands: the same names, in a reply of the same type.
			gs, ws := e.elems[9], r.elems[9]
			if gs.raw[0] != ws.raw[0] {
				t.Errorf("RESP%d %s: subcommands %q, want %q", proto, name, gs.raw[0], ws.raw[0])
			}
			for _, s := range ws.elems {
				if sub := string(compatBulk(s.elems[0])); got[sub] == nil && !commandInfoAbsent[sub] {
					t.Errorf("%s: subcommand %s missing", name, sub)
				}
			}
		}
		for sub := range commandInfoAbsent {
			if got[sub] != nil {
				t.Errorf("%s: served now; drop it from commandInfoAbsent", sub)
			}
		}
		// Every command and container of corekv's, and a subcommand of each.
		for _, name := range []string{"get", "zunionstore", "client", "client|kill", "command|getkeys",
			"config|set", "memory|usage", "object|help", "pubsub|numsub", "slowlog|reset", "sort", "zunion"} {
			if got[name] == nil || want[name] == nil {
				t.Errorf("%s: not compared", name)
			}
		}
		t.Logf("RESP%d: %d entries compared", proto, compared)
	}

	// COMMAND INFO finds a subcommand by its full name, and answers a name
	// it does not know with a null. Entries without subcommands compare
	// whole.
	rc, err := compatDial(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	kc, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.close()
	info := compatA("COMMAND", "INFO", "config|get", "SLOWLOG|Help", "nosuch", "get|x", "config|nosuch",
		"config|get|x", "|", "corekv.dump", "get", "zunionstore", "sort", "set", "object|encoding")
	w, err := rc.do(info)
	if err != nil {
		t.Fatal(err)
	}
	g, err := kc.do(info)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.args) - 2; len(w.elems) != n || len(g.elems) != n {
		t.Fatalf("COMMAND INFO of %d names: %d entries from redis-server, %d from corekv", n, len(w.elems), len(g.elems))
	}
	for i, a := range info.args[2:] {
		if !bytes.Equal(g.elems[i].raw, w.elems[i].raw) {
			t.Errorf("COMMAND INFO %s:\n got %q\nwant %q", a, g.elems[i].raw, w.elems[i].raw)
		}
	}
}

// dialProto connects to addr and, for RESP3, says HELLO 3.
func dialProto(t *testing.T, addr string, proto int) *compatConn {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	if proto == 3 {
		if _, err := c.do(compatA("HELLO", "3")); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// commandEntries sends COMMAND and returns its entries by name, each
// container's subcommands among them.
func commandEntries(t *testing.T, addr string, proto int) map[string]*compatReply {
	t.Helper()
	c := dialProto(t, addr, proto)
	defer c.close()
	rep, err := c.do(compatA("COMMAND"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.kind != '*' || len(rep.elems) == 0 {
		t.Fatalf("COMMAND on %s: %.200q", addr, rep.raw)
	}
	out := map[string]*compatReply{}
	var add func(e *compatReply)
	add = func(e *compatReply) {
		if len(e.elems) < 10 {
			t.Fatalf("COMMAND on %s: entry of %d fields: %.200q", addr, len(e.elems), e.raw)
		}
		out[string(compatBulk(e.elems[0]))] = e
		for _, s := range e.elems[9].elems {
			add(s)
		}
	}
	for _, e := range rep.elems {
		add(e)
	}
	return out
}

// TestCommandListCompat compares COMMAND LIST, with and without a filter,
// with redis-server's: the names of commands and subcommands corekv has
// among redis-server's, and its errors byte for byte.
func TestCommandListCompat(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	rc := dialProto(t, redisAddr, 2)
	defer rc.close()
	kc := dialProto(t, srv.addr, 2)
	defer kc.close()
	names := func(rep *compatReply) map[string]bool {
		m := map[string]bool{}
		for _, e := range rep.elems {
			m[string(compatBulk(e))] = true
		}
		return m
	}
	all, err := kc.do(compatA("COMMAND", "LIST"))
	if err != nil {
		t.Fatal(err)
	}
	corekv := names(all)
	if !corekv["get"] || !corekv["config|get"] {
		t.Fatalf("COMMAND LIST: %d names, without get or config|get", len(corekv))
	}
	for _, args := range [][]string{
		{"LIST"},
		{"LIST", "FILTERBY", "ACLCAT", "transaction"},
		{"LIST", "FILTERBY", "aclcat", "Hash"},
		{"LIST", "FILTERBY", "ACLCAT", "dangerous"},
		{"LIST", "FILTERBY", "ACLCAT", "nosuch"},
		{"LIST", "FILTERBY", "PATTERN", "CONFIG*"},
		{"LIST", "FILTERBY", "PATTERN", "*|help"},
		{"LIST", "FILTERBY", "PATTERN", "z[a-m]*"},
		{"LIST", "FILTERBY", "MODULE", "x"},
		{"LIST", "FILTERBY"},
		{"LIST", "FILTERBY", "ACLCAT"},
		{"LIST", "FILTERBY", "FOO", "bar"},
		{"LIST", "x"},
		{"LIST", "FILTERBY", "ACLCAT", "hash", "x"},
	} {
		cmd := compatA(append([]string{"COMMAND"}, args...)...)
		w, err := rc.do(cmd)
		if err != nil {
			t.Fatal(err)
		}
		g, err := kc.do(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if w.kind != '*' || g.kind != '*' {
			if !bytes.Equal(g.raw, w.raw) {
				t.Errorf("COMMAND %q: got %q, want %q", args, g.raw, w.raw)
			}
			continue
		}
		got, want := names(g), names(w)
		for n := range want {
			if corekv[n] && !got[n] {
				t.Errorf("COMMAND %q: %s missing", args, n)
			}
		}
		for n := range got {
			if !want[n] && !commandInfoNewer[n] {
				t.Errorf("COMMAND %q: %s listed, not by redis-server", args, n)
			}
		}
	}
}

// TestCommandDocsCompat compares COMMAND DOCS with redis-server's for every
// command and subcommand corekv has, in RESP2 and RESP3: byte for byte,
// but for a container's subcommands, compared by name (each is compared
// on its own too).
func TestCommandDocsCompat(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	for _, proto := range []int{2, 3} {
		rc := dialProto(t, redisAddr, proto)
		defer rc.close()
		kc := dialProto(t, srv.addr, proto)
		defer kc.close()
		do := func(c *compatConn, args ...string) *compatReply {
			rep, err := c.do(compatA(append([]string{"COMMAND", "DOCS"}, args...)...))
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		list, err := kc.do(compatA("COMMAND", "LIST"))
		if err != nil {
			t.Fatal(err)
		}
		compared := 0
		for _, e := range list.elems {
			name := string(compatBulk(e))
			if commandInfoNewer[name] {
				continue
			}
			w, g := do(rc, name), do(kc, name)
			if len(w.elems) != 2 || len(g.elems) != 2 {
				t.Errorf("RESP%d COMMAND DOCS %s: got %.200q, want %.200q", proto, name, g.raw, w.raw)
				continue
			}
			compared++
			wd, gd := w.elems[1], g.elems[1]
			if !bytes.Contains(wd.raw, []byte("subcommands")) {
				if !bytes.Equal(gd.raw, wd.raw) {
					t.Errorf("RESP%d COMMAND DOCS %s:\n got %q\nwant %q", proto, name, gd.raw, wd.raw)
				}
				continue
			}
			if len(gd.elems) != len(wd.elems) {
				t.Errorf("RESP%d COMMAND DOCS %s: %d fields, want %d", proto, name, len(gd.elems), len(wd.elems))
				continue
			}
			for i := 0; i+1 < len(wd.elems); i += 2 {
				field := string(compatBulk(wd.elems[i]))
				if field != "subcommands" {
					if !bytes.Equal(gd.elems[i].raw, wd.elems[i].raw) || !bytes.Equal(gd.elems[i+1].raw, wd.elems[i+1].raw) {
						t.Errorf("RESP%d COMMAND DOCS %s: field %d\n got %q %q\nwant %q %q", proto, name, i/2,
							gd.elems[i].raw, gd.elems[i+1].raw, wd.elems[i].raw, wd.elems[i+1].raw)
					}
					continue
				}
				got := map[string]bool{}
				for j := 0; j < len(gd.elems[i+1].elems); j += 2 {
					got[string(compatBulk(gd.elems[i+1].elems[j]))] = true
				}
				for j := 0; j < len(wd.elems[i+1].elems); j += 2 {
					sub := string(compatBulk(wd.elems[i+1].elems[j]))
					if !got[sub] && !commandInfoAbsent[sub] {
						t.Errorf("COMMAND DOCS %s: subcommand %s missing", name, sub)
					}
				}
			}
		}
		if compared < 200 {
			t.Errorf("RESP%d: only %d entries compared", proto, compared)
		}
		// Several names: unknown ones are left out.
		args := []string{"get", "nosuch", "CONFIG|get", "zadd", "get|x"}
		if w, g := do(rc, args...), do(kc, args...); !bytes.Equal(g.raw, w.raw) {
			t.Errorf("RESP%d COMMAND DOCS %q:\n got %q\nwant %q", proto, args, g.raw, w.raw)
		}
	}
}
