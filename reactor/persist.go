package reactor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Snapshots in the loop: SAVE and BGSAVE cut every shard for a new save
// (corekv.snapshot, under the locks of all shards), each core walks its
// shard's part in the turns its pacer allows (shardowner.SnapshotPacer),
// the Saver's
// goroutine writes the file, and a SAVE is answered once it is in place.
// The save points start saves from core 0's timer; the save at shutdown
// walks every shard once the cores have stopped.

var (
	cmdSnapshot = router.LookupString("corekv.snapshot")
	cmdLoad     = router.LookupString("corekv.load")
)

// Modes of a cut, which its reply follows: servercmd's SaveBackground and
// SaveForeground, and saveAuto for a save point's, which nobody waits for.
const (
	saveBackground = servercmd.SaveBackground
	saveForeground = servercmd.SaveForeground
	saveAuto       = "auto"
)

// saveWait is a SAVE waiting for its file, or a DEBUG RELOAD, which then
// loads it with the flags of reload.
type saveWait struct {
	cn     *Conn
	slot   *router.Slot
	id     uint64
	reload []string
}

// errSaveFailed is Redis's reply to a SAVE or BGSAVE that could not be
// done; the log says why.
const errSaveFailed resp.Error = "ERR Background save failed"

// wakeCores wakes every core: a save has ended.
func (s *Server) wakeCores() {
	for _, c := range s.cores {
		c.forceWake()
	}
}

// savesAtShutdown reports whether the server saves once its cores stop:
// SHUTDOWN SAVE, or a save point and not SHUTDOWN NOSAVE.
func (s *Server) savesAtShutdown() bool {
	if s.loading.Load() {
		return false // never a file of part of the dataset over the whole one
	}
	if b := s.shutdownSave.Load(); b != nil {
		return *b
	}
	return len(s.saver.Policy.Get().Points) > 0
}

// errMisconf refuses writes (and PING, as Redis does) while the last save
// failed, saves are configured and stop-writes-on-bgsave-error is on.
const errMisconf resp.Error = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."

// gateRefusal is the error cmd of cn gets while the server is out of
// memory, the dataset loads or writes are refused after a failed save or
// write, "" when it may run. The checks come in Redis's order.
func (c *Core) gateRefusal(cn *Conn, cmd *router.Command, argv [][]byte) resp.Error {
	flags := cmd.FlagsFor(argv) // a subcommand's (FUNCTION LOAD writes)
	switch {
	case c.oom && oomRefuses(cn, cmd, flags):
		return shardowner.ErrOOM
	case c.loadingGate && flags&router.FlagLoading == 0:
		return errLoading
	case c.misconf && (flags&router.FlagWrite != 0 || cmd.Home == router.HomePing):
		return errMisconf
	}
	return c.aofRefusal(flags)
}

// initSaver gives every shard the way to its cut's sink.
func (s *Server) initSaver() {
	for _, c := range s.cores {
		c.shard.Log = c.log
		c.shard.SnapshotFor = func(id, dirty uint64) shardowner.SnapshotSink {
			f := s.saver.Sink(id)
			if f == nil {
				return nil
			}
			if a := s.aof.Load(); a != nil {
				a.atCut(c, id)
			}
			s.saver.AddCutDirty(id, dirty)
			return f
		}
	}
}

// startSave begins a save and cuts every shard for it, for cn (nil: a save
// point's), in mode.
func (c *Core) startSave(cn *Conn, mode string) error { return c.startSaveThen(cn, mode, nil) }

