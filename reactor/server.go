package reactor

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/reactor/sockets"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/journal"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Version is corekv's version; RedisVersion is the Redis version whose
// behaviour it follows, reported where clients look for Redis's.
const (
	Version      = "0.1.0"
	RedisVersion = settings.RedisVersion
)

// Config is what a Server starts with: every setting of the one table
// (settings.Table).
type Config = settings.Config

// Defaults returns the configuration corekv starts with when nothing is
// given.
func Defaults() Config { return settings.Defaults() }

// ringSize is the capacity of each ring, in batches. A core sends at most one
// batch per peer per turn, plus the replies to what it received, so the rings
// rarely hold more than a few.
const ringSize = 1024

// Server is the whole process: the cores, the rings between them, and the
// few settings and counters every core reads.
type Server struct {
	cfg   Config
	log   *slog.Logger
	cores []*Core
	mesh  *router.Mesh
	wg    sync.WaitGroup
	start time.Time
	port  int
	// replID is the replication ID INFO shows: a server without replicas
	// still has one, as Redis makes one at start.
	replID string

	stopping     atomic.Bool
	drainedCores atomic.Int32
	stopOnce     sync.Once
	done         chan struct{} // closed once stopped, the save at shutdown done
	coresDone    chan struct{} // closed once every core has stopped
	// ShutdownRequested is closed when a client sends SHUTDOWN.
	ShutdownRequested chan struct{}
	shutdownOnce      sync.Once

	nextID  atomic.Int64
	clients atomic.Int64
	blocked atomic.Int64 // clients with a blocking command in flight
	// tracking counts the connections with CLIENT TRACKING on; trackers
	// maps each one's ID to its core (tracking.go).
	tracking     atomic.Int64
	trackers     sync.Map
	trackMaxKeys atomic.Int64 // tracking-table-max-keys
	// pauseMode and pauseEnd are CLIENT PAUSE's (pause.go).
	pauseMode    atomic.Int32
	pauseEnd     atomic.Int64
	monitors     atomic.Int32 // monitoring connections on every core
	maxClients   atomic.Int64
	pass         atomic.Pointer[string]
	outHard      atomic.Int64
	activeExpire atomic.Bool
	hz           atomic.Int32  // timer runs per second, 1 to 500
	expireEffort atomic.Int32  // active-expire-effort, 1 to 10
	memoryPeak   atomic.Uint64 // the highest used_memory INFO has reported
	statGen      atomic.Uint64 // CONFIG RESETSTAT count, for maxima the cores reset

	mu       sync.Mutex // guards registry, the cores' stats bases and config values without atomics
	registry map[int64]*Conn
	// infoReqs are the INFO requests waiting for the cores' figures,
	// under the numbers infoSeq gave them.
	infoReqs map[uint64]*servercmd.Request
	infoSeq  uint64
	// conf is the configuration as CONFIG GET shows it and CONFIG SET
	// changes it; the cores read cfg, which holds the settings that do not
	// change, and the atomics conf applies the others to.
	conf *settings.Store

	slowlog *shardowner.SlowlogConfig  // shared by every core's shard
	enc     *shardowner.EncodingConfig // shared by every core's shard
	memCfg  *shardowner.MemoryConfig   // maxmemory and eviction, read by every shard
	// memStartup is the process's memory before any key (memory.go).
	memStartup int64
	ps         pubsubDir               // every core's subscriptions, for PUBSUB and INFO
	events     shardowner.NotifyConfig // notify-keyspace-events, read by every shard
	// journal takes the shards' change journals; nil: nobody does, and the
	// shards record nothing.
	journal *journal.FileSink
	// aofPolicy is the append-only file's settings; aof its directory
	// while it is on (aof.go), nil otherwise.
	aofPolicy aof.Policy
	aof       atomic.Pointer[aofFiles]
	aofSwitch atomic.Bool             // CONFIG SET changed appendonly: core 0 switches (switchAOF)
	aofStamps atomic.Bool             // aof-timestamp-enabled
	offDir    atomic.Pointer[aof.Dir] // the directory BGREWRITEAOF writes with the file off
	// saver is the snapshot state (persist.go); shutdownSave says whether
	// the server saves once its cores stop (nil: as the save points say).
	saver        *snapshot.Saver
	shutdownSave atomic.Pointer[bool]
	// load is the snapshot file's load at start (nil: none); loading is
	// set until it is done, and the cores answer -LOADING meanwhile.
	load         *datasetLoad
	loading      atomic.Bool
	keyLoadDelay atomic.Int64 // key-load-delay, µs per key loaded
}

