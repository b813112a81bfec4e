package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestMemoryAccounting loads keys into a real server and checks that INFO
// memory counts the keyspace (most of which lives outside the Go heap), and
// that the memory goes back to the kernel after FLUSHALL and, within seconds,
// after deleting every key one by one.
func TestMemoryAccounting(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n := 1_000_000 // enough that the fixed part of RSS is small beside it
	// A server built with the race detector keeps shadow memory for what it
	// touched, off the Go heap too, and never gives it back: RSS says nothing
	// about the keyspace there, and loading is slow.
	rssCounts := !raceBuild
	if raceBuild {
		n = 200_000
	}
	load := func() {
		for start := 0; start < n; start += 10_000 {
			p := c.Pipeline()
			for i := start; i < start+10_000; i++ {
				p.Set(ctx, "mem:"+strconv.Itoa(i), "0123456789abcdef", 0)
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := c.DBSize(ctx).Val(); got != int64(n) {
			t.Fatalf("DBSIZE %d after loading %d keys", got, n)
		}
	}
	// The tables give memory back over their timer ticks, and RSS follows
	// when the kernel takes it.
	settled := func(what string, ok func(m map[string]int64) bool) map[string]int64 {
		t.Helper()
		var m map[string]int64
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if m = infoFields(t, ctx, c, "memory"); ok(m) {
				return m
			}
		}
		t.Fatalf("%s: INFO memory never got there: %v", what, m)
		return nil
	}

	base := infoFields(t, ctx, c, "memory")
	load()
	full := settled("loaded", func(m map[string]int64) bool { return m["used_memory_dataset"] > 20*int64(n) })
	t.Logf("base rss %d; loaded %d keys: used_memory %d (off heap %d, Go heap %d), rss %d, dataset %d",
		base["used_memory_rss"], n, full["used_memory"], full["used_memory_off_heap"], full["used_memory_go_heap"], full["used_memory_rss"],
		full["used_memory_dataset"])
	if full["used_memory_off_heap"] < full["used_memory_dataset"]/2 {
		t.Errorf("off-heap memory %d for a dataset of %d: the keyspace should live mostly off the Go heap",
			full["used_memory_off_heap"], full["used_memory_dataset"])
	}
	if full["used_memory"] < full["used_memory_off_heap"] || full["used_memory_peak"] < full["used_memory"] {
		t.Errorf("used_memory %d, off heap %d, peak %d: used must count the off-heap memory, peak the most used",
			full["used_memory"], full["used_memory_off_heap"], full["used_memory_peak"])
	}
	if grew := full["used_memory_rss"] - base["used_memory_rss"]; rssCounts && grew < full["used_memory_off_heap"]/2 {
		t.Errorf("RSS grew by %d with %d bytes off heap", grew, full["used_memory_off_heap"])
	}

	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	settled("after FLUSHALL", func(m map[string]int64) bool {
		return m["used_memory_off_heap"] == 0 &&
			(!rssCounts || m["used_memory_rss"]-base["used_memory_rss"] < (full["used_memory_rss"]-base["used_memory_rss"])/3)
	})

	load()
	for start := 0; start < n; start += 10_000 {
		p := c.Pipeline()
		for i := start; i < start+10_000; i++ {
			p.Del(ctx, "mem:"+strconv.Itoa(i))
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.DBSize(ctx).Val(); got != 0 {
		t.Fatalf("DBSIZE %d after deleting every key", got)
	}
	after := settled("after DEL of every key", func(m map[string]int64) bool {
		return m["used_memory_off_heap"] < full["used_memory_off_heap"]/4 &&
			(!rssCounts || m["used_memory_rss"]-base["used_memory_rss"] < (full["used_memory_rss"]-base["used_memory_rss"])/3)
	})
	t.Logf("after deleting every key: used_memory %d (off heap %d), rss %d", after["used_memory"],
		after["used_memory_off_heap"], after["used_memory_rss"])
	s.mustServe(t)
}

// infoFields returns the integer fields of one INFO section.
func infoFields(t *testing.T, ctx context.Context, c *redis.Client, section string) map[string]int64 {
	t.Helper()
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(text, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			out[k] = n
		}
	}
	return out
}

// TestLoopStallCounters checks the INFO fields that show a stalled shard: a
// DEBUG SLEEP of 200 ms blocks its shard's loop for one turn, which must be
// counted as a slow turn and be the longest; after CONFIG RESETSTAT the
// longest turn is forgotten. (Other turns of a millisecond or more happen on
// a busy machine, so the test only relies on the one it made.)
func TestLoopStallCounters(t *testing.T) {
	s := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const sleepUs = 200_000
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "DEBUG", "SLEEP", "0.2").Err(); err != nil {
		t.Fatal(err)
	}
	var m map[string]int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m = infoFields(t, ctx, c, "stats"); m["slow_loop_turns"] >= 1 && m["longest_loop_turn_usec"] >= sleepUs {
			break
		}
	}
	if m["slow_loop_turns"] < 1 || m["longest_loop_turn_usec"] < sleepUs || m["longest_loop_turn_usec"] > 10*sleepUs {
		t.Fatalf("after DEBUG SLEEP 0.2: slow_loop_turns %d, longest_loop_turn_usec %d",
			m["slow_loop_turns"], m["longest_loop_turn_usec"])
	}
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m = infoFields(t, ctx, c, "stats"); m["longest_loop_turn_usec"] < sleepUs {
			return
		}
	}
	t.Fatalf("after CONFIG RESETSTAT: longest_loop_turn_usec %d, still the DEBUG SLEEP's", m["longest_loop_turn_usec"])
}

