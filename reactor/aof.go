package reactor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/journal"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// The append-only file in the loop (shardowner/aof). With appendonly yes
// every shard journals its changes, and at the end of each turn, before
// any reply of the turn leaves, the turn's records go to the shard's
// incremental file with one write (flushJournal). Replies the shard sends
// other cores wait for that write too (heldSends), and so do, under
// appendfsync always, the replies to its own clients and those sends,
// until the log's syncer has synced the turn (outMarks): a reply never
// acknowledges a write that a crash can still lose. A transaction over
// several shards answers once every shard has written its part
// (router.Txn's unlock acknowledgements).

// aofFiles is the append-only file while it is on: its directory and
// every shard's log.
type aofFiles struct {
	dir  *aof.Dir
	logs aof.Logs
	// syncHere: under always a shard syncs its own writes at the end of
	// its turn, as Redis does, when the process has no CPU beyond its
	// shards: a syncer goroutine would then share the shard's CPU, and
	// its two hand-offs per sync cost more than the overlap saves.
	syncHere bool
	detached atomic.Int32 // shards that let go of their logs (detachAOF)
	off      atomic.Bool  // CONFIG SET appendonly no: the shards are letting go
}

// openAOF reads (or makes) the append-only directory at start and opens
// every shard's incremental file; what the directory holds is loaded as
// the dataset, in place of the snapshot file, as Redis does.
func (s *Server) openAOF() error {
	pv := s.aofPolicy.Get()
	d, err := aof.OpenDir(pv.DirPath, pv.File)
	if err != nil {
		return err
	}
	if d.Fresh() {
		base := d.NewBase()
		if err := s.writeEmptyBase(d.Path, base.Name); err != nil {
			return err
		}
		s.log.Info("Creating AOF base file on server start", "file", base.Name)
	} else if err := s.planAOFLoad(d); err != nil {
		return err
	}
	n := len(s.cores)
	set, created, err := d.ShardSet(n)
	if err != nil {
		return err
	}
	if created {
		s.log.Info("Creating AOF incr files on server start", "first", set[0].Name, "files", n)
	}
	a := &aofFiles{dir: d, syncHere: runtime.NumCPU() <= n}
	a.logs.Epochs = make([]uint64, n)
	a.logs.Errs = make([]error, n)
	for i, c := range s.cores {
		c := c
		l, err := aof.OpenLog(i, filepath.Join(d.Path, set[i].Name), pv.Fsync, func(int) { c.forceWake() })
		if err != nil {
			for _, o := range a.logs.Logs {
				o.Close()
			}
			return fmt.Errorf("can't open the append-only file %s: %w", set[i].Name, err)
		}
		a.logs.Logs = append(a.logs.Logs, l)
		c.aof, c.aofLog = a, l
		c.aofJournal = newJournal(c)
		if s.load == nil {
			c.shard.Journal = c.aofJournal
		}
	}
	s.aof.Store(a)
	return nil
}

// watchAOFPolicy makes CONFIG SET's changes to the append-only file take
// effect: appendfsync on every log at once, appendonly through core 0,
// which turns the file on (a rewrite) or off (every shard lets go of its
// log) in its next turn (switchAOF).
func (s *Server) watchAOFPolicy() {
	s.aofStamps.Store(s.aofPolicy.Get().Timestamps)
	s.aofPolicy.OnChange(func(old, cur aof.Settings) {
		if a := s.aof.Load(); a != nil && old.Fsync != cur.Fsync {
			for _, l := range a.logs.Logs {
				l.SetFsync(cur.Fsync)
			}
		}
		s.aofStamps.Store(cur.Timestamps)
		if old.On != cur.On {
			s.aofSwitch.Store(true)
			s.cores[0].forceWake()
		}
	})
}

// switchAOF turns the append-only file on or off as appendonly now says
// (core 0, when CONFIG SET changed it).
func (c *Core) switchAOF() {
	s := c.srv
	if s.loading.Load() {
		return // once the dataset is loaded: a cut now would miss the rest of it
	}
	s.aofSwitch.Store(false)
	on, a := s.aofPolicy.Get().On, s.aof.Load()
	switch {
	case on && a == nil:
		if err := c.enableAOF(); err != nil {
			c.log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation", "err", err)
		}
	case !on && a != nil:
		a.off.Store(true)
		for _, o := range s.cores {
			o.aofDetach.Store(true)
			o.forceWake()
		}
	}
}