// New prepares a server: it opens every core's listeners (so that a bad
// address fails here, before any thread starts) but runs nothing.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if cfg.Shards < 1 {
		return nil, fmt.Errorf("shards must be at least 1")
	}
	if cfg.Databases < 1 {
		return nil, fmt.Errorf("databases must be at least 1")
	}
	if err := fitMaxClients(&cfg, log); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:               cfg,
		log:               log,
		start:             time.Now(),
		replID:            newReplID(),
		done:              make(chan struct{}),
		coresDone:         make(chan struct{}),
		ShutdownRequested: make(chan struct{}),
		registry:          make(map[int64]*Conn),
		infoReqs:          make(map[uint64]*servercmd.Request),
	}
	s.ps.init()
	s.activeExpire.Store(true)
	s.slowlog = shardowner.NewSlowlogConfig()
	s.enc = shardowner.NewEncodingConfig()
	s.memCfg = shardowner.NewMemoryConfig()
	s.slowlog.Client = s.clientOf
	s.saver = snapshot.NewSaver(s.start, s.wakeCores)
	s.conf = settings.NewStore(&cfg, settings.Live{
		Persist:         &s.saver.Policy,
		AOF:             &s.aofPolicy,
		KeyLoadDelay:    &s.keyLoadDelay,
		ScriptBusyAfter: &router.ScriptBusyAfter,
		MaxClients:      &s.maxClients,
		FitClients: func(n int64) int64 {
			fit, _ := sockets.FitFDLimit(n, reservedFDs(&s.cfg))
			return fit
		},
		Pass:         &s.pass,
		OutputHard:   &s.outHard,
		PubsubLimits: s.ps.setLimits,
		Hz:           &s.hz,
		ExpireEffort: &s.expireEffort,
		Slowlog:      s.slowlog,
		Enc:          s.enc,
		Events:       &s.events,
		Memory:       s.memCfg,

		TrackingMaxKeys: &s.trackMaxKeys,
	})
	s.mesh = router.NewMesh(cfg.Shards, ringSize)
	router.WatchScripts(cfg.Shards)
	port := cfg.Port
	usable := make([]bool, len(cfg.Bind)) // the addresses the first core could listen on
	for i := 0; i < cfg.Shards; i++ {
		cpu := -1
		if len(cfg.CPUs) > 0 {
			cpu = cfg.CPUs[i%len(cfg.CPUs)]
		}
		c, err := newCore(s, i, cpu)
		if err != nil {
			s.closeListeners()
			return nil, err
		}
		s.cores = append(s.cores, c)
		opened := 0
		var lastErr error
		for k, addr := range cfg.Bind {
			if i > 0 && !usable[k] {
				continue
			}
			fd, bound, err := sockets.Listen(addr, port, i == 0)
			if err != nil {
				lastErr = err
				if i == 0 {
					log.Warn("cannot listen", "addr", addr, "err", err)
				}
				continue
			}
			// Port 0 asks the kernel for a free port; every other
			// listener then shares the one it picked.
			port = bound
			usable[k] = true
			if err := c.addListener(fd); err != nil {
				s.closeListeners()
				return nil, err
			}
			opened++
		}
		if opened == 0 {
			s.closeListeners()
			return nil, fmt.Errorf("no address to listen on: %v", lastErr)
		}
	}
	s.port = port
	s.measureStartup()
	s.initSaver()
	open := s.openDataset
	if cfg.AppendOnly {
		open = s.openAOF
	}
	if err := open(); err != nil {
		s.closeListeners()
		return nil, err
	}
	s.conf.Change(func(_, c *settings.Config, _ *settings.Live) ([]*settings.Setting, bool) {
		c.Port = port
		return nil, false
	})
	s.watchAOFPolicy()
	if cfg.JournalDir != "" && s.aof.Load() == nil {
		sink, err := journal.OpenFileSink(cfg.JournalDir, cfg.Shards)
		if err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("journal: %w", err)
		}
		s.journal = sink
		for _, c := range s.cores {
			c.shard.Journal = newJournal(c)
		}
	}
	return s, nil
}

func (s *Server) closeListeners() {
	for _, c := range s.cores {
		c.stopAccepting()
	}
}

// SetLogLevel names the log level CONFIG SET loglevel changes.
func (s *Server) SetLogLevel(v *slog.LevelVar) { s.conf.SetLogLevel(v) }

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Start runs every core on its own locked, pinned thread.
func (s *Server) Start() {
	if s.load != nil {
		s.startLoad()
	}
	for _, c := range s.cores {
		s.wg.Add(1)
		go c.run()
	}
	go func() {
		s.wg.Wait()
		close(s.coresDone)
		if s.savesAtShutdown() {
			s.log.Info("saving the final RDB snapshot before exiting")
			if err := s.saveAtShutdown(); err != nil {
				s.log.Error("error trying to save the DB", "err", err)
			} else {
				s.log.Info("DB saved on disk")
			}
		}
		if s.journal != nil {
			if err := s.journal.Close(); err != nil {
				s.log.Error("journal", "err", err)
			}
		}
		close(s.done)
	}()
}

