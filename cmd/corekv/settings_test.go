package main

import (
	"context"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/redis/go-redis/v9"
)

// settingValues gives, for every setting CONFIG SET takes and some that are
// set only at start, a value other than the default (as words of a config
// line) and what CONFIG GET then shows.
var settingValues = map[string]struct {
	words []string
	shown string
}{
	"requirepass":                       {[]string{"pw"}, "pw"},
	"maxclients":                        {[]string{"500"}, "500"},
	"loglevel":                          {[]string{"VERBOSE"}, "verbose"},
	"client-output-buffer-limit":        {[]string{"normal", "4mb", "2mb", "10", "pubsub", "16mb", "4mb", "30"}, "normal 4194304 2097152 10 slave 268435456 67108864 60 pubsub 16777216 4194304 30"},
	"notify-keyspace-events":            {[]string{"Kx"}, "xK"},
	"hz":                                {[]string{"1000"}, "500"},
	"active-expire-effort":              {[]string{"3"}, "3"},
	"save":                              {[]string{"900", "1"}, "900 1"},
	"rdbcompression":                    {[]string{"no"}, "no"},
	"rdbchecksum":                       {[]string{"no"}, "no"},
	"stop-writes-on-bgsave-error":       {[]string{"no"}, "no"},
	"sanitize-dump-payload":             {[]string{"CLIENTS"}, "clients"},
	"appendonly":                        {[]string{"no"}, "no"},
	"appendfsync":                       {[]string{"ALWAYS"}, "always"},
	"aof-use-rdb-preamble":              {[]string{"no"}, "no"},
	"aof-load-truncated":                {[]string{"no"}, "no"},
	"aof-timestamp-enabled":             {[]string{"yes"}, "yes"},
	"auto-aof-rewrite-percentage":       {[]string{"50"}, "50"},
	"auto-aof-rewrite-min-size":         {[]string{"1mb"}, "1048576"},
	"slowlog-log-slower-than":           {[]string{"-1"}, "-1"},
	"busy-reply-threshold":              {[]string{"2500"}, "2500"},
	"latency-tracking":                  {[]string{"no"}, "no"},
	"latency-tracking-info-percentiles": {[]string{"50", "99.99"}, "50 99.99"},
	"slowlog-max-len":                   {[]string{"64"}, "64"},
	"tracking-table-max-keys":           {[]string{"5000"}, "5000"},
	"hash-max-listpack-entries":         {[]string{"100"}, "100"},
	"hash-max-listpack-value":           {[]string{"1kb"}, "1024"},
	"set-max-intset-entries":            {[]string{"1000"}, "1000"},
	"zset-max-listpack-entries":         {[]string{"64"}, "64"},
	"zset-max-listpack-value":           {[]string{"32"}, "32"},
	"hll-sparse-max-bytes":              {[]string{"2000"}, "2000"},
	"list-max-listpack-size":            {[]string{"-3"}, "-3"},
	"list-compress-depth":               {[]string{"2"}, "2"},
	"stream-node-max-bytes":             {[]string{"8kb"}, "8192"},
	"stream-node-max-entries":           {[]string{"50"}, "50"},

	"databases":                   {[]string{"4"}, "4"},
	"shards":                      {[]string{"2"}, "2"},
	"pin":                         {[]string{"NO"}, "no"},
	"enable-debug-command":        {[]string{"local"}, "local"},
	"output-safety-cap":           {[]string{"512mb"}, "536870912"},
	"spin":                        {[]string{"5"}, "5"},
	"spin-contended":              {[]string{"yes"}, "yes"},
	"timeout":                     {[]string{"0"}, "0"},
	"maxmemory":                   {[]string{"1gb"}, "1073741824"},
	"maxmemory-policy":            {[]string{"ALLKEYS-LFU"}, "allkeys-lfu"},
	"maxmemory-samples":           {[]string{"10"}, "10"},
	"maxmemory-eviction-tenacity": {[]string{"20"}, "20"},
	"lfu-log-factor":              {[]string{"3"}, "3"},
	"lfu-decay-time":              {[]string{"0"}, "0"},
	"maxmemory-clients":           {[]string{"0"}, "0"},
	"key-load-delay":              {[]string{"0"}, "0"},
	"replicaof":                   {[]string{""}, ""},

	"proto-max-bulk-len":        {[]string{"536870912"}, "536870912"},
	"client-query-buffer-limit": {[]string{"1073741824"}, "1073741824"},
	"protected-mode":            {[]string{"no"}, "no"},
	"dbfilename":                {[]string{"corekv.rdb"}, "corekv.rdb"},
	"dir":                       {[]string{"/"}, "/"},
	"enable-protected-configs":  {[]string{"LOCAL"}, "local"},
}

