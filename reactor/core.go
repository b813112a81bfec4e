package reactor

import (
	"bytes"
	"log/slog"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/instant"
	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/reactor/sockets"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/journal"
	"golang.org/x/sys/unix"
)

// Core is one shard's thread: its keyspace, its epoll loop, its listeners,
// its connections and its ends of the rings to every other core.
type Core struct {
	id     int
	cpu    int // CPU the thread is pinned to, -1 for none
	srv    *Server
	shard  *shardowner.Shard
	log    *slog.Logger
	epfd   int
	evfd   int
	listen []int

	conns []*Conn // by descriptor: an event finds its connection by index
	// tracked are this core's tracking connections by ID; flushSeen
	// counts each shard's flush notices, flushDone the flushes told
	// (tracking.go); trackArgv is a scratch for their messages.
	tracked   map[int64]*Conn
	flushSeen []uint64
	flushDone uint64
	trackArgv [][]byte
	trackOut  []bool // per peer: its batch being filled holds an invalidation
	// paused are the connections CLIENT PAUSE holds, expiryHeld whether
	// the tables keep expired keys for it (pause.go).
	paused     []*Conn
	expiryHeld bool
	memGen     uint64  // the memory settings' Gen syncMemory last took
	dirty      []*Conn // connections with output or slots to look at this turn
	reading    []*Conn // connections with bytes to read or parse
	waiting    []*Conn // connections with replies expected from peers
	events     []unix.EpollEvent
	outBatch   []*router.Batch   // batch being filled for each peer
	overflow   [][]*router.Batch // batches a full ring could not take, per peer
	resume     []*router.Batch   // a peer's batch stopped by the reply budget, per peer
	// outReplies carry, per peer, the replies of its commands that waited
	// in this shard's lock queue.
	outReplies   []*router.Batch
	locks        router.Locks
	runningReady bool
	replies      router.Replies // where Run sends replies for slots (toSlots)
	scratchShard *shardowner.Shard
	free         []*router.Batch
	slots        []*router.Slot
	ctx          shardowner.Ctx
	ps           hub // subscriptions of this core's connections (pubsub.go)
	w            resp.Writer
	ahead        [parseAhead]parsed
	// The busy loop's (busy.go): its events, the arguments and inline line
	// it parses, and whether a pass of it is running.
	busyEvents   []unix.EpollEvent
	busyArgv     [][]byte
	busyLine     []byte
	busyServing  bool
	hashedKey    []byte // the running command's first key, when touchKeys hashed it
	keyHash      uint64 // hashedKey's hash; 0: none
	lastName     [24]byte
	lastNameLen  int
	lastCmd      *router.Command // what lookup found for lastName
	group        router.Group
	clock        int64     // router.Now() where parse's next command, or group, starts
	turnEnd      time.Time // the clock when the last turn ended
	sink         uint64    // where touchKeys' loads go, so they are not optimised away
	keyPos       []int     // scratch for a command's key positions
	scriptHabits router.ScriptHabits

	// mon are this core's monitoring connections; monitoring is whether
	// any core has one, as of the parse running (monitor.go).
	mon        coreMonitors
	monitoring bool

	// sleeping is set while the core waits in epoll_wait with a timeout;
	// a producer that finds it set clears it and writes the eventfd.
	sleeping atomic.Int32
	// kill is set when another core asked this one to close connections
	// marked killed (CLIENT KILL).
	kill atomic.Bool
	// unblockReq is set when CLIENT UNBLOCK named a client of this core.
	unblockReq atomic.Bool
	// blockTimers are the timeouts of the blocking commands of this
	// core's clients, a heap by time (blocking.go); serving is set while
	// parked commands are served.
	blockTimers []blockTimer
	serving     bool
	// blockSlots are the slots of the multi-shard blocking commands'
	// attempts and wake registrations, with their connections.
	blockSlots map[*router.Slot]*Conn

	stats     coreStats
	pub       publishedStats
	exp       expireState
	inst      instant.Rates
	cmdPub    cmdStatsCopy
	base      servercmd.Totals // what pub held at the last CONFIG RESETSTAT; guarded by srv.mu
	nextTimer int64            // Unix ms of the next timer run
	lastBusy  int64            // Unix ms of the last turn that had work
	// spinUntil (Unix ns) is when the core stops polling and may sleep: see
	// spinAfterCommands.
	spinUntil int64
	// spinOffUntil (Unix ms) is when the core may poll after busy turns
	// again, after its thread was found preempted; preempted is the count of
	// its thread's involuntary context switches at the last look, at
	// preemptedAt (Unix ms).
	spinOffUntil int64
	preempted    int64
	preemptedAt  int64
	stopped      bool // stopped reading; draining

	// acceptPausedUntil (Unix ms) is when the listeners, unwatched after
	// accept ran out of descriptors, are watched again; 0 while they are.
	acceptPausedUntil int64
	acceptWarnedAt    int64 // Unix ms of the last warning about it
	acceptFailures    int   // failed accepts since that warning

	// sleepers are the DEBUG SLEEPs waiting out their time off the loop;
	// debugSlept is how long this turn has blocked in DEBUG SLEEP.
	sleepers   []debugSleeper
	debugSlept time.Duration

	// saveWaits are the SAVEs waiting for their file; snapWaiting says the
	// snapshot walk waits for the file's writer (persist.go).
	saveWaits   []saveWait
	snapPacer   shardowner.SnapshotPacer
	snapNext    time.Time // when the walk wants the loop back
	snapWaiting bool
	// misconf refuses writes: the last save failed (errMisconf). Each
	// timer run and each save's end refresh it.
	misconf bool
	// oom refuses what may grow memory: the server is over maxmemory and
	// nothing can be evicted; evicting: the shard has more to evict, and
	// the loop does not sleep (memory.go).
	oom, evicting bool
	// gated is any of loadingGate, misconf, aofFailed and oom: one test per
	// command (regate).
	gated bool
	// loadCh brings the records of the snapshot file being loaded at
	// start, which loader stores (persist.go); loadingGate answers
	// -LOADING meanwhile, on every core until all have loaded.
	loadCh      chan *loadBatch
	loader      *shardowner.Loader
	loadErr     error
	loadingGate bool
	// loadW and loadArgv run the load's commands (runCommands).
	loadW    resp.Writer
	loadArgv [][]byte

	// The append-only file (aof.go): the shard's log and the journal it
	// takes once loaded; aofEpoch is the log's last written turn;
	// heldSends are replies for other cores waiting for their records,
	// syncHeld the connections whose output waits for the log's syncer.
	aof          *aofFiles // the file this shard writes to, nil while it writes none
	aofDetach    atomic.Bool
	aofLog       *aof.Log
	aofJournal   *journal.Journal
	aofEpoch     uint64
	aofFailed    bool // the last write failed: writes are refused
	aofErrLogged time.Time
	aofCheckAt   int64 // Unix ms of core 0's next look at the rewrite (aofTimer)
	aofStamped   int64 // the Unix second of the last #TS annotation
	heldSends    []heldSend
	syncHeld     []*Conn
}

