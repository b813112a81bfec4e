package servercmd

import (
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// TestWriteCommandInfo checks COMMAND INFO entries byte for byte as
// redis-server 7.0 writes them: the ACL categories in Redis's order, flags
// included, key positions and specs, tips, and a container's subcommands
// as entries of their own.
func TestWriteCommandInfo(t *testing.T) {
	tests := []struct {
		name  string
		proto int
		want  string
	}{
		{"dbsize", 3, "*10\r\n$6\r\ndbsize\r\n:1\r\n~2\r\n+readonly\r\n+fast\r\n:0\r\n:0\r\n:0\r\n" +
			"~3\r\n+@keyspace\r\n+@read\r\n+@fast\r\n~2\r\n$25\r\nrequest_policy:all_shards\r\n$23\r\nresponse_policy:agg_sum\r\n~0\r\n~0\r\n"},
		{"watch", 2, "*10\r\n$5\r\nwatch\r\n:-2\r\n*5\r\n+noscript\r\n+loading\r\n+stale\r\n+fast\r\n+allow_busy\r\n" +
			":1\r\n:-1\r\n:1\r\n*2\r\n+@fast\r\n+@transaction\r\n*0\r\n*1\r\n*6\r\n" +
			"$5\r\nflags\r\n*1\r\n+RO\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" + "*0\r\n"},
		// A key count: no first key, last key or step; a keynum key spec.
		{"zunion", 3, "*10\r\n$6\r\nzunion\r\n:-3\r\n~2\r\n+readonly\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n" +
			"~3\r\n+@read\r\n+@sortedset\r\n+@slow\r\n~0\r\n~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$6\r\nkeynum\r\n$4\r\nspec\r\n%3\r\n" +
			"$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n~0\r\n"},
		// A container has no keys of its own; its subcommands do.
		{"memory", 2, "*10\r\n$6\r\nmemory\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*0\r\n" +
			"*2\r\n" +
			"*10\r\n$11\r\nmemory|help\r\n:2\r\n*2\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*0\r\n*0\r\n" +
			"*10\r\n$12\r\nmemory|usage\r\n:-3\r\n*1\r\n+readonly\r\n:2\r\n:2\r\n:1\r\n*2\r\n+@read\r\n+@slow\r\n*0\r\n*1\r\n*6\r\n" +
			"$5\r\nflags\r\n*1\r\n+RO\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:2\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" + "*0\r\n"},
	}
	for _, tt := range tests {
		w := &resp.Writer{Proto: tt.proto}
		writeCommandInfo(w, router.LookupString(tt.name))
		if string(w.B) != tt.want {
			t.Errorf("%s (RESP%d):\n got %q\nwant %q", tt.name, tt.proto, w.B, tt.want)
		}
	}
}

func TestLookupPublic(t *testing.T) {
	for name, want := range map[string]string{
		"get": "get", "GET": "get", "config|get": "config|get", "CONFIG|Get": "config|get",
		"object|encoding": "object|encoding", "client|no-evict": "client|no-evict",
		"get|x": "", "config|nosuch": "", "config|get|x": "", "config|": "", "|": "", "|get": "",
		"corekv.dump": "", "nosuch": "", "": "",
	} {
		got := ""
		if c := lookupPublic([]byte(name)); c != nil {
			got = c.Name
		}
		if got != want {
			t.Errorf("lookupPublic(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestContainerSubcommands checks ContainerSubcommands against rows of the
// command table, shard containers' too.
func TestContainerSubcommands(t *testing.T) {
	if subs, ok := ContainerSubcommands("object"); !ok || subs["encoding"] != 3 || subs["help"] != 2 {
		t.Errorf("object: subcommands %v", subs)
	}
	if subs, ok := ContainerSubcommands("slowlog"); !ok || subs["get"] != -2 {
		t.Errorf("slowlog: subcommands %v", subs)
	}
	if subs, ok := ContainerSubcommands("get"); ok {
		t.Errorf("get: subcommands %v", subs)
	}
}
