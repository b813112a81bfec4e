package main

import (
	"bytes"
	"testing"
)

// commandInfoNewer lists the subcommands corekv serves that redis-server
// 7.0 does not have (they came in 7.2), so there is nothing to compare.
var commandInfoNewer = map[string]bool{"client|setinfo": true, "client|no-touch": true}

// commandInfoFlagDiffs are the known differences in COMMAND's flags field,
// with the reason; none at present.
var commandInfoFlagDiffs = map[string]string{}

// TestCommandInfoCompat compares COMMAND's entries with redis-server's for
// every command both have and for their subcommands: the ACL categories
// byte for byte, and the arity and flags.
func TestCommandInfoCompat(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	redisAddr := compatStartRedis(t, redisPath)
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	want := commandEntries(t, redisAddr)
	got := commandEntries(t, srv.addr)
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
		if g, w := e.elems[6].raw, r.elems[6].raw; !bytes.Equal(g, w) {
			t.Errorf("%s: ACL categories\n got %q\nwant %q", name, g, w)
		}
		if g, w := e.elems[1].raw, r.elems[1].raw; !bytes.Equal(g, w) {
			t.Errorf("%s: arity %q, want %q", name, g, w)
		}
		sameFlags := bytes.Equal(e.elems[2].raw, r.elems[2].raw)
		if reason := commandInfoFlagDiffs[name]; reason == "" && !sameFlags {
			t.Errorf("%s: flags\n got %q\nwant %q", name, e.elems[2].raw, r.elems[2].raw)
		} else if reason != "" && sameFlags {
			t.Errorf("%s: flags now agree; drop the known difference %q", name, reason)
		}
	}
	// Every command and container of corekv's, and a subcommand of each.
	for _, name := range []string{"get", "zunionstore", "client", "client|kill", "command|getkeys",
		"config|set", "memory|usage", "object|help", "pubsub|numsub", "slowlog|reset"} {
		if got[name] == nil || want[name] == nil {
			t.Errorf("%s: not compared", name)
		}
	}
	t.Logf("%d entries compared", compared)

	// COMMAND INFO finds a subcommand by its full name, and answers a name
	// it does not know with a null. These entries have no tips or key
	// specs, so they compare whole.
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
		"config|get|x", "|", "corekv.dump", "get")
	w, err := rc.do(info)
	if err != nil {
		t.Fatal(err)
	}
	g, err := kc.do(info)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.elems) != 9 || len(g.elems) != 9 {
		t.Fatalf("COMMAND INFO of 9 names: %d entries from redis-server, %d from corekv", len(w.elems), len(g.elems))
	}
	for i, a := range info.args[2:10] {
		if !bytes.Equal(g.elems[i].raw, w.elems[i].raw) {
			t.Errorf("COMMAND INFO %s:\n got %q\nwant %q", a, g.elems[i].raw, w.elems[i].raw)
		}
	}
}

// commandEntries sends COMMAND and returns its entries by name, each
// container's subcommands among them.
func commandEntries(t *testing.T, addr string) map[string]*compatReply {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
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