// coreStats are counted by the core alone, without atomics.
type coreStats struct {
	commands     uint64
	netIn        uint64
	netOut       uint64
	ringSent     uint64 // batches sent to peers
	ringCmdsSent uint64 // commands in them
	ringRecv     uint64 // batches executed for peers
	ringCmds     uint64 // commands executed for peers
	wakeupsSent  uint64 // eventfd writes that woke a sleeping peer
	wakeupsRecv  uint64 // eventfd reads: times this core was woken
	sleeps       uint64 // epoll_waits that could block
	spinPolls    uint64 // epoll_waits that polled, rather than slept, in a spin window
	spinPauses   uint64 // times polling was switched off because the thread was preempted
	expireNs     uint64 // time spent in active expiry
	expireCapped uint64 // active expiry runs that stopped at their budget with keys due
	conns        uint64 // accepted
	rejected     uint64
	keyHits      uint64
	keyMisses    uint64
	drainCounted bool

	// Loop turns that took 1 ms or more from epoll_wait's return to the
	// end of the turn, and the longest turn since start or since the
	// CONFIG RESETSTAT of generation statGen.
	slowTurns     uint64
	longestTurnNs uint64
	statGen       uint64

	// Error replies sent to this core's clients, and by code (countError).
	errorReplies uint64
	errs         map[string]uint64
	errsChanged  bool
}

// publishedStats are the core's counters as other goroutines (INFO) read
// them, refreshed every timer tick and when a part of INFO runs here.
type publishedStats struct {
	counters                       [servercmd.CounterCount]atomic.Uint64 // what INFO sums (counter)
	instOps, instNetIn, instNetOut atomic.Uint64                         // per second (instant.Rates)
	stalePerc                      atomic.Uint64                         // float64 bits
	arenaBytes, offHeapBytes       atomic.Uint64
	mem                            memPublished
	longestTurnNs, statGen         atomic.Uint64
	keys, expires, meanExpire      []atomic.Int64
	connected                      atomic.Int64
	hops                           [servercmd.HopCount]atomic.Uint64
}

// hops gathers the counters INFO reports as servercmd.HopStats.
func (s *coreStats) hops() servercmd.HopStats {
	return servercmd.HopStats{servercmd.HopBatchesSent: s.ringSent, servercmd.HopCommandsSent: s.ringCmdsSent,
		servercmd.HopBatchesReceived: s.ringRecv, servercmd.HopCommandsReceived: s.ringCmds,
		servercmd.HopWakeupsSent: s.wakeupsSent, servercmd.HopWakeupsReceived: s.wakeupsRecv,
		servercmd.HopSleeps: s.sleeps, servercmd.HopSpinPolls: s.spinPolls, servercmd.HopSpinPauses: s.spinPauses}
}

func newCore(srv *Server, id, cpu int) (*Core, error) {
	c := &Core{
		id:       id,
		cpu:      cpu,
		srv:      srv,
		shard:    shardowner.NewShard(id, srv.cfg.Shards, srv.cfg.Databases),
		log:      srv.log.With("core", id),
		events:   make([]unix.EpollEvent, 256),
		outBatch: make([]*router.Batch, srv.cfg.Shards),
		overflow: make([][]*router.Batch, srv.cfg.Shards),
		resume:   make([]*router.Batch, srv.cfg.Shards),

		outReplies: make([]*router.Batch, srv.cfg.Shards),
	}
	c.shard.Slowlog = srv.slowlog
	c.shard.Enc = srv.enc
	router.KeepFunctions(c.shard)
	router.ServeWhileBusy(id, c.serveWhileBusy)
	router.MonitorScripts(id, c)
	c.ps.init(c)
	c.shard.Hub = &c.ps
	c.shard.TrackingMaxKeys = &c.srv.trackMaxKeys
	c.shard.Tracker = c
	c.shard.Publisher = c
	c.stats.errs = map[string]uint64{}
	c.shard.Events = &srv.events
	c.pub.keys = make([]atomic.Int64, srv.cfg.Databases)
	c.pub.expires = make([]atomic.Int64, srv.cfg.Databases)
	c.pub.meanExpire = make([]atomic.Int64, srv.cfg.Databases)
	var err error
	if c.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, err
	}
	if c.evfd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return nil, err
	}
	if err := c.watch(c.evfd, unix.EPOLLIN); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Core) watch(fd int, events uint32) error {
	return unix.EpollCtl(c.epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)})
}

