package script

// The texts Redis shares with other commands, as scripts meet them.
const (
	ErrOOM        Error = "OOM command not allowed when used memory > 'maxmemory'."
	ErrReadOnly   Error = "READONLY You can't write against a read only replica."
	ErrNoReplicas Error = "NOREPLICAS Not enough good replicas to write."
	ErrMasterDown Error = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	// ErrMisconfRDBWrite refuses a write while RDB saves fail.
	ErrMisconfRDBWrite Error = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
)

// DiskError is why writes are refused for want of persistence.
type DiskError int

// The kinds of DiskError.
const (
	DiskOK  DiskError = iota
	DiskRDB           // the last background save failed (stop-writes-on-bgsave-error)
	DiskAOF           // writing the AOF failed
)

// ServerState is what the server knows of itself that decides whether a
// script, or a command it calls, may run.
type ServerState struct {
	// Cluster is set in cluster mode (refuses no-cluster scripts).
	Cluster bool
	// StaleReplica: a replica whose link to its master is down, with
	// replica-serve-stale-data no.
	StaleReplica bool
	// ReadOnlyReplica: a replica with replica-read-only yes.
	ReadOnlyReplica bool
	// ObeyClient: the caller is the master or the AOF being loaded, whose
	// commands are never refused for the server's state.
	ObeyClient bool
	// Disk and AOFError (strerror of the last AOF write) say why writes
	// are refused for persistence, if they are.
	Disk     DiskError
	AOFError string
	// NoGoodReplicas: min-replicas-to-write is set and not enough replicas
	// are good (only for a server without a master).
	NoGoodReplicas bool
	// OOM: maxmemory is set and the used memory was over it when the
	// script started (Redis's pre_command_oom_state).
	OOM bool
}

// CheckRun applies Redis's checks on a script before it runs
// (scriptPrepareForRun) and returns the error to reply with, or "" to run
// it. ro is set for EVAL_RO and EVALSHA_RO.
func CheckRun(flags Flags, ro bool, s ServerState) Error {
	if flags&FlagEvalCompat != 0 {
		if s.StaleReplica && !s.ObeyClient {
			return ErrMasterDown
		}
		return ""
	}
	if flags&FlagNoCluster != 0 && s.Cluster {
		return ErrNoCluster
	}
	if s.StaleReplica && !s.ObeyClient && flags&FlagAllowStale == 0 {
		return ErrStaleScript
	}
	if flags&FlagNoWrites == 0 {
		if s.ReadOnlyReplica && !s.ObeyClient {
			return ErrReadOnlyRepl
		}
		if s.Disk != DiskOK && !s.ObeyClient {
			if s.Disk == DiskRDB {
				return ErrMisconfRDB
			}
			return ErrMisconfAOF + Error(s.AOFError)
		}
		if ro {
			return ErrROCommand
		}
		if s.NoGoodReplicas {
			return ErrNoReplicas
		}
	}
	if s.OOM && flags&(FlagAllowOOM|FlagNoWrites) == 0 {
		return ErrOOMScript
	}
	return ""
}

// Command is what the host's command table says of a command a script
// calls, for Guard.
type Command struct {
	// Known: the name is a command; ArityOK: argc fits its arity.
	Known, ArityOK bool
	// NoScript: the command may not run from a script (CMD_NOSCRIPT).
	NoScript bool
	// Write and MayReplicate: CMD_WRITE and CMD_MAY_REPLICATE.
	Write, MayReplicate bool
	// DenyOOM: CMD_DENYOOM, refused over maxmemory.
	DenyOOM bool
	// Stale: CMD_STALE, allowed on a stale replica.
	Stale bool
}

// Guard applies Redis's checks on each command a script calls (scriptCall),
// in Redis's order and with its texts, keeping what a run accumulates:
// once the script has written, neither memory nor the replica's state can
// stop it half way. The host makes one per run from the script's flags.
type Guard struct {
	// ReadOnly: EVAL_RO/EVALSHA_RO, or the script declared no-writes.
	ReadOnly bool
	// AllowOOM: the script declared allow-oom.
	AllowOOM bool
	// AllowCrossSlot: the script declared allow-cross-slot-keys, or has no
	// shebang.
	AllowCrossSlot bool
	// wrote is set once a write command ran (SCRIPT_WRITE_DIRTY).
	wrote bool
}

// NewGuard is the Guard of a run of a script with flags, ro for EVAL_RO and
// EVALSHA_RO.
func NewGuard(flags Flags, ro bool) Guard {
	compat := flags&FlagEvalCompat != 0
	return Guard{
		ReadOnly:       ro || !compat && flags&FlagNoWrites != 0,
		AllowOOM:       !compat && flags&FlagAllowOOM != 0,
		AllowCrossSlot: compat || flags&FlagAllowCrossSlot != 0,
	}
}

// Check returns the error to refuse c with, or "" to run it. It does not
// look at keys: cluster and shard checks are the host's, with
// ErrNonLocalKey and ErrCrossSlot (unless AllowCrossSlot), after Check.
// A command Check lets through that writes marks the run as having
// written.
func (g *Guard) Check(c Command, s ServerState) Error {
	if !c.Known {
		return ErrUnknownCommand
	}
	if !c.ArityOK {
		return ErrWrongArity
	}
	if c.NoScript {
		return ErrNotAllowed
	}
	if s.StaleReplica && !c.Stale {
		return ErrStale
	}
	if g.ReadOnly && (c.Write || c.MayReplicate) {
		return ErrWriteReadOnly
	}
	if c.Write && !g.wrote {
		if s.ReadOnlyReplica && !s.ObeyClient {
			return ErrReadOnly
		}
		switch s.Disk {
		case DiskRDB:
			return ErrMisconfRDBWrite
		case DiskAOF:
			return "MISCONF Errors writing to the AOF file: " + Error(s.AOFError)
		}
		if s.NoGoodReplicas {
			return ErrNoReplicas
		}
	}
	if !g.AllowOOM && s.OOM && !s.ObeyClient && !g.wrote && c.DenyOOM {
		return ErrOOM
	}
	if c.Write {
		g.wrote = true
	}
	return ""
}

// Wrote reports whether a write command has run in this run: such a script
// cannot be killed (SCRIPT KILL answers UNKILLABLE).
func (g *Guard) Wrote() bool { return g.wrote }
