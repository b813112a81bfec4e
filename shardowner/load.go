package shardowner

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Loading an RDB file: the file's reader (rdbfile) finds each key record
// and the shard that owns its key stores it here, converted as RESTORE
// converts a payload, into the encoding its size calls for.

// LoadOptions say how LoadFile loads.
type LoadOptions struct {
	SkipChecksum bool // rdbchecksum no
	// Replace lets a key of the file replace one the shard holds (DEBUG
	// RELOAD MERGE); else a key held twice is an error.
	Replace bool
	// Log, when set, hears what concerns the whole file (one shard's
	// loader logs for all).
	Log *slog.Logger
}

// LoadFile stores the keys of the RDB file data that belong to the shard:
// every shard reads the whole file, so the shards convert their records in
// parallel. It returns the keys stored and those dropped as expired.
func (s *Shard) LoadFile(data []byte, opt LoadOptions) (loaded, expired int64, err error) {
	l := &fileLoader{s: s, opt: opt}
	l.ctx = Ctx{Shard: s, W: &l.w}
	err = rdbfile.ParseWith(data, l, rdbfile.Options{SkipChecksum: opt.SkipChecksum})
	return l.loaded, l.expired, err
}

// LoadShards loads data into shards before their threads run: a goroutine
// per shard, each storing the keys its shard owns, the first alone
// checking the CRC and logging for the whole file. It returns the keys
// stored and dropped as expired over all shards, or the first error.
func LoadShards(shards []*Shard, data []byte, opt LoadOptions) (loaded, expired int64, err error) {
	type result struct {
		loaded, expired int64
		err             error
	}
	results := make([]result, len(shards))
	var wg sync.WaitGroup
	now := time.Now().UnixMilli()
	for i, s := range shards {
		s.Clock.Ms = now
		o := opt
		if i > 0 {
			o.SkipChecksum, o.Log = true, nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[i]
			r.loaded, r.expired, r.err = s.LoadFile(data, o)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return 0, 0, r.err
		}
		loaded += r.loaded
		expired += r.expired
	}
	return loaded, expired, nil
}

// fileLoader is LoadFile's rdbfile.Handler.
type fileLoader struct {
	s               *Shard
	opt             LoadOptions
	ctx             Ctx // the database SELECTDB named
	w               resp.Writer
	rd              rdbfile.Reader // reused for every object
	obj             rdbObject
	db              int
	loaded, expired int64
}

func (l *fileLoader) Aux(key, val []byte) error {
	if l.opt.Log != nil && string(key) == "redis-ver" {
		l.opt.Log.Info("loading RDB produced by version " + string(val))
	}
	return nil
}

func (l *fileLoader) SelectDB(db int) error {
	if db >= len(l.s.DBs) {
		return fmt.Errorf("the file was created by a server configured for more than %d databases", len(l.s.DBs))
	}
	l.db, l.ctx.DB = db, db
	return nil
}

func (l *fileLoader) ResizeDB(size, expires uint64) error { return nil }

func (l *fileLoader) Key(r *rdbfile.Record) error {
	if l.s.Count > 1 && KeyShard(r.Key, l.s.Count) != l.s.ID {
		return nil
	}
	switch r.Type {
	case rdbfile.TypeStreamListpacks, rdbfile.TypeStreamListpacks2:
		return fmt.Errorf("key '%s' is a stream, which corekv does not hold yet", r.Key)
	}
	exp := max(r.ExpireAt, 0)
	ok, err := l.ctx.loadRecord(r.Key, r.Type, r.Object, exp, l.opt.Replace, &l.rd, &l.obj)
	switch {
	case err != nil:
		return err
	case ok:
		l.loaded++
	default:
		l.expired++
	}
	return nil
}

func (l *fileLoader) Function(code []byte) error {
	return errors.New("the file holds functions (FUNCTION LOAD), which corekv does not run yet")
}

