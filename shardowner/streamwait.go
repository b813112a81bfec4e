package shardowner

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// A blocked XREAD or XREADGROUP over streams of several shards waits on
// each shard through a wake-only registration (router's
// corekv.bwaitstream); these answer what such a registration needs to
// know of a stream there.

// StreamLastID is the last ID of key in database db of sh, what "$"
// stands for in XREAD: 0-0 when key holds no stream.
func StreamLastID(sh *Shard, db int, key []byte) streamnode.ID {
	v, found := sh.DBs[db].Get(key)
	if !found || v.Kind != KindStream {
		return streamnode.ID{}
	}
	c := Ctx{Shard: sh, DB: db}
	return c.stream(v.Big).lastID()
}

// StreamWaitReady reports whether a read waiting on key in database db of
// sh may go on: for XREAD (group nil) when key holds entries after id; for
// XREADGROUP when it holds entries not yet delivered to group, or with err,
// the reply that ends the wait, when the stream or the group is gone.
func StreamWaitReady(sh *Shard, db int, key []byte, id streamnode.ID, group []byte) (ready bool, err resp.Error) {
	v, found := sh.DBs[db].Get(key)
	stream := found && v.Kind == KindStream
	if group == nil {
		if !stream {
			return false, ""
		}
		c := Ctx{Shard: sh, DB: db}
		return c.stream(v.Big).lastLive().Compare(id) > 0, ""
	}
	if !stream {
		return true, errStreamGone
	}
	c := Ctx{Shard: sh, DB: db}
	s := c.stream(v.Big)
	g, ok := s.group(group)
	if !ok {
		return true, errGroupGone
	}
	return s.lastID().Compare(g.lastID()) > 0, ""
}