// startSaveThen is startSave; a foreground save with reload flags is
// DEBUG RELOAD's, which loads the file once it is in place.
func (c *Core) startSaveThen(cn *Conn, mode string, reload []string) error {
	s := c.srv
	id, err := s.saver.Begin(len(s.cores), s.cfg.Databases, snapshot.HeaderAux(RedisVersion))
	if err != nil {
		if !errors.Is(err, snapshot.ErrInProgress) {
			c.log.Warn("cannot save the DB", "err", err)
		}
		return err
	}
	c.log.Info("saving the DB", "mode", mode, "id", id)
	argv := [][]byte{cmdSnapshot.NameBytes(), strconv.AppendUint(nil, id, 10), []byte(mode)}
	if cn == nil {
		slot := c.NewSlot()
		slot.Orphan = true
		router.StartSplit(c, slot, cmdSnapshot, 0, 2, argv)
		return nil
	}
	c.allShards(cn, cmdSnapshot, argv)
	if mode == saveForeground {
		slot := cn.reserve()
		cn.barrier = slot
		c.saveWaits = append(c.saveWaits, saveWait{cn: cn, slot: slot, id: id, reload: reload})
	}
	return nil
}

// cutReply is the reply of a cut once every shard has run it.
func cutReply(w *resp.Writer, argv [][]byte) {
	switch string(argv[2]) {
	case saveBackground:
		w.Simple("Background saving started")
	case modeRewrite:
		w.Simple("Background append only file rewriting started")
	}
	// A SAVE's reply is its second slot's (saveWaits).
}

// answerSaves answers the SAVEs whose file is in place or failed.
func (c *Core) answerSaves() {
	keep := c.saveWaits[:0]
	for _, sw := range c.saveWaits {
		done, err := c.srv.saver.Result(sw.id)
		if !done {
			keep = append(keep, sw)
			continue
		}
		reply := "+OK\r\n"
		switch {
		case err != nil:
			reply = "-" + string(errSaveFailed) + "\r\n"
		case sw.reload != nil:
			// The load answers; its slot comes before this one is
			// filled, so no later request of cn goes ahead of it.
			reply = ""
			if !sw.cn.closed {
				c.startLoad(sw.cn, sw.reload)
			}
		}
		sw.slot.Reply = append(sw.slot.Reply[:0], reply...)
		router.Complete(c, sw.slot)
		if !sw.cn.closed {
			c.markDirty(sw.cn)
		}
	}
	clear(c.saveWaits[len(keep):])
	c.saveWaits = keep
}

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: a SAVE (unless
// NOSAVE), then every shard empties itself (unless NOFLUSH) and loads the
// file, under the locks of all.
func (c *Core) debugReload(cn *Conn, flags []string) error {
	nosave := false
	var load []string
	for _, f := range flags {
		switch f {
		case "nosave":
			nosave = true
		case "noflush", "merge":
			load = append(load, f)
		}
	}
	if nosave {
		c.startLoad(cn, load)
		return nil
	}
	return c.startSaveThen(cn, saveForeground, append([]string{}, load...))
}

// startLoad sends every shard the load of the snapshot file for cn.
func (c *Core) startLoad(cn *Conn, flags []string) {
	pv := c.srv.saver.Policy.Get()
	argv := [][]byte{cmdLoad.NameBytes(), []byte(filepath.Join(pv.Dir, pv.File))}
	for _, f := range flags {
		argv = append(argv, []byte(f))
	}
	if !pv.Check {
		argv = append(argv, []byte("nochecksum"))
	}
	c.allShards(cn, cmdLoad, argv)
}

// savePoints starts a save when a save point is reached (core 0's timer).
func (c *Core) savePoints(now time.Time) {
	var dirty uint64
	for _, o := range c.srv.cores {
		dirty += o.pub.counters[servercmd.CntDirty].Load()
	}
	if c.srv.saver.Due(now, dirty) {
		c.startSave(nil, saveAuto)
	}
}

// saveAtShutdown writes the snapshot once every core has stopped: this
// goroutine then owns every shard.
func (s *Server) saveAtShutdown() error {
	s.saver.AbortCurrent()
	pv := s.saver.Policy.Get()
	f, err := snapshot.CreateFile(pv.Dir, pv.File, len(s.cores), s.cfg.Databases,
		snapshot.Options{Checksum: pv.Check, Compress: pv.Compress, Aux: snapshot.HeaderAux(RedisVersion)})
	if err != nil {
		return err
	}
	shardowner.SnapshotNow(s.shards(), f)
	return f.Finish()
}

// Loading at start: New maps the snapshot file (dir/dbfilename) when
// there is one; Start runs, for every core, a goroutine that reads the
// whole file and hands the core, in batches, the records of its keys
// (shardowner.ReadOwnRecords, which touches no shard), and the core
// stores them between its turns (loadStep). Meanwhile commands but those
// Redis allows while loading get -LOADING. A file that does not load stops
// the start: nothing is served from part of it.

// datasetLoad is the load of the snapshot file at start.
type datasetLoad struct {
	data   []byte
	unmap  func()
	path   string
	start  time.Time
	failed atomic.Bool // a reader or a core failed: the others stop

	// aof: the load is of the append-only directory; replay are its
	// incremental files (and a base of commands), whole says which
	// transactions they hold all the parts of.
	aof    bool
	replay []replayFile
	whole  aof.Whole

	mu              sync.Mutex
	left            int // cores not done yet
	loaded, expired int64
	err             error
	done            chan error
}

// loadBatch is records of one core's keys, from its reader goroutine.
type loadBatch struct {
	// funcs are the function libraries' codes, which come before any key.
	funcs [][]byte
	recs  []loadRec
	keys  []byte // the keys, one after another
	// cmds are commands of incremental files, after recs; their
	// arguments lie one after another in args.
	cmds   []loadCmd
	args   []byte
	argEnd []int
	err    error // the reader's, with the last batch
}

type loadRec struct {
	db     int
	typ    byte
	exp    int64
	idle   int64  // the file's LRU idle seconds, -1: none
	freq   int    // its LFU counter, -1: none
	keyEnd int    // in keys
	obj    []byte // in the mapped file
}

// loadBatchRecords is how many records a batch carries: the fewer the
// hand-overs, the less the reader and the core wait for each other on a
// shared CPU.
const loadBatchRecords = 4096

// errLoading refuses a command while the dataset loads, as Redis does.
const errLoading resp.Error = "LOADING Redis is loading the dataset in memory"

// errStopped stops a reader whose load has failed elsewhere.
var errStopped = errors.New("stopped")

// openDataset maps the snapshot file for Start to load, when there is one.
func (s *Server) openDataset() error {
	pv := s.saver.Policy.Get()
	path := filepath.Join(pv.Dir, pv.File)
	data, unmap, err := snapshot.MapFile(path)
	if errors.Is(err, snapshot.ErrNoFile) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening the RDB file: %w", err)
	}
	s.load = &datasetLoad{data: data, unmap: unmap, path: path, left: len(s.cores), done: make(chan error, 1)}
	s.loading.Store(true)
	return nil
}