// TestSettingValuesCoverTable keeps settingValues complete: a setting CONFIG
// SET takes that it does not name would go untested at start-up.
func TestSettingValuesCoverTable(t *testing.T) {
	for i := range settings.Table {
		s := &settings.Table[i]
		// Every test server is given its own port and bind.
		if s.Name == "port" || s.Name == "bind" {
			continue
		}
		if _, ok := settingValues[s.Name]; s.Mutable && !ok {
			t.Errorf("settingValues has no value for %s, which CONFIG SET takes", s.Name)
		}
	}
	for name := range settingValues {
		if settings.Find(name) == nil {
			t.Errorf("settingValues names %s, which is not a setting", name)
		}
	}
}

// checkSettings asks srv for every setting of settingValues.
func checkSettings(t *testing.T, srv *server) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.addr, Password: "pw"})
	defer c.Close()
	ctx := context.Background()
	for name, v := range settingValues {
		got, err := c.ConfigGet(ctx, name).Result()
		if err != nil || len(got) != 1 || got[name] != v.shown {
			t.Errorf("CONFIG GET %s = %v, %v; want %q", name, got, err, v.shown)
		}
	}
}

// quoteWord writes a word of a config line so that it reads back as itself.
func quoteWord(w string) string {
	if w == "" || strings.ContainsAny(w, " \t\"'") {
		return strconv.Quote(w)
	}
	return w
}

