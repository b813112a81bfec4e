package reactor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Snapshots in the loop: SAVE and BGSAVE cut every shard for a new save
// (corekv.snapshot, under the locks of all shards), each core walks its
// shard's part a slice per turn (shardowner.SnapshotStep), the Saver's
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
	if b := s.shutdownSave.Load(); b != nil {
		return *b
	}
	return len(s.saver.Policy.Get().Points) > 0
}

// errMisconf refuses writes (and PING, as Redis does) while the last save
// failed, saves are configured and stop-writes-on-bgsave-error is on.
const errMisconf resp.Error = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."

// initSaver gives every shard the way to its cut's sink.
func (s *Server) initSaver() {
	for _, c := range s.cores {
		c.shard.Log = c.log
		c.shard.SnapshotFor = func(id, dirty uint64) shardowner.SnapshotSink {
			f := s.saver.Sink(id)
			if f == nil {
				return nil
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
	if string(argv[2]) == saveBackground {
		w.Simple("Background saving started")
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

// loadAtStart loads the snapshot file (dir/dbfilename), when there is one,
// before any core runs (shardowner.LoadShards). A file that cannot be read
// whole stops the start: no partial dataset is served.
func (s *Server) loadAtStart() error {
	pv := s.saver.Policy.Get()
	path := filepath.Join(pv.Dir, pv.File)
	data, unmap, err := snapshot.MapFile(path)
	if errors.Is(err, snapshot.ErrNoFile) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening the RDB file: %w", err)
	}
	defer unmap()
	start := time.Now()
	keys, expired, err := shardowner.LoadShards(s.shards(), data, shardowner.LoadOptions{SkipChecksum: !pv.Check, Log: s.log})
	if err != nil {
		return fmt.Errorf("loading the RDB file %s: %w", path, err)
	}
	s.saver.Loaded(keys, expired)
	s.log.Info("DB loaded from disk", "file", path, "seconds", fmt.Sprintf("%.3f", time.Since(start).Seconds()),
		"keys", keys, "expired", expired)
	return nil
}

// shards are the cores' shards, in order.
func (s *Server) shards() []*shardowner.Shard {
	out := make([]*shardowner.Shard, len(s.cores))
	for i, c := range s.cores {
		out[i] = c.shard
	}
	return out
}