// TestInfoSectionsCompat compares INFO's default sections with
// redis-server's: the headers corekv shares with it come in Redis's order
// and spelling, the replication section has Redis's fields in order with a
// master's values, and the persistence fields corekv has are Redis's, in
// its order.
func TestInfoSectionsCompat(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	info := func(addr string, args ...string) string {
		c := dialProto(t, addr, 2)
		defer c.close()
		rep, err := c.do(compatA(append([]string{"INFO"}, args...)...))
		if err != nil {
			t.Fatal(err)
		}
		return string(compatBulk(rep))
	}
	type field struct{ name, value string }
	parse := func(text string) (headers []string, fields []field) {
		for _, line := range strings.Split(text, "\r\n") {
			switch {
			case strings.HasPrefix(line, "# "):
				headers = append(headers, line[2:])
			case strings.Contains(line, ":"):
				k, v, _ := strings.Cut(line, ":")
				fields = append(fields, field{k, v})
			}
		}
		return headers, fields
	}
	redisHeaders, _ := parse(info(redisAddr))
	corekvHeaders, _ := parse(info(srv.addr))
	pos := map[string]int{}
	for i, h := range redisHeaders {
		pos[h] = i
	}
	last, shared := -1, 0
	for _, h := range corekvHeaders {
		i, ok := pos[h]
		if !ok {
			continue
		}
		if i < last {
			t.Errorf("INFO sections %v: %s out of Redis's order %v", corekvHeaders, h, redisHeaders)
		}
		last = i
		shared++
	}
	if shared < 8 {
		t.Errorf("INFO sections %v share %d with Redis's %v, want at least 8", corekvHeaders, shared, redisHeaders)
	}

	_, want := parse(info(redisAddr, "replication"))
	_, got := parse(info(srv.addr, "replication"))
	if len(got) != len(want) {
		t.Fatalf("INFO replication: %v, want the fields of %v", got, want)
	}
	for i := range want {
		if got[i].name != want[i].name {
			t.Errorf("INFO replication field %d: %s, want %s", i, got[i].name, want[i].name)
		}
		if want[i].name != "master_replid" && got[i].value != want[i].value {
			t.Errorf("INFO replication %s: %s, want %s", want[i].name, got[i].value, want[i].value)
		}
		if want[i].name == "master_replid" && len(got[i].value) != 40 {
			t.Errorf("master_replid %q, want 40 hex digits", got[i].value)
		}
	}

	_, want = parse(info(redisAddr, "persistence"))
	_, got = parse(info(srv.addr, "persistence"))
	redisField := map[string]int{}
	for i, f := range want {
		redisField[f.name] = i
	}
	last = -1
	for _, f := range got {
		i, ok := redisField[f.name]
		if !ok || i < last {
			t.Errorf("INFO persistence %v: %s not among Redis's fields, in its order: %v", got, f.name, want)
		}
		last = i
		if f.name == "loading" && f.value != "0" || f.name == "aof_enabled" && f.value != "0" {
			t.Errorf("INFO persistence %s:%s, want 0", f.name, f.value)
		}
	}
	if len(got) < 10 {
		t.Errorf("INFO persistence has %d fields: %v", len(got), got)
	}
}