// addListener registers a listening socket with this core's loop.
func (c *Core) addListener(fd int) error {
	c.listen = append(c.listen, fd)
	return c.watch(fd, unix.EPOLLIN)
}

// wakePeer makes core peer leave epoll_wait if it sleeps there. The flag
// is cleared by whoever writes the eventfd, so a peer is woken once however
// many batches reach it while it sleeps.
func (c *Core) wakePeer(peer int) {
	p := c.srv.cores[peer]
	if p.sleeping.Load() == 1 && p.sleeping.CompareAndSwap(1, 0) {
		p.forceWake()
		c.stats.wakeupsSent++
	}
}

func (c *Core) forceWake() {
	one := [8]byte{1}
	unix.Write(c.evfd, one[:])
}

// run is the core's thread: pin, then loop until the server stops and every
// core has drained.
func (c *Core) run() {
	runtime.LockOSThread()
	defer c.srv.wg.Done()
	if c.cpu >= 0 {
		var set unix.CPUSet
		set.Set(c.cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			c.log.Warn("cannot pin core", "cpu", c.cpu, "err", err)
		}
	}
	for {
		if c.srv.stopping.Load() && !c.stopped {
			c.stopAccepting()
		}
		if c.stopped && c.drained() {
			if !c.srv.coreDrained(c) {
				c.turn(10)
				continue
			}
			break
		}
		c.turn(-1)
	}
	c.closeAOF()
	c.closeAll()
}

// rawWaitWindow is how long after its last busy turn a shard keeps waiting
// with the raw epoll_wait (sockets.EpollWait).
const rawWaitWindow = 1000 // ms

// spinAfterCommands is how many commands a turn must run for the core to
// poll, rather than sleep, for the next SpinMicros. Waking a sleeping thread
// costs both sides microseconds of CPU (the client's write does the wake-up),
// and a client that pipelines or many busy clients send again within
// microseconds: polling then saves the client CPU and the request latency. A
// turn of one or two commands is a request-response rhythm, where sleeping
// costs the server less CPU per request than polling.
const spinAfterCommands = 16

// A core's thread that is preempted often shares its CPU with other
// runnable threads: the client beside the server, other shards, other
// processes. Every microsecond it polls is then one they wait, and they are
// what sends the next requests; sleeping at once serves them sooner. So
// once its thread was preempted preemptedPerSec times a second or more, a
// core does not poll for spinPause: the look itself needs polling to be off
// a while, since a core that sleeps between turns is seldom preempted.
const (
	preemptedPerSec = 50
	spinPause       = 1000 // ms
)

// watchPreemption looks at how often the core's thread was preempted since
// the last look, and pauses polling when that was often. It runs on the
// core's own thread.
func (c *Core) watchPreemption(now int64) {
	var ru unix.Rusage
	if c.srv.cfg.SpinContended || c.srv.cfg.SpinMicros == 0 || unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return
	}
	n, ms := ru.Nivcsw-c.preempted, now-c.preemptedAt
	c.preempted, c.preemptedAt = ru.Nivcsw, now
	if preemptedOften(n, ms) && now >= c.spinOffUntil {
		c.spinOffUntil = now + spinPause
		c.spinUntil = 0
		c.stats.spinPauses++
	}
}

// preemptedOften reports whether n involuntary context switches in ms
// milliseconds come to preemptedPerSec a second or more.
func preemptedOften(n, ms int64) bool {
	return ms > 0 && n*1000 >= preemptedPerSec*ms
}

