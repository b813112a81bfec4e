package reactor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// aofFiles is the append-only directory while the file is on.
type aofFiles struct {
	dir, prefix string
	logs        aof.Logs

	mu  sync.Mutex
	man *aof.Manifest
	rw  aofRewrite
}

// openAOF reads (or makes) the append-only directory at start and opens
// every shard's incremental file; what the directory holds is loaded as
// the dataset, in place of the snapshot file, as Redis does.
func (s *Server) openAOF() error {
	pv := s.aofPolicy.Get()
	a := &aofFiles{dir: pv.DirPath, prefix: pv.File}
	n := len(s.cores)
	man, err := aof.ReadManifest(a.dir, a.prefix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(a.dir, 0o755); err != nil {
			return fmt.Errorf("can't open or create append-only dir %s: %w", a.dir, err)
		}
		man = &aof.Manifest{}
		base := aof.FileInfo{Name: aof.BaseName(a.prefix, 1, true), Seq: 1, Type: aof.TypeBase}
		if err := s.writeEmptyBase(a.dir, base.Name); err != nil {
			return err
		}
		man.Base = &base
		s.log.Info("Creating AOF base file on server start", "file", base.Name)
	case err != nil:
		return fmt.Errorf("reading the AOF manifest: %w", err)
	default:
		if err := s.planAOFLoad(a, man); err != nil {
			return err
		}
	}
	set, ok := man.ShardFiles(n)
	if !ok {
		set = newIncrSet(man, a.prefix, n)
		man.Incr = append(man.Incr, set...)
		s.log.Info("Creating AOF incr files on server start", "first", set[0].Name, "files", n)
	}
	if err := aof.WriteManifest(a.dir, a.prefix, man); err != nil {
		return fmt.Errorf("writing the AOF manifest: %w", err)
	}
	a.man = man
	a.logs.Epochs = make([]uint64, n)
	a.logs.Errs = make([]error, n)
	for i, c := range s.cores {
		c := c
		l, err := aof.OpenLog(i, filepath.Join(a.dir, set[i].Name), pv.Fsync, func(int) { c.forceWake() })
		if err != nil {
			for _, o := range a.logs.Logs {
				o.Close()
			}
			return fmt.Errorf("can't open the append-only file %s: %w", set[i].Name, err)
		}
		a.logs.Logs = append(a.logs.Logs, l)
		c.aofLog = l
		c.aofJournal = newJournal(c)
		if s.load == nil {
			c.shard.Journal = c.aofJournal
		}
	}
	a.rw.baseSize = a.dirSize()
	s.aof = a
	s.aofPolicy.OnChange(func(old, cur aof.Settings) {
		if old.Fsync != cur.Fsync {
			for _, l := range a.logs.Logs {
				l.SetFsync(cur.Fsync)
			}
		}
	})
	return nil
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

// newIncrSet names a new incremental file per shard after m's last.
func newIncrSet(m *aof.Manifest, prefix string, shards int) []aof.FileInfo {
	var seq int64
	for _, fi := range m.Incr {
		seq = max(seq, fi.Seq)
	}
	set := make([]aof.FileInfo, shards)
	for i := range set {
		seq++
		set[i] = aof.FileInfo{Name: aof.IncrName(prefix, seq), Seq: seq, Type: aof.TypeIncr, Shard: i, Shards: shards}
	}
	return set
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
func (s *Server) planAOFLoad(a *aofFiles, m *aof.Manifest) error {
	l := &datasetLoad{left: len(s.cores), done: make(chan error, 1), path: filepath.Join(a.dir, aof.ManifestName(a.prefix)), aof: true}
	fail := func(err error) error {
		l.release()
		return err
	}
	if m.Base != nil {
		path := filepath.Join(a.dir, m.Base.Name)
		data, unmap, err := snapshot.MapFile(path)
		switch {
		case err != nil && strings.Contains(err.Error(), "is empty"):
		case err != nil:
			return fail(fmt.Errorf("opening the AOF base file: %w", err))
		case len(data) >= 5 && string(data[:5]) == "REDIS":
			l.data, l.unmap = data, unmap
		default:
			l.replay = append(l.replay, replayFile{name: m.Base.Name, path: path, data: data, unmap: unmap, shard: -1})
		}
	}
	n := len(s.cores)
	var datas [][]byte
	for i, fi := range m.Incr {
		path := filepath.Join(a.dir, fi.Name)
		st, err := os.Stat(path)
		if err != nil {
			return fail(fmt.Errorf("the AOF file %s listed in the manifest: %w", fi.Name, err))
		}
		if st.Size() == 0 {
			continue
		}
		data, unmap, err := snapshot.MapFile(path)
		if err != nil {
			return fail(err)
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
					return fmt.Errorf("the append only file %s has a command over keys of several shards (%s): load it into a server of one shard, then BGREWRITEAOF", f.name, argv[0])
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
				return b, fmt.Errorf("unexpected end of file reading the append only file %s. You can: "+
					"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
					"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", f.name)
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
	ctx := shardowner.Ctx{Shard: c.shard, W: &c.loadW}
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
	logs := &c.srv.aof.logs
	j.Flush(c.id, logs)
	if logs.Errs[c.id] != nil || c.aofLog.Pending() {
		if err := c.aofLog.Retry(); err != nil {
			c.aofWriteFailed(err)
		}
	}
	if failed, _ := c.aofLog.Failed(); failed != c.aofFailed {
		c.aofFailed = failed
		c.gated = c.loadingGate || c.misconf || c.aofFailed
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
func (c *Core) aofRefusal(cmd *router.Command) resp.Error {
	if c.aofLog == nil || cmd.Flags&router.FlagWrite == 0 {
		return ""
	}
	if failed, err := c.aofLog.Failed(); failed {
		return resp.Error("MISCONF Errors writing to the AOF file: " + settings.Strerror(err))
	}
	return ""
}

// Rewrite without fork: new incremental files are made and named in the
// manifest first (after the old ones, so that a crash meanwhile loses
// nothing), every shard is cut at one instant for a snapshot into the new
// base and switches to its new file at the cut, and once the base is in
// place a manifest of the new base and files replaces the old one, whose
// files are then deleted.

// aofRewrite is the rewrite state, under aofFiles.mu.
type aofRewrite struct {
	running   bool
	id        uint64 // the cut's save id
	base      aof.FileInfo
	set       []aof.FileInfo
	start     time.Time
	scheduled bool
	// switchFailed: a shard went on in its old file at the cut.
	switchFailed bool

	lastSecs     int64
	lastOK       bool
	rewrites     int64
	fails        int64
	baseSize     int64 // the directory's size after the last rewrite (or start)
	lastAttempts time.Time
}

// modeRewrite is the cut mode of a rewrite's snapshot; its reply is
// BGREWRITEAOF's.
const modeRewrite = "aofrewrite"

// RewriteAOF is BGREWRITEAOF's effect (servercmd.Core).
func (c *Core) RewriteAOF(scn servercmd.Conn) (bool, error) {
	cn := scn.(*Conn)
	return c.startRewrite(cn, cn.InExec())
}

// startRewrite starts a rewrite for cn (nil: the automatic one), or
// schedules it behind a running save or, with later, after EXEC.
func (c *Core) startRewrite(cn *Conn, later bool) (bool, error) {
	s := c.srv
	a := s.aof
	if a == nil {
		return false, errors.New("the append-only file is off")
	}
	id, err := a.prepareRewrite(c, later)
	if err != nil || id == 0 {
		return id == 0 && err == nil, err
	}
	// The cut runs this core's part at once, which takes a.mu (atCut).
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

// prepareRewrite makes the rewrite's new files and manifest and begins
// its base; it returns the cut's save id, or 0 when the rewrite is
// scheduled instead.
func (a *aofFiles) prepareRewrite(c *Core, later bool) (uint64, error) {
	s := c.srv
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rw.running {
		return 0, servercmd.ErrRewriteInProgress
	}
	if later || s.saver.Status().InProgress {
		a.rw.scheduled = true
		return 0, nil
	}
	a.rw.scheduled = false
	a.rw.lastAttempts = time.Now()
	m := a.man
	baseSeq := int64(1)
	if m.Base != nil {
		baseSeq = m.Base.Seq + 1
	}
	base := aof.FileInfo{Name: aof.BaseName(a.prefix, baseSeq, true), Seq: baseSeq, Type: aof.TypeBase}
	set := newIncrSet(m, a.prefix, len(s.cores))
	for _, fi := range set {
		f, err := os.OpenFile(filepath.Join(a.dir, fi.Name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			c.log.Warn("can't open the append-only file for the rewrite", "file", fi.Name, "err", err)
			return 0, err
		}
		f.Close()
	}
	next := *m
	next.Incr = append(append([]aof.FileInfo(nil), m.Incr...), set...)
	if err := aof.WriteManifest(a.dir, a.prefix, &next); err != nil {
		c.log.Warn("can't write the AOF manifest for the rewrite", "err", err)
		return 0, err
	}
	a.man = &next
	id, err := s.saver.BeginRewrite(a.dir, base.Name, len(s.cores), s.cfg.Databases, snapshot.HeaderAux(RedisVersion),
		func(err error) { s.rewriteDone(err) })
	if err != nil {
		c.log.Warn("can't start the AOF rewrite", "err", err)
		return 0, err
	}
	a.rw.running, a.rw.id, a.rw.base, a.rw.set, a.rw.start = true, id, base, set, time.Now()
	c.log.Info("Background append only file rewriting started", "base", base.Name, "id", id)
	return id, nil
}

// atCut switches c's shard to its new incremental file when the cut is a
// rewrite's: what the shard recorded before the cut goes to the old file
// first, since the new base holds it.
func (a *aofFiles) atCut(c *Core, id uint64) {
	a.mu.Lock()
	if !a.rw.running || a.rw.id != id {
		a.mu.Unlock()
		return
	}
	fi := a.rw.set[c.id]
	a.mu.Unlock()
	if j := c.shard.Journal; j != nil {
		j.Flush(c.id, &a.logs)
	}
	if err := c.aofLog.Switch(filepath.Join(a.dir, fi.Name)); err != nil {
		// The shard goes on in its old file, which the manifest names:
		// nothing is lost, and the rewrite fails when it ends.
		c.log.Warn("can't switch to the new AOF file", "file", fi.Name, "err", err)
		a.mu.Lock()
		a.rw.switchFailed = true
		a.mu.Unlock()
	}
}

// rewriteDone puts the rewrite's manifest in place once its base is, and
// deletes the files it no longer names; it runs on the snapshot writer's
// goroutine.
func (s *Server) rewriteDone(err error) {
	a := s.aof
	a.mu.Lock()
	defer a.mu.Unlock()
	rw := &a.rw
	rw.running = false
	rw.lastSecs = int64(time.Since(rw.start).Seconds() + 0.5)
	if err == nil && rw.switchFailed {
		err = errors.New("a shard could not switch to its new file")
	}
	rw.switchFailed = false
	if err != nil {
		rw.lastOK = false
		rw.fails++
		s.log.Warn("Background AOF rewrite failed", "err", err)
		return
	}
	old := a.man
	next := &aof.Manifest{Base: &rw.base, Incr: rw.set}
	if err := aof.WriteManifest(a.dir, a.prefix, next); err != nil {
		rw.lastOK = false
		rw.fails++
		s.log.Warn("Background AOF rewrite failed: writing the manifest", "err", err)
		return
	}
	a.man = next
	keep := map[string]bool{rw.base.Name: true}
	for _, fi := range rw.set {
		keep[fi.Name] = true
	}
	var gone []aof.FileInfo
	if old.Base != nil {
		gone = append(gone, *old.Base)
	}
	gone = append(append(gone, old.History...), old.Incr...)
	for _, fi := range gone {
		if !keep[fi.Name] {
			os.Remove(filepath.Join(a.dir, fi.Name))
		}
	}
	rw.lastOK = true
	rw.rewrites++
	rw.fails = 0
	rw.baseSize = a.dirSize()
	s.log.Info("Background AOF rewrite finished successfully", "base", rw.base.Name, "seconds", rw.lastSecs)
}

// dirSize is the size of the files the manifest names (under mu).
func (a *aofFiles) dirSize() int64 {
	var n int64
	add := func(fi aof.FileInfo) {
		if st, err := os.Stat(filepath.Join(a.dir, fi.Name)); err == nil {
			n += st.Size()
		}
	}
	if a.man.Base != nil {
		add(*a.man.Base)
	}
	for _, fi := range a.man.Incr {
		add(fi)
	}
	return n
}

// aofTimer starts a scheduled rewrite once no save runs, and the
// automatic one when the files have grown auto-aof-rewrite-percentage
// over their size after the last rewrite (core 0's timer).
func (c *Core) aofTimer(now time.Time) {
	a := c.srv.aof
	if a == nil || c.srv.loading.Load() {
		return
	}
	pv := c.srv.aofPolicy.Get()
	a.mu.Lock()
	running, scheduled, base := a.rw.running, a.rw.scheduled, a.rw.baseSize
	last, fails := a.rw.lastAttempts, a.rw.fails
	a.mu.Unlock()
	if running || c.srv.saver.Status().InProgress {
		return
	}
	if scheduled {
		c.startRewrite(nil, false)
		return
	}
	if pv.RewritePercent == 0 || (fails > 0 && now.Sub(last) < time.Minute) {
		return
	}
	size := c.srv.aofSize()
	if size < pv.RewriteMinSize {
		return
	}
	if base == 0 {
		base = 1
	}
	if (size-base)*100/base >= pv.RewritePercent {
		c.log.Info("Starting automatic rewriting of AOF", "growth_percent", (size-base)*100/base)
		c.startRewrite(nil, false)
	}
}

// aofSize is the size of every file the manifest names.
func (s *Server) aofSize() int64 {
	a := s.aof
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dirSize()
}

// aofStatus is INFO persistence's view of the append-only file.
func (s *Server) aofStatus() aof.Status {
	a := s.aof
	st := aof.Status{LastRewriteSecs: -1, CurrentRewriteSecs: -1, LastRewriteOK: true, LastWriteOK: true}
	if a == nil {
		return st
	}
	size := s.aofSize()
	a.mu.Lock()
	defer a.mu.Unlock()
	rw := &a.rw
	st.Enabled = true
	st.RewriteInProgress, st.RewriteScheduled = rw.running, rw.scheduled
	if rw.rewrites > 0 || rw.fails > 0 {
		st.LastRewriteSecs = rw.lastSecs
	}
	if rw.running {
		st.CurrentRewriteSecs = int64(time.Since(rw.start).Seconds())
	}
	st.LastRewriteOK, st.Rewrites, st.ConsecutiveFails = rw.lastOK || rw.rewrites+rw.fails == 0, rw.rewrites, rw.fails
	st.CurrentSize, st.BaseSize = size, rw.baseSize
	for _, l := range a.logs.Logs {
		if failed, _ := l.Failed(); failed {
			st.LastWriteOK = false
		}
		st.DelayedFsync += l.Delayed()
		if l.SyncInProgress() {
			st.PendingFsync++
		}
	}
	return st
}