// TestCommandStatsAtOnce: INFO commandstats shows the connection's own
// commands that ran on its core at once, counted from CONFIG RESETSTAT, and
// a container's subcommands under their own names ("config|get"), as
// redis-server does; it is read once, never waited for.
func TestCommandStatsAtOnce(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	script := []compatCmd{compatS("PING"), compatS("CONFIG RESETSTAT"), compatS("PING"), compatS("PING"),
		compatS("ECHO x"), compatS("ECHO"), compatS("CONFIG GET maxmemory"), compatS("CONFIG"),
		compatS("CONFIG GET"), compatS("CONFIG NOSUCH"), compatS("CLIENT ID"), compatS("CLIENT")}
	names := []string{"ping", "echo", "config", "config|resetstat", "config|get", "config|nosuch", "client",
		"client|id", "info"}
	stats := func(addr string) string {
		c := compatRun(t, addr, script)
		defer c.close()
		r, err := c.do(compatS("INFO commandstats"))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, n := range names {
			m := cmdStat(string(r.raw), n)
			fmt.Fprintf(&b, "%s calls=%s rejected=%s failed=%s; ", n, m["calls"], m["rejected_calls"], m["failed_calls"])
		}
		return b.String()
	}
	if got, want := stats(srv.addr), stats(redisAddr); got != want {
		t.Errorf("corekv:       %s\nredis-server: %s", got, want)
	}
}