// turn is one pass of the loop; maxWait caps the epoll timeout in ms (-1:
// until the next timer).
func (c *Core) turn(maxWait int) {
	// The last turn ended just now: its reading stands for the clock until
	// epoll_wait returns.
	if c.turnEnd.IsZero() {
		c.turnEnd = time.Now()
	}
	timeout := c.timeout(c.turnEnd)
	if maxWait >= 0 && (timeout < 0 || timeout > maxWait) {
		timeout = maxWait
	}
	if len(c.mon.ends) > 0 || c.evicting {
		// MONITOR lines held back for one turn (deliverMonitorLines), or
		// keys left to evict.
		timeout = 0
	}
	if timeout != 0 {
		if c.spinUntil != 0 && c.turnEnd.UnixNano() < c.spinUntil {
			timeout = 0
			c.stats.spinPolls++
		} else {
			c.spinUntil = 0
			c.sleeping.Store(1)
			if !c.inboundEmpty() || c.kill.Load() || c.unblockReq.Load() || c.srv.stopping.Load() != c.stopped {
				c.sleeping.Store(0)
				timeout = 0
			} else {
				c.stats.sleeps++
			}
		}
	}
	raw := c.shard.Clock.Ms-c.lastBusy < rawWaitWindow
	n, err := sockets.EpollWait(c.epfd, c.events, timeout, raw)
	c.sleeping.Store(0)
	if err != nil && err != unix.EINTR {
		c.log.Error("epoll_wait", "err", err)
	}
	start := time.Now()
	now := start.UnixMilli()
	ran := c.stats.commands
	c.shard.Clock.Ms = now
	c.debugSlept = 0
	c.syncMemory()
	if c.loadingGate {
		c.loadingGate = c.srv.loading.Load()
		c.regate()
	}
	if c.acceptPausedUntil != 0 {
		c.resumeAccept(now)
	}
	busy := n > 0
	for i := 0; i < n; i++ {
		c.event(&c.events[i])
	}
	if c.kill.Load() {
		c.kill.Store(false)
		c.killMarked()
	}
	if c.aofDetach.Load() {
		c.detachAOF()
	}
	if c.id == 0 && c.srv.aofSwitch.Load() {
		c.switchAOF()
	}
	if len(c.reading) > 0 {
		busy = true
		c.readAll()
	}
	if len(c.mon.conns) > 0 {
		c.mon.drainAt = time.Now().UnixMicro()
	}
	if c.drainInbound() {
		busy = true
	}
	if c.unblockReq.Load() {
		c.unblockReq.Store(false)
		c.unblockMarked()
	}
	if len(c.blockTimers) > 0 {
		c.blockTimeouts(now)
	}
	c.serveBlocked()
	c.resumePaused()
	c.holdExpiry()
	c.shard.BroadcastTracked()
	c.publish()
	if len(c.sleepers) > 0 {
		c.wakeSleepers(time.Now().UnixNano())
	}
	if len(c.mon.ends) > 0 {
		c.deliverMonitorLines()
	}
	if len(c.syncHeld) > 0 {
		c.releaseSynced()
	}
	// The turn's records go out before its replies (aof.go).
	c.flushJournal()
	c.flushAll()
	if c.shard.MemLimited() {
		c.publishMemory() // what the turn's writes and deletes left
	}
	end := time.Now()
	if c.expire(start.UnixNano(), end.UnixNano()) {
		end = time.Now()
	}
	if c.loadCh != nil {
		c.loadStep()
		end = time.Now()
	}
	if c.shard.Snap != nil {
		end = time.Now()
		var work time.Duration
		if c.stats.commands != ran {
			work = end.Sub(start)
		}
		c.snapNext, c.snapWaiting = c.snapPacer.Step(c.shard, end, work)
		end = time.Now()
	}
	if len(c.saveWaits) > 0 {
		c.answerSaves()
		c.misconf = c.srv.saver.RefusesWrites()
		c.regate()
	}
	if now >= c.nextTimer {
		c.timers(now)
		end = time.Now()
	}
	c.turnEnd = end
	if busy {
		c.lastBusy = now
		if c.stats.commands-ran >= spinAfterCommands && c.srv.cfg.SpinMicros > 0 && now >= c.spinOffUntil {
			c.spinUntil = end.UnixNano() + int64(c.srv.cfg.SpinMicros)*1000
		}
	}
	if d := uint64(end.Sub(start)); d >= uint64(time.Millisecond) {
		c.stats.slowTurns++
		c.resetMaxima()
		c.stats.longestTurnNs = max(c.stats.longestTurnNs, d)
	}
}

// regate sets gated from the reasons a command may be refused.
func (c *Core) regate() { c.gated = c.loadingGate || c.misconf || c.aofFailed || c.oom }

// resetMaxima forgets the longest turn if a CONFIG RESETSTAT came since it
// was measured.
func (c *Core) resetMaxima() {
	if gen := c.srv.statGen.Load(); gen != c.stats.statGen {
		c.stats.longestTurnNs, c.stats.statGen = 0, gen
	}
}

// timeout is how long epoll_wait may sleep: 0 while work waits.
func (c *Core) timeout(now time.Time) int {
	if len(c.reading) > 0 || len(c.dirty) > 0 || c.overflowing() || c.resuming() || c.loadCh != nil || c.heldUntagged() ||
		(c.shard.Snap != nil && !c.snapWaiting && !c.snapNext.After(now)) {
		return 0
	}
	d := c.nextTimer - now.UnixMilli()
	if c.shard.Snap != nil || len(c.saveWaits) > 0 {
		// The writer's progress wakes nobody, nor the walk's next step.
		d = min(d, 1)
	}
	if d < 0 {
		return 0
	}
	d = min(d, int64(c.expireWait(now.UnixMilli())))
	if p := c.acceptPausedUntil; p != 0 {
		d = max(min(d, p-now.UnixMilli()), 0)
	}
	d = int64(c.blockWait(int(d), now.UnixMilli()))
	d = c.pauseWait(d, now.UnixMilli())
	if len(c.sleepers) > 0 {
		return c.sleepersTimeout(int(d), now.UnixNano())
	}
	return int(d)
}

func (c *Core) event(ev *unix.EpollEvent) {
	fd := ev.Fd
	if int(fd) == c.evfd {
		var buf [8]byte
		if n, _ := sockets.Read(c.evfd, buf[:]); n == len(buf) {
			c.stats.wakeupsRecv++
		}
		return
	}
	var cn *Conn
	if int(fd) < len(c.conns) {
		cn = c.conns[fd]
	}
	if cn == nil {
		c.accept(int(fd))
		return
	}
	if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		cn.hup = true
		if cn.block != nil {
			// Its requests are not read while it is blocked: a client
			// that went is closed now, as Redis frees it.
			c.close(cn)
			return
		}
	}
	c.readiness(cn, ev.Events)
}

// readiness notes what an event says of cn's socket: bytes to read, room
// to write.
func (c *Core) readiness(cn *Conn, events uint32) {
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		cn.drained = false
		if !cn.readable {
			cn.readable = true
			c.reading = append(c.reading, cn)
		}
	}
	if events&unix.EPOLLOUT != 0 && !cn.writable {
		cn.writable = true
		c.markDirty(cn)
	}
}

