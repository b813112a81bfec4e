package servercmd

import (
	"errors"
	"strconv"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Time is TIME: the server's clock, seconds and microseconds.
func Time(c Core, cn Conn, argv [][]byte) {
	now := time.Now()
	w := cn.Begin()
	w.Array(2)
	w.BulkString(strconv.FormatInt(now.Unix(), 10))
	w.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
	cn.End()
}

// LastSave is LASTSAVE: when the last save succeeded (the server's start
// before any).
func LastSave(c Core, cn Conn, argv [][]byte) {
	w := cn.Begin()
	w.Int(c.Saver().Status().LastSave.Unix())
	cn.End()
}

// Modes of a save, for Core.Save.
const (
	SaveBackground = "bg" // BGSAVE: answered once every shard is cut
	SaveForeground = "fg" // SAVE: answered once the file is in place
)

// Redis's replies to a save that cannot start.
const (
	errBgsaveInProgress resp.Error = "ERR Background save already in progress"
	errSaveFailed       resp.Error = "ERR Background save failed"
	// errBgsaveBehindRewrite is Redis's reply while its AOF child runs.
	errBgsaveBehindRewrite resp.Error = "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
)

// Save is SAVE: the dataset is written, and then the reply comes. Unlike
// Redis's, the server goes on serving other clients meanwhile; the file
// holds the dataset as it was when SAVE ran.
func Save(c Core, cn Conn, argv [][]byte) {
	if err := c.Save(cn, SaveForeground); err != nil {
		if errors.Is(err, snapshot.ErrInProgress) {
			cn.Error(errBgsaveInProgress)
			return
		}
		cn.Error(errSaveFailed)
	}
}

// BgSave is BGSAVE [SCHEDULE], answered once every shard is cut. While a
// save runs it is refused, with or without SCHEDULE, as Redis refuses it
// while its RDB child runs; while an AOF rewrite runs, BGSAVE SCHEDULE is
// answered "scheduled" and the save starts once the rewrite has ended.
func BgSave(c Core, cn Conn, argv [][]byte) {
	schedule := false
	if len(argv) > 2 || (len(argv) == 2 && !resp.EqualFold(argv[1], "schedule")) {
		cn.Error(resp.ErrSyntax)
		return
	}
	if len(argv) == 2 {
		schedule = true
	}
	if cn.InExec() {
		// EXEC cannot wait for the other cores' cut: the save runs right
		// after EXEC, as a scheduled one.
		c.Saver().Schedule()
		w := cn.Begin()
		w.Simple("Background saving scheduled")
		cn.End()
		return
	}
	rewriting := c.Saver().Rewriting()
	err := c.Save(cn, SaveBackground)
	switch {
	case err == nil:
	case errors.Is(err, snapshot.ErrInProgress) && rewriting && !schedule:
		// Redis's words when its AOF child runs; SCHEDULE waits for it.
		cn.Error(errBgsaveBehindRewrite)
	case errors.Is(err, snapshot.ErrInProgress) && rewriting:
		c.Saver().Schedule()
		w := cn.Begin()
		w.Simple("Background saving scheduled")
		cn.End()
	case errors.Is(err, snapshot.ErrInProgress):
		cn.Error(errBgsaveInProgress)
	default:
		cn.Error(errSaveFailed)
	}
}

// ErrRewriteInProgress refuses BGREWRITEAOF while a rewrite runs.
var ErrRewriteInProgress = errors.New("Background append only file rewriting already in progress")

// BgRewriteAOF is BGREWRITEAOF: a new base from a snapshot and new
// incremental files from its cut, answered once every shard is cut; behind
// a running save, or inside EXEC, it is scheduled.
func BgRewriteAOF(c Core, cn Conn, argv [][]byte) {
	scheduled, err := c.RewriteAOF(cn)
	switch {
	case errors.Is(err, ErrRewriteInProgress):
		cn.Error(resp.Error("ERR " + err.Error()))
	case err != nil:
		cn.Error(resp.Error("ERR Can't execute an AOF background rewriting. Please check the server logs for more information."))
	case scheduled:
		w := cn.Begin()
		w.Simple("Background append only file rewriting scheduled")
		cn.End()
	}
}

// Shutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: with SAVE, or
// with a save point and not NOSAVE, the dataset is saved once the cores
// have stopped. NOW and FORCE change nothing: there are no replicas to
// wait for. While a script is busy only NOSAVE is taken, and it stops the
// script, as Redis does.
func Shutdown(c Core, cn Conn, argv [][]byte) {
	var save *bool
	for _, a := range argv[1:] {
		switch {
		case resp.EqualFold(a, "nosave"), resp.EqualFold(a, "save"):
			if save != nil {
				cn.Error(resp.ErrSyntax)
				return
			}
			b := resp.EqualFold(a, "save")
			save = &b
		case resp.EqualFold(a, "now"), resp.EqualFold(a, "force"):
		case resp.EqualFold(a, "abort"):
			cn.Error(resp.Error("ERR No shutdown in progress."))
			return
		default:
			cn.Error(resp.ErrSyntax)
			return
		}
	}
	nosave := save != nil && !*save
	if e := router.AnyBusyReply(); e != "" {
		if !nosave {
			cn.Error(e)
			return
		}
		router.StopBusyScripts()
	}
	c.Shutdown(save)
	// Like Redis, a successful SHUTDOWN sends no reply: the connection
	// closes when the server stops.
}
