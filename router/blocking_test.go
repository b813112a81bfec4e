package router

import (
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// TestBlockingRegistry: parked commands wait per key in arrival order, a
// created key is ready once, a served command leaves every key, and the
// shard's hook is unset once nothing waits.
func TestBlockingRegistry(t *testing.T) {
	sh := shardowner.NewShard(0, 1, 2)
	var bk Blocking
	blpop := LookupString("blpop")
	a, b, c := new(Slot), new(Slot), new(Slot)
	bk.Park(sh, blpop, 0, 2, words("blpop k1 k2 k1 0"), Origin{Client: 1}, 0, a)
	bk.Park(sh, blpop, 0, 2, words("blpop k2 0"), Origin{Client: 2}, 0, b)
	bk.Park(sh, blpop, 1, 2, words("blpop k2 0"), Origin{Client: 3}, 0, c)
	if sh.Waiters == nil || bk.Len() != 3 || !bk.Waiting(0, []byte("k1")) || bk.Waiting(0, []byte("k3")) {
		t.Fatalf("after parking: hook %v, %d parked", sh.Waiters != nil, bk.Len())
	}
	if bk.HasReady() {
		t.Fatal("ready before any key was created")
	}
	sh.DBs[0].SetString([]byte("k3"), []byte("x"), 0) // nobody waits for it
	sh.DBs[0].SetString([]byte("k2"), []byte("x"), 0)
	sh.DBs[0].SetString([]byte("k2"), []byte("y"), 0) // not created: already there
	free := func(int, []byte) bool { return true }
	r, ok := bk.NextReady(free)
	if !ok {
		t.Fatal("k2 not ready")
	}
	if db, key := r.Key(); db != 0 || string(key) != "k2" {
		t.Fatalf("ready %d %q", db, key)
	}
	if r.Nth(0).Dest != a {
		t.Fatal("k2's first waiter is not the first to park")
	}
	bk.Served(r.Nth(0))
	if r.Nth(0).Dest != b {
		t.Fatal("k2's second waiter is not the second to park")
	}
	if bk.Waiting(0, []byte("k1")) {
		t.Fatal("a served command still waits for its other key")
	}
	if _, ok := bk.NextReady(free); ok {
		t.Fatal("a key was ready twice")
	}
	// A cancel answers as on timeout, in the command's protocol, once.
	var w resp.Writer
	dest, _ := bk.Cancel(sh, &w, words("corekv.bcancel 2 timeout k2"))
	if dest != b || string(w.B) != "*-1\r\n" {
		t.Fatalf("cancel: %v %q", dest == b, w.B)
	}
	if dest, _ := bk.Cancel(sh, &w, words("corekv.bcancel 2 timeout k2")); dest != nil {
		t.Fatal("a second cancel found the command")
	}
	w.B = w.B[:0]
	if dest, _ := bk.Cancel(sh, &w, words("corekv.bcancel 3 error k2")); dest != c ||
		string(w.B) != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("error cancel: %q", w.B)
	}
	if sh.Waiters != nil || bk.Len() != 0 {
		t.Fatal("the shard's hook stays set with nothing parked")
	}
	// Both cancelled commands are calls, the one unblocked with an error a
	// failed one, as Redis counts them.
	if st := sh.CmdStat(blpop.StatID(nil)); st.Calls != 2 || st.Failed != 1 {
		t.Fatalf("BLPOP after a timeout and an error: %d calls, %d failed", st.Calls, st.Failed)
	}
}

// TestBlockingHeldKey: a ready key a transaction holds is served only once
// the transaction lets it go.
func TestBlockingHeldKey(t *testing.T) {
	sh := shardowner.NewShard(0, 1, 1)
	var bk Blocking
	bk.Park(sh, LookupString("blpop"), 0, 2, words("blpop k 0"), Origin{Client: 1}, 0, new(Slot))
	sh.DBs[0].SetString([]byte("k"), []byte("x"), 0)
	held := true
	free := func(int, []byte) bool { return !held }
	if _, ok := bk.NextReady(free); ok {
		t.Fatal("served while held")
	}
	held = false
	if _, ok := bk.NextReady(free); !ok {
		t.Fatal("not served once let go")
	}
}

// TestBlockingSwapDB: SWAPDB makes every waited key of both databases
// ready.
func TestBlockingSwapDB(t *testing.T) {
	sh := shardowner.NewShard(0, 1, 2)
	var bk Blocking
	bk.Park(sh, LookupString("blpop"), 1, 2, words("blpop k 0"), Origin{Client: 1}, 0, new(Slot))
	sh.SwapDB(0, 1)
	if _, ok := bk.NextReady(func(int, []byte) bool { return true }); !ok {
		t.Fatal("SWAPDB made nothing ready")
	}
}

// TestWaitKeys: BLMOVE and BRPOPLPUSH wait for their source only.
func TestWaitKeys(t *testing.T) {
	for line, want := range map[string][]int{
		"blmove a b left left 0":  {1},
		"brpoplpush a b 0":        {1},
		"blpop a b c 0":           {1, 2, 3},
		"bzmpop 0 2 a b min":      {3, 4},
		"blmpop 0 1 a left":       {3},
		"bzpopmax a 0":            {1},
		"corekv.bwait 7 list a b": {3, 4},
	} {
		argv := words(line)
		got := WaitKeys(nil, LookupString(string(argv[0])), argv)
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", line, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %v, want %v", line, got, want)
			}
		}
	}
}