// accept takes every pending connection of a listener.
func (c *Core) accept(lfd int) {
	for {
		fd, sa, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			switch err {
			case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
				c.pauseAccept(err)
			default:
				c.log.Warn("accept", "err", err)
			}
			return
		}
		if c.stopped {
			unix.Close(fd)
			continue
		}
		if !c.srv.admit() {
			c.stats.rejected++
			msg := "-" + string(resp.ErrMaxClients) + "\r\n"
			unix.Write(fd, []byte(msg))
			unix.Close(fd)
			continue
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		cn := &Conn{fd: fd, core: c, in: make([]byte, 0, inInitial), writable: true, replySize: replyGuess}
		cn.id = c.srv.nextID.Add(1)
		cn.authed = c.srv.requirePass() == ""
		cn.proto = 2
		cn.info.proto.Store(2)
		cn.info.id = cn.id
		cn.info.core = c.id
		cn.info.addr = sockets.AddrString(sa)
		if la, err := unix.Getsockname(fd); err == nil {
			cn.info.laddr = sockets.AddrString(la)
		}
		now := c.shard.Clock.Ms
		cn.info.created = now
		cn.info.lastMs.Store(now)
		if err := c.watch(fd, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET); err != nil {
			c.srv.release()
			unix.Close(fd)
			continue
		}
		if fd >= len(c.conns) {
			c.conns = append(c.conns, make([]*Conn, fd+1-len(c.conns))...)
		}
		c.conns[fd] = cn
		c.srv.register(cn)
		c.stats.conns++
		c.pub.connected.Add(1)
	}
}

// Accept pauses: the listeners are level-triggered, so a connection that
// accept cannot take for want of a descriptor (or of kernel memory) would
// make the loop spin on it. The core stops watching its listeners for
// acceptPause instead; the connections wait in the backlog meanwhile. Redis
// logs each failure; one warning per acceptWarnEvery, with the count of
// failures, says as much without flooding the log.
const (
	acceptPause     = 100 // ms
	acceptWarnEvery = 1000
)

// pauseAccept stops watching the listeners for acceptPause after accept
// failed with err.
func (c *Core) pauseAccept(err error) {
	now := time.Now().UnixMilli()
	if c.acceptPausedUntil == 0 {
		for _, fd := range c.listen {
			unix.EpollCtl(c.epfd, unix.EPOLL_CTL_DEL, fd, nil)
		}
	}
	c.acceptPausedUntil = now + acceptPause
	c.acceptFailures++
	if now-c.acceptWarnedAt >= acceptWarnEvery {
		c.log.Warn("cannot accept clients, pausing accept", "err", err, "failures", c.acceptFailures,
			"maxclients", c.srv.maxClients.Load(), "clients", c.srv.clients.Load())
		c.acceptWarnedAt, c.acceptFailures = now, 0
	}
}

// resumeAccept watches the listeners again once the pause is over.
func (c *Core) resumeAccept(now int64) {
	if now < c.acceptPausedUntil {
		return
	}
	c.acceptPausedUntil = 0
	for _, fd := range c.listen {
		if err := c.watch(fd, unix.EPOLLIN); err != nil {
			c.log.Error("cannot watch a listener again", "err", err)
		}
	}
}

// readAll reads and runs the requests of every connection that has bytes
// waiting, then keeps in the list those that may have more.
func (c *Core) readAll() {
	list := c.reading
	c.reading = c.reading[len(list):]
	exchanged := c.stats.commands
	for _, cn := range list {
		cn.readable = false
		if cn.closed {
			continue
		}
		c.read(cn)
		if c.stats.commands-exchanged >= exchangeEvery && c.srv.cfg.Shards > 1 {
			c.exchange()
			exchanged = c.stats.commands
		}
	}
	// Reuse the array: connections re-added during this turn are at the
	// front of what remains.
	if len(c.reading) == 0 {
		c.reading = list[:0]
	}
}

// exchangeEvery is how many commands a core parses before it hands the
// batches filled so far to their shards and runs what peers sent it, rather
// than at the end of the turn: a turn over many busy connections lasts
// milliseconds, and a request for another shard would otherwise wait for
// the rest of this turn, then the peer's, then this core's next one.
const exchangeEvery = 256

// exchange sends the batches filled so far and runs, or delivers, what
// peers sent.
func (c *Core) exchange() {
	c.publish()
	c.drainInbound()
}

// read does one read on cn and runs every complete request in its buffer.
func (c *Core) read(cn *Conn) {
	if cn.closing || c.stopped {
		return
	}
	if cn.stalled {
		// Back-pressure paused this connection with requests still
		// buffered: run those before reading more.
		cn.stalled = false
		c.parse(cn)
		if cn.stalled || cn.closed {
			return
		}
	}
	if cn.backlogged() {
		cn.stalled = true
		return
	}
	n, free, full, err := c.fill(cn)
	if full {
		c.log.Warn("closing client that reached max query buffer length", "id", cn.id)
		c.close(cn)
		return
	}
	switch {
	case n > 0:
		// A short read drained the socket, and edge-triggered epoll reports
		// the next bytes; a full one may have left some. After a hang-up the
		// next read is the one that returns 0.
		if n == free || cn.hup {
			c.again(cn)
		}
	case n == 0:
		cn.eof = true
	case err == unix.EAGAIN || err == unix.EINTR:
	default:
		c.close(cn)
		return
	}
	c.parse(cn)
	if cn.eof && !cn.closed {
		cn.closing = true
		c.markDirty(cn)
	}
}

// fill does one read on cn into the free end of its input buffer, grown
// first when it is full: n bytes read of free room, and the read's error.
// full: the buffer is at resp.MaxQueryBuffer, nothing was read.
func (c *Core) fill(cn *Conn) (n, free int, full bool, err error) {
	if len(cn.in) == cap(cn.in) {
		if cap(cn.in) >= resp.MaxQueryBuffer {
			return 0, 0, true, nil
		}
		cn.growIn()
	}
	room := cn.in[len(cn.in):cap(cn.in)]
	n, err = sockets.Read(cn.fd, room)
	if n > 0 {
		cn.in = cn.in[:len(cn.in)+n]
		c.stats.netIn += uint64(n)
	}
	return n, len(room), false, err
}

