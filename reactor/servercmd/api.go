// Package servercmd owns the server commands: INFO, CONFIG, CLIENT,
// COMMAND, LATENCY, DEBUG (but for the sleep itself), PUBSUB, TIME,
// SAVE, BGSAVE, LASTSAVE and SHUTDOWN, the connection commands that read the server's
// settings (AUTH, HELLO), and the statistics and client listings they show. They run on the client's home core, which
// hands them the connection and itself through the small interfaces below;
// the loop, the connections, their buffers and reply slots, and the rings
// stay in reactor, which imports this package and never the other way.
package servercmd

import (
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Conn is what a server command needs of the connection that sent it.
type Conn interface {
	Listed
	// Begin returns the writer for the command's reply, End commits it.
	Begin() *resp.Writer
	End()
	OK()
	Error(e resp.Error)
	// Help answers lines as a HELP subcommand does.
	Help(lines []string)
	// InExec reports whether the command runs inside EXEC, whose reply
	// cannot wait for other cores.
	InExec() bool
	SetName(name []byte)
	SetLib(name, ver *string)
	SetNoEvict(on bool)
	SetNoTouch(on bool)
	ReplyMode() int
	SetReplyMode(mode int)
	// CloseAfterReply closes the connection once its replies are written.
	CloseAfterReply()
	ID() int64
	// Authed reports whether the connection has authenticated (or needs
	// not); SetAuthed says it has.
	Authed() bool
	SetAuthed()
	// Proto is the RESP version of the connection's replies; SetProto
	// changes it.
	Proto() int
	SetProto(proto int)
	// Tracking is the connection's CLIENT TRACKING state; SetTracking
	// turns it on with t's options (t.On), BCAST prefixes adding to those
	// it has, or off, and reports whether it answered (it then answers
	// once every shard has the BCAST prefixes); SetCaching answers CLIENT
	// CACHING for the next command.
	Tracking() Tracking
	SetTracking(t Tracking) (answered bool)
	SetCaching(c int8)
}

// Listed is a connection as CLIENT LIST and KILL see it from any core.
type Listed interface {
	ClientFields() ClientFields
}

// ClientFields are what CLIENT LIST shows of a connection, read at one
// moment.
type ClientFields struct {
	ID                    int64
	Addr, LAddr           string
	FD                    int
	Name, LibName, LibVer string
	LastCmd               string
	Created, LastMs       int64 // Unix ms
	DB, Proto             int32
	Subs, PSubs, SSubs    int32
	Blocked, Killed       bool
	Monitor               bool // in monitor mode (flag O)
	// Tracking flags t, R and B; Redir is the tracking redirection, -1
	// when it does not track.
	Tracking, TrackingBroken, TrackingBCast bool
	Redir                                   int64
}

// Reply modes CLIENT REPLY sets.
const (
	ReplyOn = iota
	ReplyOff
	// ReplySkipNext: CLIENT REPLY SKIP is the request running; the next
	// request's reply is dropped.
	ReplySkipNext
	// ReplySkip: this request's reply is dropped.
	ReplySkip
)

// Core is what a server command needs of the core it runs on, and through
// it of the server.
type Core interface {
	// Gather sends r to every shard for cn, behind cn's earlier commands;
	// once all have taken their figures, Request.Write answers.
	Gather(cn Conn, r *Request)
	// Figures publishes this core's figures and returns what every core
	// published last, for a command inside EXEC, which cannot wait.
	Figures(parts Parts) []Figures
	// ConfigResetStat is CONFIG RESETSTAT for cn.
	ConfigResetStat(cn Conn)
	Server() ServerInfo
	Settings() *settings.Store
	// PubSub is the server's pub/sub directory.
	PubSub() Directory
	// Clients returns every registered connection, ordered by ID.
	Clients() []Listed
	// Kill closes victim for CLIENT KILL sent by cn.
	Kill(cn Conn, victim Listed)
	// Unblock is CLIENT UNBLOCK.
	Unblock(cn Conn, argv [][]byte)
	// ClientExists reports whether a connection has that ID.
	ClientExists(id int64) bool
	// Pause holds back, until endMs, every client's commands, or with
	// writes only those that may write (CLIENT PAUSE); Unpause ends it.
	Pause(writes bool, endMs int64)
	Unpause()
	// NowMs is the core's clock, in Unix ms.
	NowMs() int64
	// Own is the core's own shard, which the core's thread owns.
	Own() *shardowner.Shard
	// CheckPass answers whether user and pass authenticate the default
	// user (user nil: AUTH with a password alone), and the error to send
	// when they do not.
	CheckPass(user, pass []byte) resp.Error
	// Shutdown stops the server; save says whether it saves the dataset
	// first (nil: as the save points say).
	Shutdown(save *bool)
	// Save cuts every shard for a new snapshot for cn, answered as mode
	// says (SaveBackground, SaveForeground).
	Save(cn Conn, mode string) error
	// RewriteAOF starts a rewrite of the append-only file: started, or
	// scheduled behind the running save.
	RewriteAOF(cn Conn) (scheduled bool, err error)
	// DebugDigest is DEBUG DIGEST (no keys) and DIGEST-VALUE.
	DebugDigest(cn Conn, keys [][]byte)
	// DebugObject is DEBUG OBJECT, answered by the key's shard.
	DebugObject(cn Conn, key []byte)
	// DebugReload is DEBUG RELOAD with its flags (nosave, noflush, merge).
	DebugReload(cn Conn, flags []string) error
	// Saver is the server's snapshot state.
	Saver() *snapshot.Saver
	// DebugSleep is DEBUG SLEEP, which the loop does.
	DebugSleep(cn Conn, secs float64)
	SetActiveExpire(on bool)
}

// ServerInfo are the server-wide figures INFO shows beside the cores'.
type ServerInfo struct {
	Version                 string
	Start                   time.Time
	Port, Shards, Databases int
	Hz                      int32
	Clients, MaxClients     int64
	Blocked                 int64
	// TrackingClients are the connections with CLIENT TRACKING on;
	// TrackingKeys and TrackingItems the keys the shards track for them
	// and their registrations.
	TrackingClients, TrackingKeys, TrackingItems int64
	// TrackingPrefixes are the BCAST prefixes, which every shard holds.
	TrackingPrefixes            int64
	ReplID                      string
	Channels, Patterns, SShards int
	// CoreCPUs is each core's CPU, -1 for none.
	CoreCPUs []int
	// StatGen counts CONFIG RESETSTATs, for the maxima cores reset.
	StatGen uint64
	// MemoryPeak is the highest used_memory INFO has shown.
	MemoryPeak *atomic.Uint64
	// Percentiles is latency-tracking-info-percentiles.
	Percentiles []float64
	// Persist is the snapshots' state; AOF the append-only file's.
	Persist snapshot.Status
	AOF     aof.Status
	Memory  MemoryInfo
	// Libraries and Functions are the function libraries loaded and the
	// functions they registered; FunctionBytes their code's and names'
	// bytes.
	Libraries, Functions, FunctionBytes int
}

// MemoryInfo is the server's memory as maxmemory counts it: Used is
// Tables + Clients + Startup.
type MemoryInfo struct {
	Used, Tables, Clients, Startup int64
	MaxMemory                      int64
	Policy                         string
}

// errClientType is CLIENT LIST's and CLIENT KILL's reply to a TYPE they do
// not know.
func errClientType(typ []byte) resp.Error {
	return resp.Error("ERR Unknown client type '" + string(typ) + "'")
}

// Redacted stands in the slow log for a password or other secret argument,
// as in Redis.
var Redacted = []byte("(redacted)")

// Connection command errors, with Redis 7's wording.
const (
	ErrClientName   resp.Error = "ERR Client names cannot contain spaces, newlines or special characters."
	errNoSuchClient resp.Error = "ERR No such client"
)

// ValidClientName follows Redis: printable ASCII without spaces.
func ValidClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}