// enableAOF turns the file on while the server runs, as Redis does with a
// rewrite: new incremental files, a cut at which every shard starts
// journaling into its own, and the snapshot of the cut as the base; the
// manifest names them once the base is in place. A save that runs puts the
// switch off until it ends.
func (c *Core) enableAOF() error {
	s := c.srv
	if s.saver.Status().InProgress || s.saver.Rewriting() {
		s.aofSwitch.Store(true) // once the save has ended (aofTimer)
		return nil
	}
	pv := s.aofPolicy.Get()
	d, err := aof.OpenDir(pv.DirPath, pv.File)
	if err != nil {
		return err
	}
	n := len(s.cores)
	base, set, err := d.BeginEnable(n)
	if err != nil {
		return err
	}
	a := &aofFiles{dir: d, syncHere: runtime.NumCPU() <= n}
	a.logs.Epochs = make([]uint64, n)
	a.logs.Errs = make([]error, n)
	for i, fi := range set {
		o := s.cores[i]
		l, err := aof.OpenLog(i, filepath.Join(d.Path, fi.Name), pv.Fsync, func(int) { o.forceWake() })
		if err != nil {
			for _, l := range a.logs.Logs {
				l.Close()
			}
			d.EndRewrite(err)
			return err
		}
		a.logs.Logs = append(a.logs.Logs, l)
	}
	id, err := s.saver.BeginRewrite(d.Path, base.Name, n, s.cfg.Databases, snapshot.HeaderAux(RedisVersion),
		func(err error) { s.rewriteDone(d, err) })
	d.RewriteCut(id, err)
	if err != nil {
		for _, l := range a.logs.Logs {
			l.Close()
		}
		return err
	}
	s.aof.Store(a)
	s.offDir.Store(nil)
	c.log.Info("AOF enabled: background append only file rewriting started", "base", base.Name, "id", id)
	argv := [][]byte{cmdSnapshot.NameBytes(), strconv.AppendUint(nil, id, 10), []byte(modeRewrite)}
	slot := c.NewSlot()
	slot.Orphan = true
	router.StartSplit(c, slot, cmdSnapshot, 0, 2, argv)
	return nil
}

// detachAOF lets go of the shard's log as the file is turned off: what is
// written is synced and the file closed, and every reply held for it
// leaves. The last shard to let go turns the file off for the server.
func (c *Core) detachAOF() {
	c.aofDetach.Store(false)
	a := c.aof
	if a == nil {
		return
	}
	c.closeAOF()
	c.shard.Journal, c.aofJournal, c.aofLog, c.aof = nil, nil, nil, nil
	c.aofFailed = false
	c.regate()
	for _, h := range c.heldSends {
		c.push(h.peer, h.b)
	}
	clear(c.heldSends)
	c.heldSends = c.heldSends[:0]
	for _, cn := range c.syncHeld {
		cn.syncHeld, cn.marks = false, cn.marks[:0]
		if !cn.closed {
			c.markDirty(cn)
		}
	}
	clear(c.syncHeld)
	c.syncHeld = c.syncHeld[:0]
	if a.detached.Add(1) == int32(len(c.srv.cores)) {
		c.srv.offDir.Store(a.dir)
		c.srv.aof.CompareAndSwap(a, nil)
		c.log.Info("AOF turned off")
	}
}

// newJournal makes c's shard's journal, which knows which transaction
// holds a key there (for the expiry of a key a transaction holds).
func newJournal(c *Core) *journal.Journal {
	j := journal.New()
	j.Holder = func(db int, key []byte) (journal.Owner, bool) {
		client, seq, ok := c.locks.Holder(db, key)
		return journal.Owner{Client: client, Seq: seq}, ok
	}
	return j
}

