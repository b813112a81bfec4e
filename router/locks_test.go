package router

import (
	"strconv"
	"testing"
)

// lockEnv drives one shard's Locks the way a core does: Admit on arrival,
// then the ready waiters in order.
type lockEnv struct {
	l   Locks
	ran []string // what ran, in order: "client:command key"
}

func (e *lockEnv) arrive(client int64, held bool, line string) bool {
	argv := words(line)
	cmd := LookupString(string(argv[0]))
	o := Origin{Client: client, Held: held}
	ok := e.l.Admit(cmd, 0, 2, argv, o, 0, nil)
	if ok {
		e.ran = append(e.ran, strconv.FormatInt(client, 10)+":"+line)
	}
	e.runReady()
	return ok
}

func (e *lockEnv) runReady() {
	for w := e.l.TakeReady(); w != nil; w = e.l.TakeReady() {
		line := ""
		for i, a := range w.Argv() {
			if i > 0 {
				line += " "
			}
			line += string(a)
		}
		e.ran = append(e.ran, strconv.FormatInt(w.Origin.Client, 10)+":"+line)
		e.l.Done(w)
	}
}

func (e *lockEnv) expect(t *testing.T, want ...string) {
	t.Helper()
	if len(e.ran) != len(want) {
		t.Fatalf("ran %q, want %q", e.ran, want)
	}
	for i := range want {
		if e.ran[i] != want[i] {
			t.Fatalf("ran %q, want %q", e.ran, want)
		}
	}
	e.ran = nil
}

func TestLocksInactiveRunsAtOnce(t *testing.T) {
	var e lockEnv
	if !e.arrive(1, false, "get a") || e.l.Active() {
		t.Fatal("a command with nothing held must run at once")
	}
}

// TestLocksQueueBehindHolder: commands on held keys wait, in arrival order,
// until the holder unlocks; others run; the holder's parts pass.
func TestLocksQueueBehindHolder(t *testing.T) {
	var e lockEnv
	e.arrive(9, false, "corekv.lock 9 0 a 0 b")
	e.arrive(1, false, "set a 1")  // waits
	e.arrive(2, false, "get c")    // runs
	e.arrive(2, false, "mget c a") // waits behind set a
	e.arrive(3, false, "get c")    // waits: the mget before it wants c
	e.arrive(9, true, "set b x")   // the holder's part
	e.arrive(9, false, "get b")    // the holder's own later command waits
	e.expect(t, "9:corekv.lock 9 0 a 0 b", "2:get c", "9:set b x")
	if e.l.Held() != 1 || e.l.Waiting() != 4 {
		t.Fatalf("held %d waiting %d, want 1 and 4", e.l.Held(), e.l.Waiting())
	}
	e.arrive(9, false, "corekv.unlock 9")
	e.expect(t, "9:corekv.unlock 9", "1:set a 1", "2:mget c a", "3:get c", "9:get b")
	if e.l.Active() {
		t.Fatal("locks still active after everything ran")
	}
}

// TestLocksLockWaitsForLock: a second transaction on an overlapping key
// waits for the first; its part, sent behind its lock request, waits with
// it; its unlock waits for its part.
func TestLocksLockWaitsForLock(t *testing.T) {
	var e lockEnv
	e.arrive(1, false, "corekv.lock 1 0 a")
	e.arrive(2, false, "corekv.lock 2 0 a 0 z")
	e.arrive(2, true, "set a two")
	e.arrive(2, false, "corekv.unlock 2")
	e.arrive(4, false, "get z") // behind transaction 2's lock request
	e.expect(t, "1:corekv.lock 1 0 a")
	e.arrive(1, true, "set a one")
	e.arrive(1, false, "corekv.unlock 1")
	e.expect(t, "1:set a one", "1:corekv.unlock 1", "2:corekv.lock 2 0 a 0 z", "2:set a two",
		"2:corekv.unlock 2", "4:get z")
	if e.l.Active() {
		t.Fatal("locks still active")
	}
}

// TestLocksWholeShard: a lock of the whole shard waits for every key
// holder and holds back every command.
func TestLocksWholeShard(t *testing.T) {
	var e lockEnv
	e.arrive(1, false, "corekv.lock 1 0 a")
	e.arrive(2, false, "corekv.lock 2")
	e.arrive(3, false, "get zz")
	e.arrive(3, false, "dbsize")
	e.expect(t, "1:corekv.lock 1 0 a")
	e.arrive(1, false, "corekv.unlock 1")
	e.expect(t, "1:corekv.unlock 1", "2:corekv.lock 2")
	e.arrive(2, true, "flushall")
	e.arrive(2, false, "corekv.unlock 2")
	e.expect(t, "2:flushall", "2:corekv.unlock 2", "3:get zz", "3:dbsize")
}

// TestLocksDatabases: the same name in two databases is two keys.
func TestLocksDatabases(t *testing.T) {
	var e lockEnv
	e.arrive(1, false, "corekv.lock 1 3 a")
	argv := words("get a")
	if !e.l.Admit(LookupString("get"), 0, 2, argv, Origin{Client: 2}, 0, nil) {
		t.Fatal("a in db 0 waited for a lock on a in db 3")
	}
	if e.l.Admit(LookupString("get"), 3, 2, argv, Origin{Client: 2}, 0, nil) {
		t.Fatal("a in db 3 did not wait for its lock")
	}
}

