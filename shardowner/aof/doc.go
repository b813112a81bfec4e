// Package aof owns the append-only file: Redis 7's multi-part layout in a
// directory (a manifest naming a base snapshot and incremental files of
// commands), one incremental file per shard written from the shard's
// change journal with group commit (Log, Logs), and reading those files
// back (Replay, Parts).
//
// A shard's incremental file is its journal stream as it is: RESP
// commands in their replayable form, SELECT where the database changes,
// and '#' annotation lines (a cross-shard transaction's part marks) that
// Redis's loader and redis-check-aof skip. The manifest tags each of them
// with its shard ("shard 0/2"), a key Redis's parser ignores, so that a
// corekv with as many shards replays every file on its own shard, all at
// once.
package aof