// writeEmptyBase writes the snapshot of an empty dataset as dir/name: the
// base a new append-only directory starts from, before any core runs.
func (s *Server) writeEmptyBase(dir, name string) error {
	pv := s.saver.Policy.Get()
	f, err := snapshot.CreateFile(dir, name, len(s.cores), s.cfg.Databases,
		snapshot.Options{Checksum: pv.Check, Compress: pv.Compress, Aux: snapshot.HeaderAux(RedisVersion)})
	if err != nil {
		return err
	}
	shardowner.SnapshotNow(s.shards(), f)
	if err := f.Finish(); err != nil {
		return fmt.Errorf("creating the AOF base file %s: %w", name, err)
	}
	return nil
}

// replayFile is an incremental file (or a base of commands) the load
// replays.
type replayFile struct {
	name, path string
	data       []byte
	unmap      func()
	shard      int  // the shard whose stream it is; -1: a stream of all
	last       bool // the last of its kind: a torn tail may be cut off
}

// planAOFLoad maps the files m names for the load at start: the base
// through the snapshot loader, then every incremental file in order, each
// core replaying its own shard's files and its keys' commands of the
// others.
func (s *Server) planAOFLoad(d *aof.Dir) error {
	m := d.Manifest()
	l := &datasetLoad{left: len(s.cores), done: make(chan error, 1), path: filepath.Join(d.Path, aof.ManifestName(d.Prefix)), aof: true}
	fail := func(err error) error {
		l.release()
		return err
	}
	if m.Base != nil {
		path := filepath.Join(d.Path, m.Base.Name)
		data, unmap, err := mapListed(path, m.Base.Name)
		switch {
		case err != nil:
			return fail(err)
		case data == nil:
		case len(data) >= 5 && string(data[:5]) == "REDIS":
			l.data, l.unmap = data, unmap
		default:
			l.replay = append(l.replay, replayFile{name: m.Base.Name, path: path, data: data, unmap: unmap, shard: -1})
		}
	}
	n := len(s.cores)
	var datas [][]byte
	for i, fi := range m.Incr {
		path := filepath.Join(d.Path, fi.Name)
		data, unmap, err := mapListed(path, fi.Name)
		if err != nil {
			return fail(err)
		}
		if data == nil {
			continue
		}
		shard := -1
		if fi.Shards == n {
			shard = fi.Shard
		}
		last := i == len(m.Incr)-1 || (fi.Shards > 0 && i >= len(m.Incr)-fi.Shards)
		l.replay = append(l.replay, replayFile{name: fi.Name, path: path, data: data, unmap: unmap, shard: shard, last: last})
		datas = append(datas, data)
	}
	if l.data == nil && len(l.replay) == 0 {
		return nil
	}
	parts := aof.Parts(datas...)
	var maxID uint64
	for id := range parts {
		maxID = max(maxID, id)
	}
	router.SeedJournalIDs(maxID)
	l.whole = aof.Complete(parts)
	s.load = l
	s.loading.Store(true)
	return nil
}

// mapListed maps a file the manifest names; an empty one is nil, with
// nothing to load, and a missing one an error, as Redis refuses it.
func mapListed(path, name string) ([]byte, func(), error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("the AOF file %s listed in the manifest: %w", name, err)
	}
	if st.Size() == 0 {
		return nil, nil, nil
	}
	return snapshot.MapFile(path)
}

// size is the bytes the load reads.
func (l *datasetLoad) size() int64 {
	n := int64(len(l.data))
	for _, f := range l.replay {
		n += int64(len(f.data))
	}
	return n
}

// release unmaps what the load mapped.
func (l *datasetLoad) release() {
	if l.unmap != nil {
		l.unmap()
		l.unmap = nil
	}
	for i := range l.replay {
		if f := &l.replay[i]; f.unmap != nil {
			f.unmap()
			f.unmap = nil
		}
	}
}