// TestLocksNoGrowth: after many transactions and waiters, nothing is held
// or queued, and the kept waiters are bounded.
func TestLocksNoGrowth(t *testing.T) {
	var e lockEnv
	for i := 0; i < 2000; i++ {
		c := int64(i%7 + 1)
		e.arrive(c, false, "corekv.lock "+strconv.FormatInt(c, 10)+" 0 k"+strconv.Itoa(i%3))
		e.arrive(100, false, "get k"+strconv.Itoa(i%3))
		e.arrive(c, true, "set k"+strconv.Itoa(i%3)+" v")
		e.arrive(c, false, "corekv.unlock "+strconv.FormatInt(c, 10))
		e.ran = nil
	}
	if e.l.Active() {
		t.Fatalf("still active: held %d waiting %d", e.l.Held(), e.l.Waiting())
	}
	if len(e.l.held) != 0 || len(e.l.claimed) != 0 || e.l.heldAll != 0 || e.l.claimAll != 0 {
		t.Fatalf("counts left: held %v claimed %v all %d/%d", e.l.held, e.l.claimed, e.l.heldAll, e.l.claimAll)
	}
	if len(e.l.free) > freeWaiters {
		t.Fatalf("%d free waiters kept, at most %d", len(e.l.free), freeWaiters)
	}
}

// FuzzLocks plays random arrivals of transactions (lock, parts, unlock,
// each transaction taking one shard's keys) and plain commands against one
// shard's Locks and checks what must hold: no command runs on a key another
// transaction holds, a transaction's part runs only while it holds, commands
// on one key run in arrival order, and once every transaction has unlocked
// nothing is left waiting.
func FuzzLocks(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3})
	f.Add([]byte{200, 17, 33, 90, 4, 250, 61, 8, 128, 77, 3, 12, 199})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			ops = ops[:400]
		}
		var l Locks
		type txnState struct {
			key      string
			locked   bool // lock request sent
			unlocked bool // unlock sent
		}
		txns := map[int64]*txnState{}
		holder := map[string]int64{}  // key -> client holding it, as the test sees grants
		unlocking := map[int64]bool{} // clients whose unlock has not run yet
		lastRun := map[string]int{}   // key -> sequence number of the last plain command run on it
		seq := 0
		check := func(w *Waiter, cmd *Command, argv [][]byte, o Origin, n int) {
			switch cmd {
			case cmdLock:
				k := string(argv[3])
				if h, ok := holder[k]; ok {
					t.Fatalf("lock of %s by %d granted while %d holds it", k, o.Client, h)
				}
				holder[k] = o.Client
			case cmdUnlock:
				delete(unlocking, o.Client)
				for k, h := range holder {
					if h == o.Client {
						delete(holder, k)
					}
				}
			default:
				k := string(argv[1])
				h, held := holder[k]
				if o.Held && (!held || h != o.Client) {
					t.Fatalf("part of %d ran on %s without holding it (holder %d)", o.Client, k, h)
				}
				if !o.Held {
					if held {
						t.Fatalf("command %d ran on %s while %d holds it", n, k, h)
					}
					if n < lastRun[k] {
						t.Fatalf("command %d on %s ran after command %d", n, k, lastRun[k])
					}
					lastRun[k] = n
				}
			}
		}
		runReady := func() {
			for w := l.TakeReady(); w != nil; w = l.TakeReady() {
				argv := w.Argv()
				n, _ := strconv.Atoi(string(argv[len(argv)-1]))
				check(w, w.Cmd, argv, w.Origin, n)
				l.Done(w)
			}
		}
		arrive := func(client int64, held bool, line string, n int) {
			argv := words(line)
			cmd := LookupString(string(argv[0]))
			o := Origin{Client: client, Held: held}
			if l.Admit(cmd, 0, 2, argv, o, 0, nil) {
				check(nil, cmd, argv, o, n)
			}
			runReady()
		}
		for _, op := range ops {
			seq++
			client := int64(op%4 + 1)
			key := "k" + strconv.Itoa(int(op>>2)%3)
			ts := txns[client]
			switch {
			case op&0x80 != 0:
				arrive(100+client, false, "set "+key+" "+strconv.Itoa(seq), seq)
			case ts == nil && unlocking[client]:
				// A client starts its next transaction only once the
				// last one has ended, as its home core does.
				arrive(100+client, false, "get "+key+" "+strconv.Itoa(seq), seq)
			case ts == nil:
				txns[client] = &txnState{key: key, locked: true}
				arrive(client, false, "corekv.lock "+strconv.FormatInt(client, 10)+" 0 "+key, seq)
			case !ts.unlocked && op&0x40 == 0:
				arrive(client, true, "set "+ts.key+" "+strconv.Itoa(seq), seq)
			default:
				unlocking[client] = true
				arrive(client, false, "corekv.unlock "+strconv.FormatInt(client, 10), seq)
				delete(txns, client)
			}
		}
		for client := range txns {
			unlocking[client] = true
			arrive(client, false, "corekv.unlock "+strconv.FormatInt(client, 10), seq)
		}
		if l.Active() {
			t.Fatalf("after every unlock: held %d waiting %d", l.Held(), l.Waiting())
		}
	})
}
