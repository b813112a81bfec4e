package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTransactionsIsolated moves money between accounts that live on
// different shards, from several clients at once, with MULTI/EXEC, with
// WATCH-guarded optimistic updates, with MSET and with RENAME; readers take
// every account with MGET, inside EXEC, and with a watched read. Each
// transaction keeps the total, so any reader that sees another total saw
// part of a transaction. The load is bounded in count and in time; a
// deadlock between transactions would show as clients that do not finish.
func TestTransactionsIsolated(t *testing.T) {
	for _, shards := range []int{2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(shards))
			defer srv.stop(t)
			testTransfers(t, srv)
		})
	}
}

func testTransfers(t *testing.T, srv *server) {
	const (
		accounts = 8
		start    = 1000
		rounds   = 300
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	keys := make([]string, accounts)
	pairs := make([]any, 0, 2*accounts)
	for i := range keys {
		keys[i] = "acct:" + strconv.Itoa(i)
		pairs = append(pairs, keys[i], start)
	}
	c := srv.client(t, 2)
	defer c.Close()
	if err := c.MSet(ctx, pairs...).Err(); err != nil {
		t.Fatal(err)
	}
	total := func(vals []any) (int, error) {
		sum := 0
		for i, v := range vals {
			s, ok := v.(string)
			if !ok {
				return 0, fmt.Errorf("%s missing: %v", keys[i], vals)
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return 0, err
			}
			sum += n
		}
		return sum, nil
	}

	var wg sync.WaitGroup
	var failed atomic.Bool
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	var aborted, committed atomic.Int64
	worker := func(id int, body func(c *redis.Client, i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := srv.client(t, 2)
			defer c.Close()
			for i := 0; i < rounds && !failed.Load() && ctx.Err() == nil; i++ {
				if err := body(c, i); err != nil {
					fail("worker %d round %d: %v", id, i, err)
					return
				}
			}
		}()
	}
	// MULTI/EXEC transfers between two accounts.
	for w := 0; w < 3; w++ {
		worker(w, func(c *redis.Client, i int) error {
			from, to := keys[(i+w)%accounts], keys[(i*3+w+1)%accounts]
			if from == to {
				return nil
			}
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.DecrBy(ctx, from, 7)
				p.IncrBy(ctx, to, 7)
				return nil
			})
			return err
		})
	}
	// WATCH-guarded read-modify-write: abort and retry when touched.
	worker(3, func(c *redis.Client, i int) error {
		from, to := keys[i%accounts], keys[(i+accounts/2)%accounts]
		err := c.Watch(ctx, func(tx *redis.Tx) error {
			vals, err := tx.MGet(ctx, from, to).Result()
			if err != nil {
				return err
			}
			a, _ := strconv.Atoi(vals[0].(string))
			b, _ := strconv.Atoi(vals[1].(string))
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, from, a-3, 0)
				p.Set(ctx, to, b+3, 0)
				return nil
			})
			return err
		}, from, to)
		if errors.Is(err, redis.TxFailedErr) {
			aborted.Add(1)
			return nil
		}
		if err == nil {
			committed.Add(1)
		}
		return err
	})
	// RENAME an account away and back inside one transaction: no reader
	// may see it missing.
	worker(4, func(c *redis.Client, i int) error {
		k := keys[i%accounts]
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Rename(ctx, k, "parked:"+strconv.Itoa(i))
			p.Rename(ctx, "parked:"+strconv.Itoa(i), k)
			return nil
		})
		return err
	})
	// Readers: MGET, MGET inside EXEC, and a transaction of single GETs.
	for r := 0; r < 3; r++ {
		worker(10+r, func(c *redis.Client, i int) error {
			var vals []any
			switch r {
			case 0:
				v, err := c.MGet(ctx, keys...).Result()
				if err != nil {
					return err
				}
				vals = v
			case 1:
				cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.MGet(ctx, keys...)
					return nil
				})
				if err != nil {
					return err
				}
				vals = cmds[0].(*redis.SliceCmd).Val()
			default:
				cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					for _, k := range keys {
						p.Get(ctx, k)
					}
					return nil
				})
				if err != nil {
					return err
				}
				for _, cmd := range cmds {
					vals = append(vals, cmd.(*redis.StringCmd).Val())
				}
			}
			sum, err := total(vals)
			if err != nil {
				return err
			}
			if sum != accounts*start {
				return fmt.Errorf("reader %d saw a total of %d, want %d: %v", r, sum, accounts*start, vals)
			}
			return nil
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("transactions did not finish in time (deadlock?)\n%s", srv.log.String())
	}
	vals, err := c.MGet(context.Background(), keys...).Result()
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := total(vals); err != nil || sum != accounts*start {
		t.Errorf("final total %d (%v), want %d", sum, err, accounts*start)
	}
	if committed.Load() == 0 {
		t.Errorf("no WATCH transaction committed (%d aborted)", aborted.Load())
	}
	t.Logf("watched transactions: %d committed, %d aborted", committed.Load(), aborted.Load())
}

