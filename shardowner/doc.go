// Package shardowner owns one shard's keyspace: its tables (one per database),
// key expiry, and the command handlers that run on the shard's own thread.
//
// Everything here is touched by exactly one goroutine, the shard's, so nothing
// here locks. Handlers are plain functions of (Ctx, argv): they read and write
// the shard's tables and append their reply through the Ctx's resp.Writer; they
// never see a connection, a socket or another shard.
package shardowner
