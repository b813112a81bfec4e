package reactor

import (
	"errors"
	"runtime"
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

var cmdSnapshot = router.LookupString("corekv.snapshot")

// Modes of a cut, which its reply follows: servercmd's SaveBackground and
// SaveForeground, and saveAuto for a save point's, which nobody waits for.
const (
	saveBackground = servercmd.SaveBackground
	saveForeground = servercmd.SaveForeground
	saveAuto       = "auto"
)

// saveWait is a SAVE waiting for its file.
type saveWait struct {
	cn   *Conn
	slot *router.Slot
	id   uint64
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
		c.shard.SnapshotFor = func(id, dirty uint64) (shardowner.SnapshotSink, bool) {
			f := s.saver.Sink(id)
			if f == nil {
				return nil, false
			}
			s.saver.AddCutDirty(id, dirty)
			return f, s.saver.Compress()
		}
	}
}

// saveAux are the header fields of a file this server writes, those Redis
// 7.0 writes that mean something here.
func (s *Server) saveAux() []snapshot.Aux {
	return []snapshot.Aux{
		{Key: "redis-ver", Value: RedisVersion},
		{Key: "redis-bits", Value: "64"},
		{Key: "ctime", Value: strconv.FormatInt(time.Now().Unix(), 10)},
		{Key: "used-mem", Value: strconv.FormatUint(heapInUse(), 10)},
		{Key: "aof-base", Value: "0"},
	}
}

// startSave begins a save and cuts every shard for it, for cn (nil: a save
// point's), in mode.
func (c *Core) startSave(cn *Conn, mode string) error {
	s := c.srv
	id, err := s.saver.Begin(len(s.cores), s.cfg.Databases, s.saveAux())
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
		c.saveWaits = append(c.saveWaits, saveWait{cn: cn, slot: slot, id: id})
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
		if err != nil {
			reply = "-" + string(errSaveFailed) + "\r\n"
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
		snapshot.Options{Checksum: pv.Check, Aux: s.saveAux()})
	if err != nil {
		return err
	}
	for _, c := range s.cores {
		c.shard.AbortSnapshot()
		c.shard.StartSnapshot(f, pv.Compress)
	}
	for _, c := range s.cores {
		for c.shard.Snap != nil {
			if c.shard.SnapshotStep() {
				time.Sleep(time.Millisecond)
			}
		}
	}
	return f.Finish()
}

// heapInUse is the Go heap's memory in use, for the header's used-mem
// (informative: Redis's loaders only log it).
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}
