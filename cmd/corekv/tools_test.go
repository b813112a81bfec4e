package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedisCLI drives the server with redis-cli: plain commands, a
// MULTI/EXEC block, inline commands over a raw socket, and --pipe mass
// insertion of 100k keys.
func TestRedisCLI(t *testing.T) {
	cli := needTool(t, "redis-cli")
	for _, n := range shardCounts {
		t.Run(fmt.Sprintf("shards=%d", n), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(n))
			port := strconv.Itoa(srv.port)
			run := func(args ...string) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				out, err := exec.CommandContext(ctx, cli, append([]string{"-p", port}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
				}
				return strings.TrimSpace(string(out))
			}
			if got := run("ping"); got != "PONG" {
				t.Fatalf("PING = %q", got)
			}
			if got := run("set", "greeting", "hello world"); got != "OK" {
				t.Fatalf("SET = %q", got)
			}
			if got := run("get", "greeting"); got != "hello world" {
				t.Fatalf("GET = %q", got)
			}

			// Mass insertion in the RESP form redis-cli --pipe expects.
			var buf bytes.Buffer
			for i := 0; i < 100000; i++ {
				k := "pipe:" + strconv.Itoa(i)
				v := strconv.Itoa(i)
				fmt.Fprintf(&buf, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(v), v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, cli, "-p", port, "--pipe")
			cmd.Stdin = &buf
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("redis-cli --pipe: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "errors: 0, replies: 100000") {
				t.Fatalf("redis-cli --pipe output:\n%s", out)
			}
			if got := run("dbsize"); got != "100001" {
				t.Fatalf("DBSIZE after --pipe = %q, want 100001", got)
			}
			if got := run("get", "pipe:99999"); got != "99999" {
				t.Fatalf("GET pipe:99999 = %q", got)
			}

			// A transaction typed into redis-cli, keys on every shard.
			ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel2()
			txn := exec.CommandContext(ctx2, cli, "-p", port)
			txn.Stdin = strings.NewReader("MULTI\nSET t:a 1\nINCR t:a\nMSET t:b 2 t:c 3 t:d 4\nMGET t:a t:b t:c t:d\nEXEC\n")
			if out, err := txn.CombinedOutput(); err != nil || string(out) != "OK\nQUEUED\nQUEUED\nQUEUED\nQUEUED\nOK\n2\nOK\n2\n2\n3\n4\n" {
				t.Fatalf("MULTI/EXEC through redis-cli: %v\n%q", err, out)
			}

			// Inline commands, as telnet or nc send them.
			conn := srv.raw(t)
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			conn.Write([]byte("SET inline \"two words\"\r\nGET inline\r\nPING\r\n"))
			want := "+OK\r\n$9\r\ntwo words\r\n+PONG\r\n"
			got := make([]byte, len(want))
			if _, err := readFull(conn, got); err != nil || string(got) != want {
				t.Fatalf("inline replies = %q, %v; want %q", got, err, want)
			}
		})
	}
}

// TestRedisBenchmark runs redis-benchmark pipelined against every shard
// count, then reads values back.
func TestRedisBenchmark(t *testing.T) {
	bench := needTool(t, "redis-benchmark")
	for _, n := range shardCounts {
		t.Run(fmt.Sprintf("shards=%d", n), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(n))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for _, pipeline := range []string{"16", "64"} {
				out, err := exec.CommandContext(ctx, bench, "-p", strconv.Itoa(srv.port), "-t", "set,get,incr,mset",
					"-P", pipeline, "-q", "-n", "20000", "-r", "1000", "-c", "10").CombinedOutput()
				if err != nil {
					t.Fatalf("redis-benchmark -P %s: %v\n%s", pipeline, err, out)
				}
				text := strings.ReplaceAll(string(out), "\r", "\n")
				for _, test := range []string{"SET", "GET", "INCR", "MSET (10 keys)"} {
					if !strings.Contains(text, test+": ") {
						t.Fatalf("redis-benchmark -P %s did not finish %s:\n%s", pipeline, test, text)
					}
				}
				if strings.Contains(strings.ToLower(text), "error") {
					t.Fatalf("redis-benchmark -P %s reported errors:\n%s", pipeline, text)
				}
			}
			c := srv.client(t, 2)
			keys, err := c.Keys(context.Background(), "key:*").Result()
			if err != nil || len(keys) == 0 {
				t.Fatalf("no benchmark keys readable: %v", err)
			}
			for _, k := range keys[:min(len(keys), 50)] {
				if _, err := c.Get(context.Background(), k).Result(); err != nil {
					t.Fatalf("GET %s after benchmark: %v", k, err)
				}
			}
		})
	}
}

// TestRedisCLISubscribe holds redis-cli subscribers (SUBSCRIBE and
// PSUBSCRIBE) open on a server of several shards, so that they land on
// different cores, and checks each prints a message published from
// another connection.
func TestRedisCLISubscribe(t *testing.T) {
	cli := needTool(t, "redis-cli")
	srv := startServer(t, nil, "--shards", "2")
	defer srv.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	port := strconv.Itoa(srv.port)
	subs := [][]string{
		{"subscribe", "news"}, {"subscribe", "news"}, {"subscribe", "news", "other"},
		{"psubscribe", "ne*"}, {"psubscribe", "n?ws"},
	}
	want := []string{"message\nnews\nhello", "message\nnews\nhello", "message\nnews\nhello",
		"pmessage\nne*\nnews\nhello", "pmessage\nn?ws\nnews\nhello"}
	outs := make([]*safeBuffer, len(subs))
	for i, args := range subs {
		outs[i] = &safeBuffer{}
		cmd := exec.CommandContext(ctx, cli, append([]string{"-p", port}, args...)...)
		cmd.Stdout = outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
	}
	c := srv.client(t, 2)
	for {
		n, err := c.PubSubNumSub(ctx, "news").Result()
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.PubSubNumPat(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n["news"] == 3 && p == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("subscribers not registered: NUMSUB %v, NUMPAT %d", n, p)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := c.Publish(ctx, "news", "hello").Result(); err != nil || got != 5 {
		t.Fatalf("PUBLISH = %d, %v; want 5 receivers", got, err)
	}
	for i, out := range outs {
		for !strings.Contains(out.String(), want[i]) {
			if ctx.Err() != nil {
				t.Fatalf("redis-cli %v printed %q, want it to contain %q", subs[i], out.String(), want[i])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