// startLoad starts the readers of the snapshot file; the cores store what
// they read.
func (s *Server) startLoad() {
	l := s.load
	l.start = time.Now()
	s.saver.LoadingStarted(l.size())
	pv := s.saver.Policy.Get()
	for _, c := range s.cores {
		c.loadingGate, c.gated = true, true
		c.loadCh = make(chan *loadBatch, 4)
		c.loader = c.shard.NewLoader(false)
		opt := shardowner.LoadOptions{SkipChecksum: !pv.Check || c.id > 0}
		if c.id == 0 {
			opt.Log = s.log
		}
		go s.readRecords(c, opt)
	}
}

// readRecords reads the records of c's keys into batches for c, sleeping
// key-load-delay (µs) per key as Redis's tests ask.
func (s *Server) readRecords(c *Core, opt shardowner.LoadOptions) {
	l := s.load
	b := &loadBatch{}
	delay := time.Duration(s.keyLoadDelay.Load()) * time.Microsecond
	var err error
	if l.data != nil {
		b, err = s.readOwnRecords(c, opt, b, delay)
	}
	if err == nil && len(l.replay) > 0 {
		b, err = s.replayInto(c, b)
	}
	b.err = err
	c.loadCh <- b
	close(c.loadCh)
}

// readOwnRecords reads the snapshot's records of c's keys into batches,
// from b on, and returns the last, not sent yet.
func (s *Server) readOwnRecords(c *Core, opt shardowner.LoadOptions, b *loadBatch, delay time.Duration) (*loadBatch, error) {
	l := s.load
	opt.Functions = func(code []byte) error {
		b.funcs = append(b.funcs, append([]byte(nil), code...))
		return nil
	}
	err := shardowner.ReadOwnRecords(l.data, c.id, len(s.cores), s.cfg.Databases, opt, func(db int, r *rdbfile.Record) error {
		if l.failed.Load() {
			return errStopped
		}
		b.keys = append(b.keys, r.Key...)
		b.recs = append(b.recs, loadRec{db: db, typ: r.Type, exp: max(r.ExpireAt, 0), idle: r.Idle, freq: r.Freq,
			keyEnd: len(b.keys), obj: r.Object})
		if c.id == 0 {
			s.saver.LoadingAt(int64(r.Off))
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		if len(b.recs) == loadBatchRecords {
			c.loadCh <- b
			b = &loadBatch{}
		}
		return nil
	})
	return b, err
}

// loadStep stores what c's reader has sent, for up to loadStepTime.
func (c *Core) loadStep() {
	deadline := time.Now().Add(loadStepTime)
	for {
		select {
		case b, ok := <-c.loadCh:
			if !ok {
				c.loadCh = nil
				c.loadFinished()
				c.srv.coreLoaded(c.loader, c.loadErr)
				c.loader, c.loadErr = nil, nil
				return
			}
			c.storeBatch(b)
			if !time.Now().Before(deadline) {
				return
			}
		default:
			return
		}
	}
}

// loadStepTime is how long a turn stores records for before it looks at
// its clients (who get -LOADING) again.
const loadStepTime = 2 * time.Millisecond

func (c *Core) storeBatch(b *loadBatch) {
	if c.loadErr == nil && b.err != nil && !errors.Is(b.err, errStopped) {
		c.loadErr = b.err
	}
	if c.loadErr == nil && len(b.funcs) > 0 {
		if err := c.shard.Functions.Restore(b.funcs, false); err != nil {
			c.loadErr = fmt.Errorf("Failed loading library, %w", err)
		}
	}
	start := 0
	for _, r := range b.recs {
		if c.loadErr != nil {
			break
		}
		if err := c.loader.Store(r.db, b.keys[start:r.keyEnd], r.typ, r.obj, r.exp, r.idle, r.freq); err != nil {
			c.loadErr = err
		}
		start = r.keyEnd
	}
	if c.loadErr == nil && len(b.cmds) > 0 {
		c.runCommands(b)
	}
	if c.loadErr != nil {
		c.srv.load.failed.Store(true)
	}
}

// coreLoaded records that a core has stored all its records; once all
// have, the load is over, and the server serves, or stops if it failed.
func (s *Server) coreLoaded(ld *shardowner.Loader, err error) {
	l := s.load
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loaded += ld.Loaded
	l.expired += ld.Expired
	if err != nil && l.err == nil {
		l.err = err
	}
	if l.left--; l.left > 0 {
		return
	}
	l.release()
	s.saver.Loaded(l.loaded, l.expired)
	what := "the RDB file"
	if l.aof {
		what = "the append only file"
	}
	if l.err != nil {
		l.done <- fmt.Errorf("loading %s %s: %w", what, l.path, l.err)
		return
	}
	s.log.Info("DB loaded from "+what, "file", l.path, "seconds", fmt.Sprintf("%.3f", time.Since(l.start).Seconds()),
		"keys", l.loaded, "expired", l.expired)
	s.loading.Store(false)
	l.done <- nil
}

// Loaded is closed with nil once the snapshot file has loaded (at once
// when there is none), or gets the error that stopped it: the server must
// then stop, having served nothing from the file.
func (s *Server) Loaded() <-chan error {
	if s.load == nil {
		c := make(chan error, 1)
		c <- nil
		return c
	}
	return s.load.done
}

// shards are the cores' shards, in order.
func (s *Server) shards() []*shardowner.Shard {
	out := make([]*shardowner.Shard, len(s.cores))
	for i, c := range s.cores {
		out[i] = c.shard
	}
	return out
}
