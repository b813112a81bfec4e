package servercmd

import (
	"strconv"
	"time"
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

// LastSave is LASTSAVE. Nothing is saved yet: the dataset is as old as
// the server.
func LastSave(c Core, cn Conn, argv [][]byte) {
	w := cn.Begin()
	w.Int(c.Server().Start.Unix())
	cn.End()
}