// TestTransactionsAbandoned: clients that send a MULTI block, or a
// cross-shard MSET, and hang up without reading leave nothing held: their
// transactions finish and release, and the keys serve everyone else.
func TestTransactionsAbandoned(t *testing.T) {
	srv := startServer(t, nil, "--shards", "3")
	defer srv.stop(t)
	keys := []string{"ab:0", "ab:1", "ab:2", "ab:3", "ab:4", "ab:5"}
	var block []byte
	block = append(block, "*1\r\n$5\r\nMULTI\r\n"...)
	for _, k := range keys {
		block = fmt.Appendf(block, "*2\r\n$4\r\nINCR\r\n$%d\r\n%s\r\n", len(k), k)
	}
	block = append(block, "*1\r\n$4\r\nEXEC\r\n"...)
	mset := fmt.Appendf(nil, "*%d\r\n$4\r\nMSET\r\n", 1+2*len(keys))
	for _, k := range keys {
		mset = fmt.Appendf(mset, "$%d\r\n%s\r\n$1\r\n7\r\n", len(k), k)
	}
	for i := 0; i < 50; i++ {
		c := srv.raw(t)
		if i%2 == 0 {
			c.Write(block)
		} else {
			c.Write(mset)
		}
		c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := srv.client(t, 2)
	defer c.Close()
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Set(ctx, k, "done", 0)
		}
		p.MGet(ctx, keys...)
		return nil
	})
	if err != nil {
		t.Fatalf("a transaction after abandoned ones: %v", err)
	}
	for i, v := range cmds[len(keys)].(*redis.SliceCmd).Val() {
		if v != "done" {
			t.Errorf("%s = %v after the transaction set it", keys[i], v)
		}
	}
}

// TestWatchGathered watches the keys of commands that gather values from
// two shards: as in Redis 7.0, a store that writes the value the key
// already held touches it, and SMOVE into a set that already has the
// member leaves the destination untouched. As in Redis, the client's own
// writes touch the keys it watches.
func TestWatchGathered(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := srv.client(t, 2)
	defer c.Close()
	k := keysOnTwoShards(t, ctx, c)
	for _, tc := range []struct {
		setup   [][]any
		watch   string
		cmd     []any
		touched bool
	}{
		{[][]any{{"sadd", k[1], "a", "b"}, {"sunionstore", k[0], k[1], k[1]}}, k[0],
			[]any{"sunionstore", k[0], k[1], k[1]}, true},
		{[][]any{{"zadd", k[1], 1, "a", 2, "b"}, {"zunionstore", k[0], 1, k[1]}}, k[0],
			[]any{"zunionstore", k[0], 1, k[1]}, true},
		{[][]any{{"zadd", k[0], 1, "a"}, {"zrangestore", k[1], k[0], 0, -1}}, k[1],
			[]any{"zrangestore", k[1], k[0], 0, -1}, true},
		{[][]any{{"sadd", k[0], "a", "b"}, {"sadd", k[1], "a"}}, k[1], []any{"smove", k[0], k[1], "a"}, false},
		{[][]any{{"sadd", k[0], "a", "b"}, {"sadd", k[1], "a"}}, k[0], []any{"smove", k[0], k[1], "a"}, true},
		{[][]any{{"sadd", k[0], "a"}, {"sadd", k[1], "b"}}, k[1], []any{"sinterstore", k[1], k[0], k[1]}, true},
		{[][]any{{"sadd", k[0], "a"}, {"sadd", k[1], "b"}}, k[1], []any{"sunion", k[0], k[1]}, false},
	} {
		name := fmt.Sprint(tc.cmd[0], " watching ", tc.watch)
		if err := c.Del(ctx, k...).Err(); err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.setup {
			if err := c.Do(ctx, s...).Err(); err != nil {
				t.Fatalf("%s: %v: %v", name, s, err)
			}
		}
		err := c.Watch(ctx, func(tx *redis.Tx) error {
			// The watching client runs the command: its WATCH is
			// registered on the shards ahead of its later commands.
			cmd := redis.NewCmd(ctx, tc.cmd...)
			if err := tx.Process(ctx, cmd); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Ping(ctx)
				return nil
			})
			return err
		}, tc.watch)
		switch {
		case tc.touched && !errors.Is(err, redis.TxFailedErr):
			t.Errorf("%s: EXEC gave %v, want it to fail", name, err)
		case !tc.touched && err != nil:
			t.Errorf("%s: EXEC gave %v, want it to run", name, err)
		}
	}
}

// TestWatchBeforeOtherWrites: once WATCH has answered, a write by another
// client to the watched key, from any core, fails the EXEC that follows, as
// in Redis. The watching and the writing connections are new each round so
// that they land on every pair of cores.
func TestWatchBeforeOtherWrites(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	defer srv.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys := keysOnTwoShards(t, ctx, srv.client(t, 2))
	for round := 0; round < 100; round++ {
		key := keys[round%2]
		a, b := srv.client(t, 2), srv.client(t, 2)
		err := a.Watch(ctx, func(tx *redis.Tx) error {
			if err := b.Set(ctx, key, round, 0).Err(); err != nil {
				t.Fatal(err)
			}
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Ping(ctx)
				return nil
			})
			return err
		}, key)
		a.Close()
		b.Close()
		if !errors.Is(err, redis.TxFailedErr) {
			t.Fatalf("round %d: EXEC after another client's SET of %s gave %v, want it to fail", round, key, err)
		}
	}
}