// replayInto reads the commands of c's shard from the load's incremental
// files into batches for c: all of a file of c's shard, and of a file of
// all shards the commands whose keys c's shard owns (those without keys,
// FLUSHALL and the like, every shard runs).
func (s *Server) replayInto(c *Core, b *loadBatch) (*loadBatch, error) {
	l := s.load
	n := len(s.cores)
	pv := s.aofPolicy.Get()
	var idx [16]int
	var part [][]byte // a command's part for this shard (router.OwnPart)
	for _, f := range l.replay {
		if f.shard >= 0 && f.shard != c.id {
			continue
		}
		valid, err := aof.Replay(f.data, l.whole, func(db int, argv [][]byte) error {
			if l.failed.Load() {
				return errStopped
			}
			cmd := router.Lookup(argv[0])
			if cmd == nil || cmd.Internal {
				return fmt.Errorf("unknown command '%s' reading the append only file %s", argv[0], f.name)
			}
			if !cmd.ArityOK(len(argv)) {
				return fmt.Errorf("wrong number of arguments for '%s' reading the append only file %s", argv[0], f.name)
			}
			if db >= s.cfg.Databases {
				return fmt.Errorf("the append only file %s selects database %d, and databases is %d", f.name, db, s.cfg.Databases)
			}
			if f.shard < 0 && n > 1 {
				own, other := 0, 0
				for _, i := range cmd.KeyIndexes(idx[:0], argv) {
					if router.ShardOf(argv[i], n) == c.id {
						own++
					} else {
						other++
					}
				}
				switch {
				case own == 0 && other > 0:
					return nil
				case own > 0 && other > 0:
					var ok bool
					if part, cmd, ok = router.OwnPart(part, cmd, argv, c.id, n); !ok {
						return fmt.Errorf("the append only file %s has a command over keys of several shards (%s): load it into a server of one shard, then BGREWRITEAOF", f.name, argv[0])
					}
					argv = part
				}
			}
			b.addCommand(cmd, db, argv)
			if len(b.cmds) == loadBatchRecords || len(b.args) >= 4<<20 {
				c.loadCh <- b
				b = &loadBatch{}
			}
			return nil
		})
		if errors.Is(err, aof.ErrTruncated) {
			if !pv.LoadTruncated || !f.last {
				if !f.last {
					return b, fmt.Errorf("the truncated file %s is not the last file", f.name)
				}
				return b, fmt.Errorf("Unexpected end of file reading the append only file %s. You can: "+
					"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
					"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", f.name)
			}
			if f.shard < 0 && c.id != 0 {
				continue // every core reads it; core 0 cuts it
			}
			s.log.Warn(fmt.Sprintf("!!! Warning: short read while loading the AOF file %s!!!", f.name))
			s.log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", f.name, valid))
			if err := os.Truncate(f.path, valid); err != nil {
				return b, fmt.Errorf("error truncating the AOF file %s: %w", f.name, err)
			}
			s.log.Warn(fmt.Sprintf("AOF %s loaded anyway because aof-load-truncated is enabled", f.name))
			continue
		}
		var fe *aof.FormatError
		if errors.As(err, &fe) {
			return b, fmt.Errorf("bad file format reading the append only file %s (%v): make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", f.name, fe)
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// addCommand copies a command of an incremental file into the batch.
func (b *loadBatch) addCommand(cmd *router.Command, db int, argv [][]byte) {
	for _, a := range argv {
		b.args = append(b.args, a...)
		b.argEnd = append(b.argEnd, len(b.args))
	}
	b.cmds = append(b.cmds, loadCmd{cmd: cmd, db: db, nargs: len(argv)})
}

// loadCmd is a command of an incremental file, its arguments in the
// batch's args.
type loadCmd struct {
	cmd   *router.Command
	db    int
	nargs int
}

// runCommands runs a batch's commands on c's shard as the file has them:
// straight through their handlers, as Redis's loader does, so that they
// are neither journaled again nor counted as clients' commands.
func (c *Core) runCommands(b *loadBatch) {
	ctx := shardowner.Ctx{Shard: c.shard, W: &c.loadW, Obey: true}
	arg, start := 0, 0
	for _, lc := range b.cmds {
		argv := c.loadArgv[:0]
		for range lc.nargs {
			end := b.argEnd[arg]
			argv = append(argv, b.args[start:end])
			start = end
			arg++
		}
		c.loadArgv = argv
		ctx.DB = lc.db
		c.loadW.B = c.loadW.B[:0]
		lc.cmd.Run(&ctx, argv)
	}
	clear(c.loadArgv)
	if cap(c.loadW.B) > outKeep {
		c.loadW.B = nil
	}
}

// loadFinished ends the load on c: from now on its shard journals.
func (c *Core) loadFinished() {
	if c.aofJournal != nil {
		c.shard.Journal = c.aofJournal
	}
}

// heldSend is a batch of replies for another core that waits for the
// records of the turn that made it (epoch; 0: this turn's, not yet
// written).
type heldSend struct {
	peer  int
	b     *router.Batch
	epoch uint64
}

// outMark says that a connection's output up to end (counted from the
// first byte it ever wrote) waits for epoch to be durable.
type outMark struct {
	end   int64
	epoch uint64
}

// flushJournal hands the turn's records to the journal's consumer. With
// the append-only file it writes them, then lets go the replies for other
// cores that the policy allows.
func (c *Core) flushJournal() {
	j := c.shard.Journal
	if j == nil {
		return
	}
	if c.aofLog == nil {
		if c.srv.journal != nil {
			j.Flush(c.id, c.srv.journal)
		}
		return
	}
	logs := &c.aof.logs
	if c.srv.aofStamps.Load() {
		if sec := c.shard.Clock.Ms / 1000; sec != c.aofStamped {
			// A record of a new second: Redis's annotation before it.
			if j.Stamp(sec) {
				c.aofStamped = sec
			}
		}
	}
	j.Flush(c.id, logs)
	if logs.Errs[c.id] != nil || c.aofLog.Pending() {
		if err := c.aofLog.Retry(); err != nil {
			c.aofWriteFailed(err)
		}
	}
	if w := c.aofLog.Written(); w > c.aofEpoch && c.aofLog.Fsync() == aof.FsyncAlways {
		if !c.aof.syncHere || !c.aofLog.SyncHere() {
			c.aofLog.Kick()
		}
	}
	if failed, _ := c.aofLog.Failed(); failed != c.aofFailed {
		c.aofFailed = failed
		c.regate()
	}
	c.aofEpoch = c.aofLog.Written()
	c.releaseHeld()
}

// AcksDurable says a transaction's reply waits until every shard has
// written its part (router.Exec): the append-only file is on.
func (c *Core) AcksDurable() bool { return c.aofLog != nil && c.shard.Journal != nil }

// aofWriteFailed logs a failed write of the shard's records; the replies
// waiting for them stay held until a later write succeeds.
func (c *Core) aofWriteFailed(err error) {
	now := time.Now()
	if now.Sub(c.aofErrLogged) >= 30*time.Second {
		c.aofErrLogged = now
		c.log.Warn("Error writing to the AOF file", "err", err)
	}
}

// hold keeps b, a batch of replies, until the turn's records are written
// (and synced, under always).
func (c *Core) hold(peer int, b *router.Batch) {
	c.heldSends = append(c.heldSends, heldSend{peer: peer, b: b})
}

// heldUntagged reports whether replies wait for a turn's records that
// are not written yet: the loop must not sleep before it writes them.
func (c *Core) heldUntagged() bool {
	n := len(c.heldSends)
	return n > 0 && c.heldSends[n-1].epoch == 0
}

// releaseHeld sends the held replies whose records are durable, in the
// order they were held.
func (c *Core) releaseHeld() {
	if len(c.heldSends) == 0 {
		return
	}
	durable := c.aofLog.Durable()
	i := 0
	for ; i < len(c.heldSends); i++ {
		h := &c.heldSends[i]
		if h.epoch == 0 {
			h.epoch = c.aofEpoch
		}
		if h.epoch > durable {
			break
		}
		c.push(h.peer, h.b)
	}
	for k := i; k < len(c.heldSends); k++ {
		if c.heldSends[k].epoch == 0 {
			c.heldSends[k].epoch = c.aofEpoch
		}
	}
	m := copy(c.heldSends, c.heldSends[i:])
	clear(c.heldSends[m:])
	c.heldSends = c.heldSends[:m]
}

// syncLimit reports whether cn's output must wait for the log's syncer,
// and how much of it may leave now: under always, the output a turn made
// waits for the turn's epoch (and every earlier one) to be on disk.
func (c *Core) syncLimit(cn *Conn) (limit int, wait bool) {
	durable := c.aofLog.Durable()
	abs := cn.outBase + int64(len(cn.out))
	if c.aofEpoch > durable {
		if k := len(cn.marks); k > 0 && cn.marks[k-1].epoch == c.aofEpoch {
			cn.marks[k-1].end = abs
		} else if k == 0 || cn.marks[k-1].end < abs {
			cn.marks = append(cn.marks, outMark{end: abs, epoch: c.aofEpoch})
		}
	}
	i := 0
	for i < len(cn.marks) && cn.marks[i].epoch <= durable {
		cn.released = cn.marks[i].end
		i++
	}
	if i > 0 {
		m := copy(cn.marks, cn.marks[i:])
		cn.marks = cn.marks[:m]
	}
	if len(cn.marks) == 0 {
		return len(cn.out), false
	}
	return max(int(cn.released-cn.outBase), cn.outAt), true
}

// releaseSynced marks dirty the connections whose held output the syncer
// may have freed.
func (c *Core) releaseSynced() {
	durable := c.aofLog.Durable()
	keep := c.syncHeld[:0]
	for _, cn := range c.syncHeld {
		if cn.closed {
			cn.syncHeld = false
			continue
		}
		if len(cn.marks) == 0 || cn.marks[0].epoch <= durable {
			cn.syncHeld = false
			c.markDirty(cn)
			continue
		}
		keep = append(keep, cn)
	}
	clear(c.syncHeld[len(keep):])
	c.syncHeld = keep
}

// closeAOF writes what the shard has left and closes its log, as the core
// stops.
func (c *Core) closeAOF() {
	if c.aofLog == nil {
		return
	}
	c.flushJournal()
	if err := c.aofLog.Close(); err != nil {
		c.log.Warn("closing the AOF file", "err", err)
	}
}

// aofRefusal is the error a write gets while the shard's last write to
// its log failed, as Redis refuses writes then.
func (c *Core) aofRefusal(flags router.Flag) resp.Error {
	if c.aofLog == nil || flags&router.FlagWrite == 0 {
		return ""
	}
	if failed, err := c.aofLog.Failed(); failed {
		return resp.Error("MISCONF Errors writing to the AOF file: " + settings.Strerror(err))
	}
	return ""
}

// modeRewrite is the cut mode of a rewrite's snapshot (aof.Dir); its
// reply is BGREWRITEAOF's.
const modeRewrite = "aofrewrite"

// RewriteAOF is BGREWRITEAOF's effect (servercmd.Core).
func (c *Core) RewriteAOF(scn servercmd.Conn) (bool, error) {
	cn := scn.(*Conn)
	return c.startRewrite(cn, cn.InExec())
}

// startRewrite starts a rewrite for cn (nil: a scheduled or automatic
// one): the directory's new files, the snapshot into the new base, and
// the cut of every shard; behind a running save, or with later (inside
// EXEC), it is scheduled instead.
func (c *Core) startRewrite(cn *Conn, later bool) (bool, error) {
	s := c.srv
	d, files := s.rewriteDir()
	if d == nil {
		return false, errors.New("the append-only directory cannot be opened")
	}
	base, scheduled, err := d.BeginRewrite(files, later, s.saver.Status().InProgress)
	switch {
	case errors.Is(err, aof.ErrRewriteRunning):
		return false, servercmd.ErrRewriteInProgress
	case err != nil:
		c.log.Warn("can't start the AOF rewrite", "err", err)
		return false, err
	case scheduled:
		return true, nil
	}
	id, err := s.saver.BeginRewrite(d.Path, base.Name, len(s.cores), s.cfg.Databases, snapshot.HeaderAux(RedisVersion),
		func(err error) { s.rewriteDone(d, err) })
	d.RewriteCut(id, err)
	if err != nil {
		c.log.Warn("can't start the AOF rewrite", "err", err)
		return false, err
	}
	c.log.Info("Background append only file rewriting started", "base", base.Name, "id", id)
	argv := [][]byte{cmdSnapshot.NameBytes(), strconv.AppendUint(nil, id, 10), []byte(modeRewrite)}
	if cn == nil {
		slot := c.NewSlot()
		slot.Orphan = true
		router.StartSplit(c, slot, cmdSnapshot, 0, 2, argv)
		return false, nil
	}
	c.allShards(cn, cmdSnapshot, argv)
	return false, nil
}

// rewriteDir is the directory a rewrite writes into and how many
// incremental files it makes: the file's, one per shard, while it is on;
// with the file off, as Redis does, the directory alone (its manifest then
// names only the new base), kept in offDir for INFO and a scheduled run.
func (s *Server) rewriteDir() (*aof.Dir, int) {
	if a := s.aof.Load(); a != nil {
		return a.dir, len(s.cores)
	}
	if d := s.offDir.Load(); d != nil {
		return d, 0
	}
	pv := s.aofPolicy.Get()
	d, err := aof.OpenDir(pv.DirPath, pv.File)
	if err != nil {
		s.log.Warn("can't open the append-only dir", "err", err)
		return nil, 0
	}
	s.offDir.Store(d)
	return d, 0
}

// atCut switches c's shard to its new incremental file when cut id is a
// rewrite's: what the shard recorded before the cut goes to the old file
// first, since the new base holds it.
func (a *aofFiles) atCut(c *Core, id uint64) {
	path, ok := a.dir.CutFile(id, c.id)
	if !ok {
		return
	}
	if c.aof != a {
		if a.off.Load() {
			return // turned off before its cut reached this shard
		}
		// The file is being turned on: the shard journals from the cut.
		if j := c.shard.Journal; j != nil && c.srv.journal != nil {
			j.Flush(c.id, c.srv.journal)
		}
		c.aof, c.aofLog = a, a.logs.Logs[c.id]
		c.aofJournal = newJournal(c)
		c.shard.Journal = c.aofJournal
		return
	}
	if j := c.shard.Journal; j != nil {
		j.Flush(c.id, &a.logs)
	}
	if err := c.aofLog.Switch(path); err != nil {
		c.log.Warn("can't switch to the new AOF file", "file", path, "err", err)
		a.dir.SwitchFailed()
	}
}

// rewriteDone ends the rewrite once its base is in place or failed; it
// runs on the snapshot writer's goroutine.
func (s *Server) rewriteDone(d *aof.Dir, err error) {
	took, err := d.EndRewrite(err)
	if err != nil {
		s.log.Warn("Background AOF rewrite failed", "err", err)
		return
	}
	s.log.Info("Background AOF rewrite finished successfully", "seconds", fmt.Sprintf("%.3f", took.Seconds()))
}

// aofTimer starts a scheduled or automatic rewrite when one is due (core
// 0's timer, once a second).
func (c *Core) aofTimer(now time.Time) {
	var d *aof.Dir
	if a := c.srv.aof.Load(); a != nil {
		d = a.dir
	} else if d = c.srv.offDir.Load(); d == nil {
		return
	}
	if c.srv.loading.Load() {
		return
	}
	pv := c.srv.aofPolicy.Get()
	if c.srv.aof.Load() == nil {
		pv.RewritePercent = 0 // with the file off only a scheduled rewrite runs
	}
	due, growth := d.Due(pv, now, c.srv.saver.Status().InProgress)
	if !due {
		return
	}
	if growth > 0 {
		c.log.Info("Starting automatic rewriting of AOF", "growth_percent", growth)
	}
	c.startRewrite(nil, false)
}

// aofStatus is INFO persistence's view of the append-only file.
func (s *Server) aofStatus() aof.Status {
	a := s.aof.Load()
	if a == nil {
		st := aof.OffStatus()
		if d := s.offDir.Load(); d != nil {
			st = d.Status(nil)
			st.Enabled = false
		}
		if s.aofSwitch.Load() && s.aofPolicy.Get().On {
			// Turned on, the rewrite not started yet: Redis's
			// AOF_WAIT_REWRITE.
			st.Enabled, st.RewriteScheduled = true, true
		}
		return st
	}
	return a.dir.Status(a.logs.Logs)
}