func (l *fileLoader) ModuleAux(m *rdbfile.ModuleError) error {
	if l.opt.Log != nil {
		l.opt.Log.Warn("skipping module aux data: corekv has no modules", "module", m.Error())
	}
	return nil
}

// errReload is Redis's reply to a DEBUG RELOAD whose file does not load;
// the log says why.
const errReload resp.Error = "ERR Error trying to load the RDB dump, check server logs."

// InternalLoad: corekv.load path [noflush] [merge] [nochecksum]. DEBUG
// RELOAD's part on each shard, under the locks of all (router's
// CombineCut): the shard's databases are emptied (unless noflush) and the
// file's keys it owns stored (with merge, replacing those it holds).
func InternalLoad(c *Ctx, argv [][]byte) {
	s := c.Shard
	var opt LoadOptions
	noflush := false
	for _, a := range argv[2:] {
		switch string(a) {
		case "noflush":
			noflush = true
		case "merge":
			opt.Replace = true
		case "nochecksum":
			opt.SkipChecksum = true
		}
	}
	data, unmap, err := snapshot.MapFile(string(argv[1]))
	if err == nil {
		defer unmap()
		if !noflush {
			for db, t := range s.DBs {
				if !s.detachForSnapshot(db) {
					t.Clear()
				}
			}
		}
		if s.ID == 0 {
			opt.Log = s.Log
		}
		_, _, err = s.LoadFile(data, opt)
	}
	if err != nil {
		if s.Log != nil {
			s.Log.Warn("DEBUG RELOAD: the RDB file does not load", "err", err)
		}
		c.W.Err(errReload)
		return
	}
	c.W.OK()
}

// ErrDuplicateKey refuses a file that holds a key twice in a database.
var ErrDuplicateKey = errors.New("duplicated key")

// loadRecord stores key with the object of RDB type typ in obj (its bytes
// after the key) in c's database, expiring at expireAt (Unix ms, 0:
// none); c.W takes what a failed write answers. A key whose expiry has
// passed is not stored (loaded false), as Redis's master drops it. A key
// the shard holds already is an error, unless replace. The error names
// what is wrong with the record.
func (c *Ctx) loadRecord(key []byte, typ byte, obj []byte, expireAt int64, replace bool, rd *rdbfile.Reader, o *rdbObject) (loaded bool, err error) {
	t := c.Table()
	held := t.Len()
	if replace && t.Delete(key) {
		held--
	}
	loaded, err = c.storeRecord(key, typ, obj, expireAt, rd, o)
	// A key written over leaves the count as it was: one lookup for both
	// the check and the write.
	if loaded && !replace && t.Len() == held {
		return false, fmt.Errorf("%w '%s' in DB %d", ErrDuplicateKey, key, c.DB)
	}
	return loaded, err
}

// storeRecord is loadRecord's write, reading with rd into o.
func (c *Ctx) storeRecord(key []byte, typ byte, obj []byte, expireAt int64, rd *rdbfile.Reader, o *rdbObject) (bool, error) {
	s := c.Shard
	rd.Reset(obj)
	ok := o.readWith(rd, typ)
	if !ok {
		return false, fmt.Errorf("bad object of type %d for key '%s'", typ, key)
	}
	defer o.release()
	if expireAt != 0 && expireAt <= s.Clock.Ms {
		return false, nil
	}
	c.W.B = c.W.B[:0]
	var set setBuilder
	if o.kind == KindSet {
		defer set.release()
		if !o.buildSet(c, &set) {
			return false, fmt.Errorf("bad set for key '%s' (a repeated member, or the table is full)", key)
		}
	} else if (o.kind == KindHash || o.kind == KindZSet) && repeatedKey(o.out.B, o.keys) {
		return false, fmt.Errorf("repeated field or member in key '%s'", key)
	}
	if !o.store(c, key, &set, expireAt) {
		return false, fmt.Errorf("cannot store key '%s': %s", key, c.W.B)
	}
	return true, nil
}
