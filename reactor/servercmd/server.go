package servercmd

import (
	"strconv"
	"time"

	"github.com/corekv/corekv/resp"
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

// LastSave is LASTSAVE: the server's start, as nothing has been saved
// since.
func LastSave(c Core, cn Conn, argv [][]byte) {
	w := cn.Begin()
	w.Int(c.Server().Start.Unix())
	cn.End()
}

// Shutdown is SHUTDOWN. Its options are accepted and change nothing:
// there is nothing to save.
func Shutdown(c Core, cn Conn, argv [][]byte) {
	for _, a := range argv[1:] {
		switch {
		case resp.EqualFold(a, "nosave"), resp.EqualFold(a, "save"), resp.EqualFold(a, "now"), resp.EqualFold(a, "force"):
		case resp.EqualFold(a, "abort"):
			cn.Error(resp.Error("ERR No shutdown in progress."))
			return
		default:
			cn.Error(resp.ErrSyntax)
			return
		}
	}
	c.Shutdown()
	// Like Redis, a successful SHUTDOWN sends no reply: the connection
	// closes when the server stops.
}
