package shardowner

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// captureSink keeps a snapshot's records per database.
type captureSink struct {
	cut  bool
	data map[int][]byte
	done bool
}

func (c *captureSink) Cut(shard int, keys, expires []int) { c.cut = true }
func (c *captureSink) Chunk(shard, db int, buf *bytebufferpool.ByteBuffer) {
	if !c.cut || c.done {
		panic("chunk out of order")
	}
	c.data[db] = append(c.data[db], buf.B...)
	snapshot.Chunks.Put(buf)
}
func (c *captureSink) Done(shard int)     { c.done = true }
func (c *captureSink) Backlog() int       { return 0 }
func (c *captureSink) Functions([][]byte) {}

// snapRecord is a key as a snapshot holds it: expiry, type, body.
type snapRecord struct {
	expireAt int64
	typ      byte
	body     string
}

// snapHandler collects what rdbfile.Parse finds.
type snapHandler struct {
	db   int
	keys map[string]snapRecord // "db/key"
	err  error
}

func (h *snapHandler) Aux(key, val []byte) error           { return nil }
func (h *snapHandler) SelectDB(db int) error               { h.db = db; return nil }
func (h *snapHandler) ResizeDB(size, expires uint64) error { return nil }
func (h *snapHandler) Function(code []byte) error          { return nil }
func (h *snapHandler) ModuleAux(*rdbfile.ModuleError) error {
	return fmt.Errorf("module aux")
}
func (h *snapHandler) Key(r *rdbfile.Record) error {
	k := fmt.Sprintf("%d/%s", h.db, r.Key)
	if _, ok := h.keys[k]; ok {
		return fmt.Errorf("key %s twice", k)
	}
	exp := r.ExpireAt
	if exp < 0 {
		exp = 0
	}
	h.keys[k] = snapRecord{exp, r.Type, string(r.Object)}
	return nil
}

// snapModel is what the shard holds now, as records.
func snapModel(s *Shard) map[string]snapRecord {
	m := map[string]snapRecord{}
	for db, t := range s.DBs {
		var cur uint64
		for {
			cur = t.Scan(cur, 100, func(key []byte, v Value) {
				m[fmt.Sprintf("%d/%s", db, key)] = snapRecord{v.ExpireAt, objectType(v), string(appendObjectBody(nil, v, plain))}
			})
			if cur == 0 {
				break
			}
		}
	}
	return m
}

// snapFile wraps the captured records in a file and parses it back.
func snapFile(t *testing.T, c *captureSink, dbs int) map[string]snapRecord {
	t.Helper()
	var file bytes.Buffer
	w := rdbfile.NewWriter(&file)
	w.Header()
	for db := range dbs {
		if len(c.data[db]) > 0 {
			w.SelectDB(db)
			w.Raw(c.data[db])
		}
	}
	if err := w.End(true); err != nil {
		t.Fatal(err)
	}
	h := &snapHandler{keys: map[string]snapRecord{}}
	if err := rdbfile.Parse(file.Bytes(), h); err != nil {
		t.Fatalf("parsing the snapshot: %v", err)
	}
	return h.keys
}

// TestSnapshotCopyOnWrite cuts a shard, then interleaves walk steps with
// random writes (each announced by BeforeWrite, as the call path does), a
// FLUSHDB, a SWAPDB and keys expiring, and checks that the records are
// exactly the dataset at the cut, each key once.
func TestSnapshotCopyOnWrite(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			s := NewShard(0, 1, 4)
			s.Clock.Ms = 1_000_000
			var w resp.Writer
			run := func(db int, h Handler, args ...string) {
				argv := make([][]byte, len(args))
				for i, a := range args {
					argv[i] = []byte(a)
				}
				if s.Snap != nil && len(args) > 1 {
					s.BeforeWrite(db, argv[1])
				}
				w.B = w.B[:0]
				h(&Ctx{Shard: s, DB: db, W: &w}, argv)
			}
			key := func() string { return "k" + strconv.Itoa(r.Intn(3000)) }
			write := func() {
				db := r.Intn(3)
				k := key()
				switch r.Intn(8) {
				case 0:
					run(db, Set, "SET", k, strconv.Itoa(r.Int()))
				case 1:
					run(db, Del, "DEL", k)
				case 2:
					run(db, HSet, "HSET", k+"h", "f"+strconv.Itoa(r.Intn(900)), "v")
				case 3:
					run(db, RPush, "RPUSH", k+"l", "e"+strconv.Itoa(r.Intn(50)))
				case 4:
					run(db, SAdd, "SADD", k+"s", strconv.Itoa(r.Intn(700)))
				case 5:
					run(db, ZAdd, "ZADD", k+"z", strconv.Itoa(r.Intn(100)), "m"+strconv.Itoa(r.Intn(200)))
				case 6:
					run(db, Set, "SET", k, "ttl", "PX", strconv.Itoa(1+r.Intn(50)))
				case 7:
					run(db, LPop, "LPOP", k+"l")
				}
			}
			for range 20000 {
				write()
			}
			want := snapModel(s)
			sink := &captureSink{data: map[int][]byte{}}
			s.StartSnapshot(sink)
			s.Snap.stepBuckets = 16
			steps := 0
			for s.Snap != nil {
				for range r.Intn(200) {
					write()
				}
				switch r.Intn(40) {
				case 0:
					run(r.Intn(3), FlushDB, "FLUSHDB")
				case 1:
					s.SwapDB(r.Intn(4), r.Intn(4))
				case 2:
					s.Clock.Ms += 30 // some TTLs pass
				case 3:
					for _, t := range s.DBs {
						t.ActiveExpire(1e9)
					}
				}
				s.SnapshotStep(time.Second)
				steps++
			}
			// Keys whose TTL had passed at the cut are left out.
			for k, rec := range want {
				if rec.expireAt != 0 && rec.expireAt <= 1_000_000 {
					delete(want, k)
				}
			}
			got := snapFile(t, sink, 4)
			if steps < 3 {
				t.Fatalf("the walk took %d steps: too few to interleave", steps)
			}
			for k, wr := range want {
				gr, ok := got[k]
				if !ok {
					t.Errorf("%s: missing from the snapshot", k)
				} else if gr != wr {
					t.Errorf("%s: snapshot %+v, want %+v", k, gr, wr)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: in the snapshot, not in the dataset at the cut", k)
				}
			}
		})
	}
}