// again keeps cn in the reading list for the next turn.
func (c *Core) again(cn *Conn) {
	if !cn.readable {
		cn.readable = true
		c.reading = append(c.reading, cn)
	}
}

// parseAhead is how many requests parse reads before running them, so that
// the keys of a pipeline can be touched together (see touchKeys).
const parseAhead = 64

// argvKeep is the most arguments a read-ahead entry keeps room for between
// requests; a larger argument vector is left to the collector once its
// request has run.
const argvKeep = 1024

// parsed is one request read ahead of running it.
type parsed struct {
	argv [][]byte
	cmd  *router.Command
	hash uint64 // table hash of the first key, when it is local
	// shard owns the first key, as touchKeys found it; -1 when it did not
	// look (one shard, or a command without a key to route by).
	shard int
	end   int // offset in the input buffer just past the request
	// big and mhash: the first key's big aggregate, when the command
	// looks up a member of it, and the member's hash there (touchKeys).
	big   *shardowner.Table
	mhash uint64
}

// parse runs every complete request in cn's input buffer (parseAll),
// marked as parsing meanwhile: a script one of them runs may answer other
// connections from inside (busy.go), never this one.
func (c *Core) parse(cn *Conn) {
	cn.parsing = true
	c.parseAll(cn)
	cn.parsing = false
}

// parseAll runs every complete request in cn's input buffer. It reads up to
// parseAhead requests, touches the keys the local ones will look up, then
// runs them in order. When back-pressure or a plan stops it halfway, the
// requests not yet run stay in the buffer and are read again later; that is
// why an inline request, which the parser decodes in place, is read and run
// on its own.
func (c *Core) parseAll(cn *Conn) {
	pos := 0
	cn.txnWait = false
outer:
	for pos < len(cn.in) && !cn.closing && !cn.closed {
		if cn.backlogged() {
			cn.stalled = true
			break
		}
		n, err := c.readAhead(cn, pos)
		if n > 1 {
			c.touchKeys(cn, n)
		}
		// Commands run back to back from here: each one's end, read once,
		// is the next one's start, and small ones share readings
		// (router.Group); a home command that does not share closes the
		// group before it (dispatchCmd).
		c.clock = router.Now()
		if n > 0 {
			// Once per batch: what dispatchCmd tests per command.
			c.monitoring = c.srv.monitors.Load() > 0
		}
		for i := 0; i < n; i++ {
			a := &c.ahead[i]
			if cn.barrier != nil && cn.txnsInFlight() >= router.MaxTxns && c.startsTxn(cn, a.cmd, a.argv) {
				// Left in the buffer until one of the transactions in
				// flight has answered.
				cn.req.Reset()
				cn.txnWait = true
				cn.stalled = true
				break outer
			}
			if c.srv.memCfg.Gen.Load() != c.memGen {
				c.syncMemory() // a CONFIG SET just before, in this pipeline
			}
			if len(a.argv) > 0 && c.srv.pauseMode.Load() != pauseNone && c.pauses(cn, a.cmd, a.argv) {
				// Left in the buffer until the pause ends.
				cn.req.Reset()
				cn.stalled = true
				c.holdForPause(cn)
				break outer
			}
			if len(a.argv) > 0 {
				if a.hash != 0 {
					c.hashedKey, c.keyHash = a.argv[a.cmd.FirstKey], a.hash
				}
				if j := c.shard.Journal; j != nil {
					// Recorded as received, the command is this copy.
					j.Receive(cn.in[pos:a.end])
				}
				c.dispatchCmd(cn, a.cmd, a.argv, a.shard)
				c.hashedKey, c.keyHash = nil, 0
				c.serveBlocked()
			}
			cn.requestDone()
			if cap(a.argv) > argvKeep {
				a.argv = nil
			}
			pos = a.end
			if cn.closing || cn.closed {
				break outer
			}
			if i+1 < n && cn.backlogged() {
				// The parser's state is for the request after the last
				// one read ahead, which is no longer the next to parse.
				cn.req.Reset()
				cn.stalled = true
				break outer
			}
		}
		c.clock = c.group.Close(c.shard, c.clock)
		if err != nil {
			cn.errorReply(resp.Error("ERR " + err.Error()))
			cn.closing = true
			break
		}
		if n == 0 {
			break
		}
	}
	c.clock = c.group.Close(c.shard, c.clock)
	if cn.closed {
		return
	}
	rest := copy(cn.in, cn.in[pos:])
	cn.in = cn.in[:rest]
	// A buffer that grew for a large request is not kept once what is left
	// fits the connection's own one.
	if rest <= inInitial/2 && cap(cn.in) > inInitial {
		cn.shrinkIn()
	}
}

// readAhead parses up to parseAhead complete requests from cn.in[pos:] into
// c.ahead and returns how many, with the protocol error that stopped it, if
// any. It stops after a command that may change whether the client is
// authenticated, since that decides the limits the next request is parsed
// with.
func (c *Core) readAhead(cn *Conn, pos int) (int, error) {
	n := 0
	cn.req.Unauthenticated = !cn.authed
	for n < parseAhead && pos < len(cn.in) {
		inline := cn.in[pos] != '*'
		if inline && n > 0 {
			break
		}
		a := &c.ahead[n]
		args, m, err := cn.req.Parse(cn.in[pos:], a.argv[:0])
		a.argv = args
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		pos += m
		a.end = pos
		a.shard = -1
		a.hash = 0
		a.cmd = nil
		if len(args) > 0 {
			a.cmd = c.lookup(args[0])
		}
		n++
		if inline || (a.cmd != nil && a.cmd.Flags&router.FlagNoAuth != 0) {
			break
		}
	}
	return n, nil
}

