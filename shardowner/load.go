package shardowner

import (
	"errors"
	"fmt"
	"log/slog"

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
	// Functions, when set, takes the code of each function library of
	// the file (valid during the call only), before any key; without it
	// a file that holds libraries does not load.
	Functions func(code []byte) error
}

// LoadFile stores the keys of the RDB file data that belong to the shard,
// on the shard's thread (DEBUG RELOAD). It returns the keys stored and
// those dropped as expired.
func (s *Shard) LoadFile(data []byte, opt LoadOptions) (loaded, expired int64, err error) {
	l := s.NewLoader(opt.Replace)
	if s.Functions != nil {
		opt.Functions = func(code []byte) error {
			return s.Functions.Restore([][]byte{append([]byte(nil), code...)}, opt.Replace)
		}
	}
	err = ReadOwnRecords(data, s.ID, s.Count, len(s.DBs), opt, func(db int, r *rdbfile.Record) error {
		return l.Store(db, r.Key, r.Type, r.Object, max(r.ExpireAt, 0), r.Idle, r.Freq)
	})
	return l.Loaded, l.Expired, err
}

// Loader stores an RDB file's key records on the shard's thread, with one
// reader and one object for all of them.
type Loader struct {
	ctx             Ctx
	w               resp.Writer
	rd              rdbfile.Reader
	obj             rdbObject
	replace         bool
	Loaded, Expired int64 // keys stored, and dropped because their TTL had passed
}

// NewLoader returns a Loader for the shard; with replace a key of the file
// replaces one the shard holds, else that is an error.
func (s *Shard) NewLoader(replace bool) *Loader {
	l := &Loader{replace: replace}
	l.ctx = Ctx{Shard: s, W: &l.w}
	return l
}

// Store stores key with the object of RDB type typ in obj (its bytes after
// the key) in database db, expiring at expireAt (Unix ms, 0: none), with
// the idle seconds or LFU counter the file gives it (-1: none), which the
// key takes under the policy they belong to, as in Redis.
func (l *Loader) Store(db int, key []byte, typ byte, obj []byte, expireAt, idle int64, freq int) error {
	l.ctx.DB = db
	ok, err := l.ctx.loadRecord(key, typ, obj, expireAt, l.replace, &l.rd, &l.obj)
	switch {
	case err != nil:
		return err
	case ok:
		if idle >= 0 || freq >= 0 {
			setAccess(&l.ctx, key, idle, int64(freq))
		}
		l.Loaded++
	default:
		l.Expired++
	}
	return nil
}

// ReadOwnRecords parses the RDB file data and calls fn with each key
// record of shard (of count) in order, skipping the others' keys; what
// corekv cannot hold (functions, more than databases databases)
// is an error. It reads only data, so it may run off the shard's thread;
// the record is valid during the call only, its Object as long as data.
func ReadOwnRecords(data []byte, shard, count, databases int, opt LoadOptions, fn func(db int, r *rdbfile.Record) error) error {
	h := &ownRecords{shard: shard, count: count, databases: databases, log: opt.Log, fn: fn, functions: opt.Functions}
	return rdbfile.ParseWith(data, h, rdbfile.Options{SkipChecksum: opt.SkipChecksum})
}

// ownRecords is ReadOwnRecords' rdbfile.Handler.
type ownRecords struct {
	shard, count, databases int
	log                     *slog.Logger
	fn                      func(db int, r *rdbfile.Record) error
	functions               func(code []byte) error
	db                      int
}

func (h *ownRecords) Aux(key, val []byte) error {
	if h.log != nil && string(key) == "redis-ver" {
		h.log.Info("loading RDB produced by version " + string(val))
	}
	return nil
}

func (h *ownRecords) SelectDB(db int) error {
	if db >= h.databases {
		return fmt.Errorf("the file was created by a server configured for more than %d databases", h.databases)
	}
	h.db = db
	return nil
}

func (h *ownRecords) ResizeDB(size, expires uint64) error { return nil }

func (h *ownRecords) Key(r *rdbfile.Record) error {
	if h.count > 1 && KeyShard(r.Key, h.count) != h.shard {
		return nil
	}
	return h.fn(h.db, r)
}

func (h *ownRecords) Function(code []byte) error {
	if h.functions == nil {
		return errors.New("the file holds function libraries, which this load does not take")
	}
	if err := h.functions(code); err != nil {
		return fmt.Errorf("Failed loading library, %w", err)
	}
	return nil
}

func (h *ownRecords) ModuleAux(m *rdbfile.ModuleError) error {
	if h.log != nil {
		h.log.Warn("skipping module aux data: corekv has no modules", "module", m.Error())
	}
	return nil
}

// errReload is Redis 7.0's reply to a DEBUG RELOAD whose file does not
// load; the log says why.
const errReload resp.Error = "ERR Error trying to load the RDB dump"

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
			if s.Functions != nil {
				s.Functions.Flush()
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