// TestSettingsInFile starts the binary with a config file that sets every
// setting of settingValues and reads them back with CONFIG GET.
func TestSettingsInFile(t *testing.T) {
	var b strings.Builder
	for name, v := range settingValues {
		b.WriteString(name)
		for _, w := range v.words {
			b.WriteString(" " + quoteWord(w))
		}
		b.WriteString("\n")
	}
	conf := filepath.Join(t.TempDir(), "corekv.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	checkSettings(t, startServerWithConfig(t, conf, "--port", "0", "--bind", "127.0.0.1"))
}

// TestSettingsAsFlags does the same with a flag for each setting.
func TestSettingsAsFlags(t *testing.T) {
	var args []string
	for name, v := range settingValues {
		args = append(args, "--"+name)
		args = append(args, v.words...)
	}
	checkSettings(t, startServer(t, nil, args...))
}

// TestSettingsRefusedAlike checks that a value CONFIG SET refuses is refused
// at start with the same reason, in the form Redis refuses a config line.
func TestSettingsRefusedAlike(t *testing.T) {
	srv := startServer(t, nil)
	c := srv.client(t, 2)
	ctx := context.Background()
	for _, tc := range [][2]string{
		{"maxclients", "0"}, {"maxclients", "abc"}, {"loglevel", "chatty"}, {"hz", "-1"},
		{"client-output-buffer-limit", "normal x 0 0"}, {"client-output-buffer-limit", "master 0 0 0"},
		{"notify-keyspace-events", "Q"}, {"active-expire-effort", "11"}, {"save", "900"}, {"save", "x 1"}, {"appendonly", "maybe"},
		{"slowlog-log-slower-than", "-2"}, {"latency-tracking", "1"}, {"latency-tracking-info-percentiles", "101"},
		{"slowlog-max-len", "-1"}, {"hash-max-listpack-value", "-1"}, {"hash-max-ziplist-entries", "x"},
		{"list-max-listpack-size", "2147483648"}, {"list-compress-depth", "-1"}, {"busy-reply-threshold", "-1"},
	} {
		name, value := tc[0], tc[1]
		err := c.ConfigSet(ctx, name, value).Err()
		_, reason, ok := strings.Cut(errText(err), ") - ")
		if !ok {
			t.Errorf("CONFIG SET %s %q: %v, want a refusal", name, value, err)
			continue
		}
		out, code := runCorekv(t, "--"+name, value)
		want := ">>> '" + name + " " + strconv.Quote(value) + "'\n" + reason + "\n"
		if code != 2 || !strings.Contains(out, want) {
			t.Errorf("corekv --%s %q: exit %d\n%s\nwant exit 2 with\n%s", name, value, code, out, want)
		}
	}
	// And what start-up alone may set is refused at run time, as Redis
	// refuses an immutable setting.
	for _, name := range []string{"databases", "shards", "spin", "enable-debug-command", "output-safety-cap", "daemonize", "replicaof"} {
		want := "ERR CONFIG SET failed (possibly related to argument '" + name + "') - can't set immutable config"
		if err := c.ConfigSet(ctx, name, "1").Err(); errText(err) != want {
			t.Errorf("CONFIG SET %s 1: %v, want %q", name, err, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestUnknownSettingRefused refuses a setting nobody knows, in a file and as
// a flag, with what redis-server prints for it.
func TestUnknownSettingRefused(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "bad.conf")
	if err := os.WriteFile(conf, []byte("port 0\n\nnosuch 1 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--nosuch", "1"}, {conf}} {
		out, code := runCorekv(t, args...)
		if code != 2 || !strings.Contains(out, "Bad directive or wrong number of arguments") {
			t.Errorf("corekv %q: exit %d\n%s", args, code, out)
			continue
		}
		redisServer, err := exec.LookPath("redis-server")
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		want, _ := exec.CommandContext(ctx, redisServer, args...).CombinedOutput()
		cancel()
		if !strings.Contains(out, strings.TrimSpace(string(want))) {
			t.Errorf("corekv %q prints\n%s\nredis-server\n%s", args, out, want)
		}
	}
}

// runCorekv runs the binary with args, expecting it to stop at once, and
// returns what it printed and its exit status.
func runCorekv(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, corekvBinary(t), args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("corekv %q: %v", args, err)
	}
	return string(out), 0
}

// TestConfigGetHiddenLikeRedis compares with redis-server what CONFIG GET
// shows of the settings Redis hides from its patterns (key-load-delay) and
// of corekv's own start-only ones, hidden the same way, and the refusals of
// CONFIG SET that Redis's introspection suite checks.
func TestConfigGetHiddenLikeRedis(t *testing.T) {
	ref := redis.NewClient(&redis.Options{Addr: compatStartRedis(t, needTool(t, "redis-server")), Protocol: 2})
	defer ref.Close()
	c := startServer(t, nil, "--shards", "2").client(t, 2)
	ctx := context.Background()

	for name, cl := range map[string]*redis.Client{"redis-server": ref, "corekv": c} {
		all, err := cl.ConfigGet(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, hidden := range []string{"key-load-delay", "daemonize"} {
			if _, ok := all[hidden]; ok && hidden == "key-load-delay" || ok && name == "corekv" {
				t.Errorf("%s: CONFIG GET * shows %s", name, hidden)
			}
		}
		got, err := cl.ConfigGet(ctx, "key-load-delay").Result()
		if err != nil || got["key-load-delay"] != "0" {
			t.Errorf("%s: CONFIG GET key-load-delay = %v, %v", name, got, err)
		}
		multi, err := cl.Do(ctx, "CONFIG", "GET", "maxmemory", "maxmemory*", "bind", "*of").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i := 0; i < len(multi); i += 2 {
			if seen[multi[i]] {
				t.Errorf("%s: CONFIG GET answers %s twice", name, multi[i])
			}
			seen[multi[i]] = true
		}
		for _, want := range []string{"maxmemory", "maxmemory-samples", "maxmemory-clients", "bind", "slaveof", "replicaof"} {
			if !seen[want] {
				t.Errorf("%s: CONFIG GET maxmemory maxmemory* bind *of lacks %s: %v", name, want, multi)
			}
		}
	}
	for _, name := range []string{"shards", "pin", "spin", "spin-contended", "output-safety-cap", "pprof", "journal-dir"} {
		all, _ := c.ConfigGet(ctx, "*").Result()
		if _, ok := all[name]; ok {
			t.Errorf("CONFIG GET * shows %s, which only the start sets", name)
		}
		if got, err := c.ConfigGet(ctx, name).Result(); err != nil || len(got) != 1 {
			t.Errorf("CONFIG GET %s = %v, %v", name, got, err)
		}
	}
	if got, _ := c.ConfigGet(ctx, "shards").Result(); got["shards"] != "2" {
		t.Errorf("CONFIG GET shards = %v", got)
	}

	// Each of these is answered alike by both (a name and its alias are
	// two settings to Redis's duplicate check); the values are ones both
	// servers hold, so that only the names decide.
	for _, args := range [][]any{
		{"daemonize", "yes"}, {"replicaof", "no one"}, {"databases", "16"},
		{"maxmemory", "0", "maxmemory", "0"}, {"maxclients", "100", "MAXCLIENTS", "100"},
		{"hash-max-listpack-entries", "512", "hash-max-ziplist-entries", "512"},
		{"nosuch", "1"}, {"maxclients"},
	} {
		full := append([]any{"CONFIG", "SET"}, args...)
		want, got := errText(ref.Do(ctx, full...).Err()), errText(c.Do(ctx, full...).Err())
		if got != want {
			t.Errorf("CONFIG SET %v: corekv %q, redis-server %q", args, got, want)
		}
	}
	// And each setting set to the value it has is taken, as Redis's CONFIG
	// sanity test does with every setting CONFIG GET * shows but those it
	// knows to be immutable or protected.
	all, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range all {
		if s := settings.Find(name); s.Mutable && !s.Protected {
			if err := c.ConfigSet(ctx, name, v).Err(); err != nil {
				t.Errorf("CONFIG SET %s %q (its own value): %v", name, v, err)
			}
		}
	}
	if err := c.ConfigSet(ctx, "port", "1").Err(); errText(err) !=
		"ERR CONFIG SET failed (possibly related to argument 'port') - corekv sets port only at start" {
		t.Errorf("CONFIG SET port 1: %v", err)
	}
}

// TestConfigProtected checks enable-protected-configs as Redis's
// introspection suite does: no refuses CONFIG SET of dir and dbfilename as
// redis-server (whose default is no) refuses it, local takes it from a
// loopback client only, yes from any.
func TestConfigProtected(t *testing.T) {
	ref := redis.NewClient(&redis.Options{Addr: compatStartRedis(t, needTool(t, "redis-server")), Protocol: 2})
	defer ref.Close()
	ctx := context.Background()
	no := startServer(t, nil).client(t, 2)
	for _, args := range [][]any{{"dir", "somedir"}, {"dbfilename", "somename"}, {"maxclients", "100", "dir", "/"}} {
		full := append([]any{"CONFIG", "SET"}, args...)
		want, got := errText(ref.Do(ctx, full...).Err()), errText(no.Do(ctx, full...).Err())
		if want == "" || got != want {
			t.Errorf("CONFIG SET %v: corekv %q, redis-server %q", args, got, want)
		}
	}

	// A non-loopback address of this machine, if it has one, to be a
	// remote client from.
	var remote string
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
				remote = ip.IP.String()
				break
			}
		}
	}
	bind := []string{"127.0.0.1"}
	if remote != "" {
		bind = append(bind, remote)
	}
	args := append([]string{"--port", "0", "--enable-protected-configs", "local", "--bind"}, bind...)
	srv := startServerArgs(t, nil, args)
	local := srv.client(t, 2)
	dir := t.TempDir()
	if err := local.ConfigSet(ctx, "dir", dir).Err(); err != nil {
		t.Fatalf("CONFIG SET dir from a local client: %v", err)
	}
	if got, _ := local.ConfigGet(ctx, "dir").Result(); got["dir"] != dir {
		t.Errorf("CONFIG GET dir = %v, want %s", got, dir)
	}
	if err := local.ConfigSet(ctx, "dbfilename", "somename").Err(); err != nil {
		t.Fatalf("CONFIG SET dbfilename from a local client: %v", err)
	}
	want := "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory"
	if err := local.ConfigSet(ctx, "dir", filepath.Join(dir, "nosuch")).Err(); errText(err) != want {
		t.Errorf("CONFIG SET dir to a missing one: %v, want %q", err, want)
	}
	if remote == "" {
		t.Log("no non-loopback address: the remote client goes untested")
		return
	}
	_, port, _ := net.SplitHostPort(srv.addr)
	r := redis.NewClient(&redis.Options{Addr: net.JoinHostPort(remote, port), Protocol: 2})
	defer r.Close()
	want = "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"
	if err := r.ConfigSet(ctx, "dir", dir).Err(); errText(err) != want {
		t.Errorf("CONFIG SET dir from %s: %v, want %q", remote, err, want)
	}
}

// startRedisWithConfig starts redis-server with the config file conf (and
// no persistence) on a free port and returns a client of it.
func startRedisWithConfig(t *testing.T, conf string) *redis.Client {
	t.Helper()
	port := compatFreePort(t)
	logs := &safeBuffer{}
	cmd := exec.Command(needTool(t, "redis-server"), conf, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { compatStop(t, cmd, done) })
	c := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Protocol: 2, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer PING:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// rewrittenLines splits a rewritten file at the marker into the lines
// before it and the set of lines after it (Redis adds them in an order of
// its own), leaving out the lines of the settings named in skip.
func rewrittenLines(text string, skip map[string]bool) (head []string, tail map[string]bool) {
	tail = map[string]bool{}
	marked := false
	for _, l := range strings.Split(text, "\n") {
		if name, _, _ := strings.Cut(l, " "); skip[name] {
			continue
		}
		switch {
		case l == settings.RewriteMarker:
			marked = true
		case marked && l != "":
			tail[l] = true
		case !marked:
			head = append(head, l)
		}
	}
	return head, tail
}

// TestConfigRewriteLikeRedis rewrites the same config file in both servers
// after the same CONFIG SET and compares what they write: settings changed
// in place, duplicate lines (a name and its alias too) removed, comments
// kept, new settings after Redis's marker. corekv then starts from its file
// with the same configuration; and without a file both refuse alike.
func TestConfigRewriteLikeRedis(t *testing.T) {
	const text = "# a comment\nmaxclients 500\n\nhz 20\nhz 30\nhash-max-ziplist-entries 20\nhash-max-listpack-entries 21\n" +
		"loglevel notice\nslowlog-max-len 100\n"
	dir := t.TempDir()
	refConf, conf := filepath.Join(dir, "redis.conf"), filepath.Join(dir, "corekv.conf")
	for _, p := range []string{refConf, conf} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ref := startRedisWithConfig(t, refConf)
	c := startServerWithConfig(t, conf, "--port", "0", "--bind", "127.0.0.1").client(t, 2)
	ctx := context.Background()
	set := []any{"CONFIG", "SET", "maxclients", "10000", "hz", "15", "notify-keyspace-events", "Kx",
		"hash-max-listpack-entries", "100", "slowlog-max-len", "128", "list-max-listpack-size", "-3",
		"zset-max-listpack-value", "100", "slowlog-log-slower-than", "-1"}
	for _, cl := range []*redis.Client{ref, c} {
		if err := cl.Do(ctx, set...).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.Do(ctx, "CONFIG", "REWRITE").Err(); err != nil {
			t.Fatal(err)
		}
	}
	refText, _ := os.ReadFile(refConf)
	got, _ := os.ReadFile(conf)
	// What the flags gave, and what Redis always writes.
	skip := map[string]bool{"port": true, "bind": true, "save": true, "appendonly": true, "dir": true, "user": true,
		"latency-tracking-info-percentiles": true}
	wantHead, wantTail := rewrittenLines(string(refText), skip)
	gotHead, gotTail := rewrittenLines(string(got), skip)
	if !slices.Equal(gotHead, wantHead) || !maps.Equal(gotTail, wantTail) {
		t.Errorf("corekv rewrote\n%s\nredis-server\n%s", got, refText)
	}

	before, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	c2 := startServerWithConfig(t, conf, "--port", "0").client(t, 2)
	after, err := c2.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Each server runs in a working directory of its own, dir's default.
	delete(before, "port")
	delete(after, "port")
	delete(before, "dir")
	delete(after, "dir")
	if !maps.Equal(before, after) {
		t.Errorf("restarted from the rewritten file:\n%v\nwant\n%v", after, before)
	}

	// DEBUG CONFIG-REWRITE-FORCE-ALL writes every setting; the server
	// starts from that file too, with the same configuration.
	dbg := startServerWithConfig(t, conf, "--port", "0", "--enable-debug-command", "yes").client(t, 2)
	if err := dbg.Do(ctx, "DEBUG", "CONFIG-REWRITE-FORCE-ALL").Err(); err != nil {
		t.Fatal(err)
	}
	all, _ := os.ReadFile(conf)
	for i := range settings.Table {
		if s := &settings.Table[i]; !strings.Contains(string(all), "\n"+s.Name+" ") {
			t.Errorf("DEBUG CONFIG-REWRITE-FORCE-ALL wrote no %s line:\n%s", s.Name, all)
		}
	}
	c3 := startServerWithConfig(t, conf, "--port", "0").client(t, 2)
	after, _ = c3.ConfigGet(ctx, "*").Result()
	delete(after, "port")
	delete(after, "dir")
	before["enable-debug-command"] = "yes"
	if !maps.Equal(before, after) {
		t.Errorf("restarted from the file of every setting:\n%v\nwant\n%v", after, before)
	}

	noFile := redis.NewClient(&redis.Options{Addr: compatStartRedis(t, needTool(t, "redis-server")), Protocol: 2})
	defer noFile.Close()
	want := errText(noFile.Do(ctx, "CONFIG", "REWRITE").Err())
	if got := errText(startServer(t, nil).client(t, 2).Do(ctx, "CONFIG", "REWRITE").Err()); want == "" || got != want {
		t.Errorf("CONFIG REWRITE without a file: %q, redis-server %q", got, want)
	}
}