// lookup is router.Lookup remembering the last name it found, byte for
// byte: a pipeline mostly repeats one command.
func (c *Core) lookup(name []byte) *router.Command {
	if c.lastCmd != nil && string(name) == string(c.lastName[:c.lastNameLen]) {
		return c.lastCmd
	}
	cmd := router.Lookup(name)
	if cmd != nil && len(name) <= len(c.lastName) {
		c.lastNameLen = copy(c.lastName[:], name)
		c.lastCmd = cmd
	}
	return cmd
}

// touchKeys reads, for the requests read ahead whose key this core owns,
// first the index groups and then the entries their lookups will need: the
// loads of one pass do not depend on each other, so their cache misses
// overlap instead of stalling each command in turn. The hashes are computed
// in a pass of their own, so that the loop of loads is short and the CPU
// keeps many of them in flight.
func (c *Core) touchKeys(cn *Conn, n int) {
	t := c.shard.DBs[cn.db]
	shards := c.srv.cfg.Shards
	touched := 0
	var prev []byte
	var prevHash uint64
	for i := 0; i < n; i++ {
		a := &c.ahead[i]
		a.hash = 0
		a.shard = -1
		if a.cmd == nil || a.cmd.Route != router.RouteKey || !a.cmd.HasKeys(len(a.argv)) {
			continue
		}
		key := a.argv[a.cmd.FirstKey]
		if shards > 1 {
			if a.shard = router.ShardOf(key, shards); a.shard != c.id {
				continue
			}
		}
		if prevHash == 0 || !bytes.Equal(key, prev) {
			// A hash of 0 leaves the key untouched and unhinted.
			prev, prevHash = key, t.Hash(key)
		}
		// The same key as the one before (a pipeline of pushes to one
		// list) keeps its hash, for the members' read-ahead.
		a.hash = prevHash
		touched++
	}
	if touched < 2 {
		return
	}
	// A run of one key is touched once.
	var sink, last uint64
	for i := 0; i < n; i++ {
		if h := c.ahead[i].hash; h != 0 && h != last {
			sink += t.TouchBucket(h)
			last = h
		}
	}
	last = 0
	for i := 0; i < n; i++ {
		if h := c.ahead[i].hash; h != 0 && h != last {
			sink += t.TouchEntry(h)
			last = h
		}
	}
	c.sink += sink + c.touchMembers(t, n)
}

// touchMembers does for the members that commands look up in big
// aggregates (Command.Member: SADD, HGET, ZSCORE…) what touchKeys does for
// their keys, once touchKeys has brought the keys' entries in: a pipeline
// of SADDs to one set of 100k members misses the cache on its members,
// not on its key.
func (c *Core) touchMembers(t *shardowner.Table, n int) uint64 {
	if !t.HasBig() {
		return 0 // every aggregate is packed: its members came in with its entry
	}
	members := 0
	var last uint64
	var lastBig *shardowner.Table
	for i := 0; i < n; i++ {
		a := &c.ahead[i]
		if a.hash == 0 || a.cmd.Member == 0 || a.cmd.Member >= len(a.argv) {
			continue
		}
		// A run of one key (touchKeys gave it one hash) is looked up once.
		if a.hash != last {
			last, lastBig = a.hash, t.PeekBig(a.hash, a.argv[a.cmd.FirstKey])
		}
		if a.big = lastBig; a.big != nil {
			a.mhash = a.big.Hash(a.argv[a.cmd.Member])
			members++
		}
	}
	var sink uint64
	for i := 0; i < n && members > 1; i++ {
		if a := &c.ahead[i]; a.big != nil {
			sink += a.big.TouchBucket(a.mhash)
		}
	}
	for i := 0; i < n && members > 0; i++ {
		if a := &c.ahead[i]; a.big != nil {
			if members > 1 {
				sink += a.big.TouchEntry(a.mhash)
			}
			a.big = nil // not kept past this turn
		}
	}
	return sink
}

func (c *Core) markDirty(cn *Conn) {
	if !cn.dirty {
		cn.dirty = true
		c.dirty = append(c.dirty, cn)
	}
}

// flushAll writes the ready replies of every dirty connection, one write
// each.
func (c *Core) flushAll() {
	// Under appendfsync always output waits for the log's syncer (aof.go).
	syncing := c.aofLog != nil && c.aofLog.Fsync() == aof.FsyncAlways
	list := c.dirty
	c.dirty = nil
	for _, cn := range list {
		cn.dirty = false
		if cn.closed {
			continue
		}
		cn.collect()
		held := cn.holdOutput()
		limit := len(cn.out)
		if syncing && !held {
			var wait bool
			if limit, wait = c.syncLimit(cn); wait && !cn.syncHeld {
				cn.syncHeld = true
				c.syncHeld = append(c.syncHeld, cn)
			}
		}
		if !held && !cn.flush(limit) {
			c.close(cn)
			continue
		}
		owed := int64(cn.owed())
		if c.overLimit(cn, owed) {
			c.log.Warn("closing client that exceeded its output buffer limit", "id", cn.id, "bytes", owed)
			c.close(cn)
			continue
		}
		switch {
		case cn.closing && len(cn.slots) == 0 && cn.outPending() == 0:
			c.close(cn)
		case cn.stalled && !cn.paused && !cn.backlogged():
			c.again(cn)
		}
		// More to write, or replies collect left for the next turn. Held
		// output waits for the replies in flight, whose arrival marks the
		// connection again (markWaiting).
		if !cn.closed && !held && !cn.syncHeld && cn.writable && (cn.outPending() > 0 || len(cn.slots) > 0 && cn.slots[0].Filled) {
			c.markDirty(cn)
		}
	}
	if len(c.dirty) == 0 {
		c.dirty = list[:0]
	}
}