// Stop stops accepting and reading, lets every core finish the replies in
// flight, and returns when all cores have closed their connections or the
// timeout has passed.
func (s *Server) Stop(timeout time.Duration) {
	s.stopOnce.Do(func() {
		s.stopping.Store(true)
		for _, c := range s.cores {
			c.forceWake()
		}
	})
	select {
	case <-s.coresDone:
		// The cores have stopped: the save at shutdown, if any, runs to
		// its end.
		<-s.done
	case <-time.After(timeout):
		s.log.Warn("shutdown timed out with replies still in flight")
	}
}

// coreDrained records that c has nothing left in flight and reports whether
// every core has; a drained core keeps serving its rings until then, since
// its peers may still send it requests of their clients.
func (s *Server) coreDrained(c *Core) bool {
	if !c.stats.drainCounted {
		c.stats.drainCounted = true
		s.drainedCores.Add(1)
	}
	return int(s.drainedCores.Load()) == len(s.cores)
}

// requestShutdown is SHUTDOWN's effect: the process's main goroutine stops
// the server.
func (s *Server) requestShutdown() {
	s.shutdownOnce.Do(func() { close(s.ShutdownRequested) })
}

// minReservedFDs is what Redis keeps of the open file limit for other
// things than clients.
const minReservedFDs = 32

// reservedFDs is how much of the open file limit is not for clients: Redis's
// reserve plus each core's epoll instance, eventfd and listeners.
func reservedFDs(cfg *Config) int64 {
	return minReservedFDs + int64(cfg.Shards*(2+len(cfg.Bind)))
}

// fitMaxClients lowers cfg.MaxClients to what the open file limit can hold
// once sockets.FitFDLimit has raised it as far as it goes, with a warning, as Redis
// does at start.
func fitMaxClients(cfg *Config, log *slog.Logger) error {
	want := int64(cfg.MaxClients)
	reserved := reservedFDs(cfg)
	n, limit := sockets.FitFDLimit(want, reserved)
	if n >= want {
		return nil
	}
	if n < 1 {
		return fmt.Errorf("the open file limit (ulimit -n) of %d is not enough to start: it needs at least %d", limit, reserved+1)
	}
	log.Warn("maxclients reduced to fit the open file limit; increase 'ulimit -n' for more",
		"requested", want, "maxclients", n, "needs", want+reserved, "nofile", limit)
	cfg.MaxClients = int(n)
	return nil
}

// admit counts a new client, refusing it beyond maxclients.
func (s *Server) admit() bool {
	if s.clients.Add(1) > s.maxClients.Load() {
		s.clients.Add(-1)
		return false
	}
	return true
}

func (s *Server) release() { s.clients.Add(-1) }

func (s *Server) requirePass() string { return *s.pass.Load() }

// outputLimit is the most output a client may have waiting before it is
// closed.
func (s *Server) outputLimit() int64 {
	limit := s.outHard.Load()
	if safety := s.cfg.OutputSafetyCap; safety > 0 && (limit <= 0 || limit > safety) {
		limit = safety
	}
	return limit
}

func (s *Server) register(cn *Conn) {
	s.mu.Lock()
	s.registry[cn.id] = cn
	s.mu.Unlock()
}

// clientAddr is the address of the client id, "" when it is gone.
func (s *Server) clientAddr(id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cn := s.registry[id]; cn != nil {
		return cn.info.addr
	}
	return ""
}

func (s *Server) unregister(cn *Conn) {
	s.mu.Lock()
	delete(s.registry, cn.id)
	s.mu.Unlock()
}

// connections returns the registered connections, ordered by id.
func (s *Server) connections() []*Conn {
	s.mu.Lock()
	out := make([]*Conn, 0, len(s.registry))
	for _, cn := range s.registry {
		out = append(out, cn)
	}
	s.mu.Unlock()
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// findConn returns the live connection with that id from conns, which is
// ordered by id, or nil.
func findConn(conns []*Conn, id int64) *Conn {
	i := sort.Search(len(conns), func(i int) bool { return conns[i].id >= id })
	if i < len(conns) && conns[i].id == id && !conns[i].info.killed.Load() {
		return conns[i]
	}
	return nil
}

// newReplID returns 40 random hex digits, the form of Redis's replication IDs.
func newReplID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
