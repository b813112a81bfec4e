package main

import (
	"context"
	"strings"
	"testing"
)

// TestLCSAcrossShards: LCS on keys that two shards own gathers both values
// and answers as on one shard, changes neither key, and refuses a table
// beyond proto-max-bulk-len as Redis does.
func TestLCSAcrossShards(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx := context.Background()
	c := s.client(t, 3)
	keys := keysOnTwoShards(t, ctx, c)
	a, b := keys[0], keys[1]
	c.Set(ctx, a, "ohmytext", 0)
	c.Set(ctx, b, "mynewtext", 0)
	if got, err := c.Do(ctx, "LCS", a, b).Text(); err != nil || got != "mytext" {
		t.Fatalf("LCS: %q, %v", got, err)
	}
	if got, err := c.Do(ctx, "LCS", b, a, "LEN").Int(); err != nil || got != 6 {
		t.Fatalf("LCS LEN: %d, %v", got, err)
	}
	idx, err := c.Do(ctx, "LCS", a, b, "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN").Result()
	m, _ := idx.(map[any]any)
	if err != nil || m == nil || m["len"] != int64(6) || len(m["matches"].([]any)) != 1 {
		t.Fatalf("LCS IDX (RESP3): %#v, %v", idx, err)
	}
	c.RPush(ctx, "{l}list", "x")
	if err := c.Do(ctx, "LCS", a, "{l}list").Err(); err == nil || err.Error() != "ERR The specified keys must contain string values" {
		t.Fatalf("LCS on a list: %v", err)
	}
	for _, k := range keys {
		if got := c.Get(ctx, k).Val(); got != map[string]string{a: "ohmytext", b: "mynewtext"}[k] {
			t.Fatalf("%s after LCS: %q", k, got)
		}
	}
	c.Set(ctx, a, strings.Repeat("x", 11584), 0)
	c.Set(ctx, b, strings.Repeat("x", 11585), 0)
	err = c.Do(ctx, "LCS", a, b, "LEN").Err()
	if err == nil || err.Error() != "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len" {
		t.Fatalf("LCS beyond the limit: %v", err)
	}
	if raceBuild {
		return // the race detector makes the table at the limit take many seconds
	}
	if got, err := c.Do(ctx, "LCS", a, a, "LEN").Int(); err != nil || got != 11584 {
		t.Fatalf("LCS at the limit: %d, %v", got, err)
	}
}