// TestInfoInPipeline sends one pipeline, in a single write, of writes and
// reads on every shard of a 4-shard corekv with CONFIG RESETSTAT and INFO
// among them, and compares what each INFO reports with redis-server's for the
// same pipeline: INFO counts every command sent before it and none after,
// whichever shard ran it, and CONFIG RESETSTAT clears what came before it
// only.
func TestInfoInPipeline(t *testing.T) {
	const shards = 4
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), shards)
	var script []compatCmd
	for sh := range shards {
		k := shardKey("pre:", sh, shards)
		script = append(script, compatA("SET", k, "1"), compatA("GET", k))
	}
	script = append(script, compatS("CONFIG RESETSTAT"))
	for sh := range shards {
		k := shardKey("k:", sh, shards)
		script = append(script, compatA("SET", k, "1"), compatA("GET", k), compatA("GET", k+"-missing"),
			compatA("INCR", k), compatA("LPUSH", k, "x"))
	}
	script = append(script, compatS("INFO keyspace"), compatS("INFO stats"), compatS("INFO commandstats"))
	for sh := range shards {
		k := shardKey("late:", sh, shards)
		script = append(script, compatA("SET", k, "1"), compatA("GET", k))
	}
	script = append(script, compatS("INFO commandstats"), compatS("INFO keyspace"))

	fields := []string{"keyspace_hits", "keyspace_misses", "total_commands_processed"}
	cmds := []string{"set", "get", "incr", "lpush", "config|resetstat", "info"}
	report := func(addr string) string {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		if _, err := c.do(compatS("FLUSHALL")); err != nil {
			t.Fatal(err)
		}
		var frame []byte
		for _, cmd := range script {
			frame = compatEncode(frame, cmd)
		}
		if err := c.send(frame); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, cmd := range script {
			r, err := c.read()
			if err != nil {
				t.Fatal(err)
			}
			if cmd.args[0] != "INFO" {
				continue
			}
			text := string(r.raw)
			fmt.Fprintf(&b, "%s:", strings.Join(cmd.args, " "))
			switch cmd.args[1] {
			case "keyspace":
				_, db0, _ := strings.Cut(text, "db0:")
				db0, _, _ = strings.Cut(db0, ",")
				fmt.Fprintf(&b, " db0 %s", db0)
			case "stats":
				for _, f := range fields {
					_, v, _ := strings.Cut(text, "\r\n"+f+":")
					v, _, _ = strings.Cut(v, "\r\n")
					fmt.Fprintf(&b, " %s=%s", f, v)
				}
			case "commandstats":
				for _, n := range cmds {
					m := cmdStat(text, n)
					fmt.Fprintf(&b, " %s=%s/%s", n, m["calls"], m["failed_calls"])
				}
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	want := report(redisAddr)
	if got := report(srv.addr); got != want {
		t.Errorf("corekv:\n%sredis-server:\n%s", got, want)
	}
}

// TestErrorStats compares INFO errorstats and total_error_replies with
// redis-server's after the same errors: refused commands (unknown, arity,
// inside MULTI, EXECABORT), failed ones on both shards and split over them,
// an error inside EXEC, a blocked BLPOP ended by CLIENT UNBLOCK … ERROR, and
// CONFIG SET of latency-tracking and its percentiles, valid and not.
func TestErrorStats(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	s0, s1 := shardKey("e", 0, 2), shardKey("e", 1, 2)
	script := []compatCmd{
		compatS("CONFIG RESETSTAT"),
		compatS("NOSUCHCOMMAND x"), compatS("GET"),
		compatA("SET", s0, "v"), compatA("SET", s1, "v"),
		compatA("LPUSH", s0, "x"), compatA("LPUSH", s1, "x"), compatA("INCR", s1),
		compatA("RENAME", "missing-"+s0, s1), compatA("MGET", s0, s1),
		compatS("MULTI"), compatA("INCR", s0), compatA("SET", s1, "w"), compatS("EXEC"),
		compatS("MULTI"), compatS("GET"), compatS("EXEC"),
		compatS("EXEC"), compatS("CONFIG SET latency-tracking maybe"),
		compatS("CONFIG SET latency-tracking-info-percentiles 10 a"),
		compatS("CONFIG SET latency-tracking-info-percentiles 101"),
		compatA("CONFIG", "SET", "latency-tracking-info-percentiles", "0.0 50 99.999"),
		compatS("CONFIG SET latency-tracking no"),
	}
	report := func(addr string) string {
		c := compatRun(t, addr, script)
		defer c.close()
		blocked, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer blocked.close()
		id, err := blocked.do(compatS("CLIENT ID"))
		if err != nil {
			t.Fatal(err)
		}
		if err := blocked.send(compatEncode(nil, compatA("BLPOP", "nolist-"+s1, "0"))); err != nil {
			t.Fatal(err)
		}
		clientID := strings.Trim(string(id.raw), ":\r\n")
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			r, err := c.do(compatA("CLIENT", "UNBLOCK", clientID, "ERROR"))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.raw) == ":1\r\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("BLPOP never blocked")
			}
		}
		if r, err := blocked.read(); err != nil || !strings.HasPrefix(string(r.raw), "-UNBLOCKED") {
			t.Fatalf("BLPOP after CLIENT UNBLOCK ERROR: %v %v", r, err)
		}
		var b strings.Builder
		for _, param := range []string{"latency-tracking", "latency-tracking-info-percentiles"} {
			r, err := c.do(compatA("CONFIG", "GET", param))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%q\n", r.raw)
		}
		for _, section := range []string{"errorstats", "stats"} {
			r, err := c.do(compatA("INFO", section))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(r.raw), "\r\n") {
				if strings.HasPrefix(line, "errorstat_") || strings.Contains(line, "error_replies:") {
					b.WriteString(line + "\n")
				}
			}
		}
		r, err := c.do(compatS("INFO commandstats"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"blpop", "exec", "incr", "lpush", "rename", "get"} {
			m := cmdStat(string(r.raw), n)
			fmt.Fprintf(&b, "%s calls=%s rejected=%s failed=%s\n", n, m["calls"], m["rejected_calls"], m["failed_calls"])
		}
		return b.String()
	}
	want := report(redisAddr)
	if got := report(srv.addr); got != want {
		t.Errorf("corekv:\n%sredis-server:\n%s", got, want)
	}
}