// close drops a connection at once.
func (c *Core) close(cn *Conn) {
	if cn.closed {
		return
	}
	cn.closed = true
	if cn.block != nil {
		c.cancelBlock(cn, router.CancelGone)
		c.blockEnded(cn)
	}
	c.discard(cn)
	c.unsubscribeAll(cn)
	c.unmonitor(cn)
	c.untrack(cn, false)
	c.conns[cn.fd] = nil
	unix.Close(cn.fd)
	for _, s := range cn.slots {
		if s.Filled {
			c.FreeSlot(s)
		} else {
			s.Orphan = true
		}
	}
	cn.slots, cn.sent = nil, 0
	c.srv.unregister(cn)
	c.srv.release()
	c.pub.connected.Add(-1)
}

// killMarked closes the connections CLIENT KILL marked, dropping the output
// they have not read.
func (c *Core) killMarked() {
	for _, cn := range c.conns {
		if cn != nil && cn.info.killed.Load() {
			c.close(cn)
		}
	}
}

func (c *Core) stopAccepting() {
	c.stopped = true
	for _, fd := range c.listen {
		unix.Close(fd)
	}
	c.listen = nil
}

// drained reports whether every reply this core owes its clients is written
// (or cannot be) and no batch of its own is still out.
func (c *Core) drained() bool {
	for _, cn := range c.conns {
		if cn != nil && (cn.owesReplies() || (cn.outPending() > 0 && cn.writable)) {
			return false
		}
	}
	for _, b := range c.outBatch {
		if b != nil && b.Len() > 0 {
			return false
		}
	}
	for _, b := range c.outReplies {
		if b != nil {
			return false
		}
	}
	return !c.overflowing() && !c.resuming() && !c.locks.Active()
}

func (c *Core) closeAll() {
	for _, cn := range c.conns {
		if cn != nil {
			c.close(cn)
		}
	}
	unix.Close(c.evfd)
	unix.Close(c.epfd)
}

// timers runs the periodic work: table upkeep (resizes, giving memory back)
// and published statistics. Active expiry runs at the end of every turn.
func (c *Core) timers(now int64) {
	c.nextTimer = now + int64(1000/c.srv.hz.Load())
	c.watchPreemption(now)
	for _, t := range c.shard.DBs {
		t.Tick()
	}
	c.adaptExpire()
	c.misconf = c.srv.saver.RefusesWrites()
	c.regate()
	if c.id == 0 {
		c.savePoints(time.UnixMilli(now))
		if now >= c.aofCheckAt {
			c.aofCheckAt = now + 1000
			c.aofTimer(time.UnixMilli(now))
		}
	}
	c.updateStale()
	c.countClientBuffers()
	c.inst.Sample(now, [instant.Count]uint64{c.stats.commands, c.stats.netIn, c.stats.netOut})
	c.publishStats()
}

func (c *Core) publishStats() {
	p := &c.pub
	p.counters[servercmd.CntCommands].Store(c.stats.commands)
	p.counters[servercmd.CntNetIn].Store(c.stats.netIn)
	p.counters[servercmd.CntNetOut].Store(c.stats.netOut)
	for i, v := range c.stats.hops() {
		p.hops[i].Store(v)
	}
	var expired uint64
	for _, t := range c.shard.DBs {
		expired += t.Expired()
	}
	p.counters[servercmd.CntExpired].Store(expired)
	p.counters[servercmd.CntDirty].Store(c.shard.Dirty)
	p.counters[servercmd.CntExpireNs].Store(c.stats.expireNs)
	p.counters[servercmd.CntExpireCapped].Store(c.stats.expireCapped)
	p.stalePerc.Store(math.Float64bits(c.exp.stale))
	p.counters[servercmd.CntConns].Store(c.stats.conns)
	p.counters[servercmd.CntRejected].Store(c.stats.rejected)
	p.counters[servercmd.CntErrorReplies].Store(c.stats.errorReplies)
	p.instOps.Store(c.inst.Rate(instant.Commands))
	p.instNetIn.Store(c.inst.Rate(instant.NetIn))
	p.instNetOut.Store(c.inst.Rate(instant.NetOut))
	p.counters[servercmd.CntHits].Store(c.shard.Stats.Hits)
	p.counters[servercmd.CntMisses].Store(c.shard.Stats.Misses)
	p.counters[servercmd.CntEvicted].Store(c.shard.Stats.Evicted)
	p.mem.tables.Store(c.shard.MemUsed())
	p.arenaBytes.Store(uint64(c.shard.ArenaBytes()))
	p.offHeapBytes.Store(uint64(c.shard.OffHeapBytes()))
	c.resetMaxima()
	p.counters[servercmd.CntSlowTurns].Store(c.stats.slowTurns)
	p.longestTurnNs.Store(c.stats.longestTurnNs)
	p.statGen.Store(c.stats.statGen)
	c.publishCmdStats()
	for i, t := range c.shard.DBs {
		p.keys[i].Store(int64(t.Len()))
		p.expires[i].Store(int64(t.ExpiresLen()))
		p.meanExpire[i].Store(t.MeanExpire())
	}
}