// TestInstantaneousRates: under a steady load INFO's instantaneous_ops_per_sec
// and kbps follow it (the mean over the last 1.6 s, as Redis's), and they
// fall to 0 once the load has stopped for longer than that.
func TestInstantaneousRates(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	c := redis.NewClient(&redis.Options{Addr: s.addr, PoolSize: 1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	n := 0
	for n < 2_000_000 && time.Since(start) < 1500*time.Millisecond {
		p := c.Pipeline()
		for i := range 100 {
			p.Set(ctx, "rate:"+strconv.Itoa(i), "0123456789", 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		n += 100
	}
	rate := float64(n) / time.Since(start).Seconds()
	m := infoFields(t, ctx, c, "stats")
	text := c.Info(ctx, "stats").Val()
	ops := float64(m["instantaneous_ops_per_sec"])
	if ops < rate/4 || ops > 2*rate {
		t.Errorf("instantaneous_ops_per_sec %.0f under a load of %.0f commands/s", ops, rate)
	}
	for _, f := range []string{"instantaneous_input_kbps", "instantaneous_output_kbps"} {
		_, v, _ := strings.Cut(text, "\r\n"+f+":")
		v, _, _ = strings.Cut(v, "\r\n")
		if kbps, err := strconv.ParseFloat(v, 64); err != nil || kbps <= 0 {
			t.Errorf("%s %q under load", f, v)
		}
	}
	time.Sleep(2 * time.Second)
	if m := infoFields(t, ctx, c, "stats"); m["instantaneous_ops_per_sec"] != 0 {
		t.Errorf("instantaneous_ops_per_sec %d 2 s after the load", m["instantaneous_ops_per_sec"])
	}
}

// TestLatencyHistogram runs the same commands on redis-server and corekv
// and compares LATENCY HISTOGRAM in RESP2 and RESP3: the same commands (a
// container's subcommands included, an unknown name skipped) with the same
// counts, each histogram's levels among Redis's (1, 2, 4, 8, 16, 33, 66 µs
// …) with cumulative counts that grow to the command's count.
func TestLatencyHistogram(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	script := []compatCmd{compatS("CONFIG RESETSTAT")}
	for i := range 20 {
		k := "lat:" + strconv.Itoa(i)
		script = append(script, compatA("SET", k, "v"), compatA("GET", k))
	}
	script = append(script, compatS("CONFIG GET maxmemory"), compatS("CONFIG GET port"))
	levels := map[int64]bool{}
	for v := uint64(1024); v < 1<<41; v <<= 1 {
		levels[int64((v+v>>7-1)/1000)] = true
	}
	histograms := func(addr string, proto string) string {
		c := compatRun(t, addr, append([]compatCmd{compatA("HELLO", proto)}, script...))
		defer c.close()
		r, err := c.do(compatS("LATENCY HISTOGRAM set get config nosuch"))
		if err != nil {
			t.Fatal(err)
		}
		if want := byte(map[string]byte{"2": '*', "3": '%'}[proto]); r.kind != want {
			t.Fatalf("RESP%s reply %q", proto, r.raw)
		}
		var lines []string
		for i := 0; i+1 < len(r.elems); i += 2 {
			name, h := string(compatBulk(r.elems[i])), r.elems[i+1]
			if len(h.elems) != 4 || string(compatBulk(h.elems[0])) != "calls" || string(compatBulk(h.elems[2])) != "histogram_usec" {
				t.Fatalf("%s: %q", name, h.raw)
			}
			calls, _ := strconv.ParseInt(strings.Trim(string(h.elems[1].raw), ":\r\n"), 10, 64)
			lines = append(lines, fmt.Sprintf("%s calls=%d", name, calls))
			var prev int64
			buckets := h.elems[3].elems
			for j := 0; j+1 < len(buckets); j += 2 {
				level, _ := strconv.ParseInt(strings.Trim(string(buckets[j].raw), ":\r\n"), 10, 64)
				n, _ := strconv.ParseInt(strings.Trim(string(buckets[j+1].raw), ":\r\n"), 10, 64)
				if !levels[level] || n <= prev {
					t.Errorf("%s: level %d with %d after %d: %q", addr, level, n, prev, h.raw)
				}
				prev = n
			}
			if prev != calls {
				t.Errorf("%s: %s's histogram ends at %d of %d calls", addr, name, prev, calls)
			}
		}
		// Redis lists a container's subcommands in its hash table's order.
		sort.Strings(lines)
		return strings.Join(lines, "; ")
	}
	for _, proto := range []string{"2", "3"} {
		want := histograms(redisAddr, proto)
		if got := histograms(srv.addr, proto); got != want {
			t.Errorf("RESP%s: corekv %s\nredis-server %s", proto, got, want)
		}
	}
}

// TestInfoScriptFields: INFO memory's script and function fields, after
// the same scripts and libraries in both servers: the counts as
// redis-server's, in Redis's order, and used_memory_scripts the sum of the
// eval scripts' and the functions' bytes.
func TestInfoScriptFields(t *testing.T) {
	ctx := context.Background()
	rc, kc := redisAndCorekv(t, 2)
	libs := []string{
		"#!lua name=liba\nredis.register_function('fa', function() return 1 end)\nredis.register_function{function_name='fb', callback=function() return 2 end, description='b'}",
		"#!lua name=libb\nredis.register_function('fc', function() return 3 end)",
	}
	names := []string{"number_of_cached_scripts", "number_of_functions", "number_of_libraries",
		"used_memory_functions", "used_memory_scripts", "used_memory_scripts_eval"}
	fields := func(c *redis.Client) map[string]string {
		text := c.Info(ctx, "memory").Val()
		m := map[string]string{}
		var order []string
		for _, line := range strings.Split(text, "\r\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && slices.Contains(names, k) {
				m[k] = v
				order = append(order, k)
			}
		}
		m["order"] = strings.Join(order, ",")
		return m
	}
	for _, c := range []*redis.Client{rc, kc} {
		for _, l := range libs {
			if err := c.FunctionLoad(ctx, l).Err(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 3 {
			c.Eval(ctx, "return "+strconv.Itoa(i), nil)
		}
	}
	want, got := fields(rc), fields(kc)
	for _, k := range []string{"number_of_cached_scripts", "number_of_functions", "number_of_libraries", "order"} {
		if got[k] != want[k] {
			t.Errorf("%s: %q, redis-server %q", k, got[k], want[k])
		}
	}
	n := func(k string) int { v, _ := strconv.Atoi(got[k]); return v }
	if n("used_memory_functions") <= 0 || n("used_memory_scripts") != n("used_memory_functions")+n("used_memory_scripts_eval") {
		t.Errorf("used_memory_scripts %d, functions %d, eval %d", n("used_memory_scripts"), n("used_memory_functions"), n("used_memory_scripts_eval"))
	}
	kc.FunctionDelete(ctx, "libb")
	if got := fields(kc); got["number_of_libraries"] != "1" || got["number_of_functions"] != "2" {
		t.Errorf("after FUNCTION DELETE: %v", got)
	}
}
