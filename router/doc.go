// Package router decides where a command runs and carries it there.
//
// It owns the command table (name, arity, flags, key positions, handler) that
// drives lookup, routing and the COMMAND replies; the key → shard function;
// the single-producer single-consumer rings between every ordered pair of
// cores; the batches that travel on them; the reply slots with the rules
// that combine the per-shard parts of a multi-shard command into one reply;
// and transactions: the object for a command in flight that must be atomic
// over shards (Txn), its uses (a split command, EXEC's block: ExecTxn) and
// each shard's key locks (Locks). Run is the one function through which
// every command runs on its shard: it admits the command past the locks,
// calls it through Call (or with a Group's shared clock readings for small
// commands run back to back), which is where its run is accounted (command
// statistics, latency, slow log) and journaled, parks it when it blocks,
// and routes its reply.
//
// Invariants that are easy to break:
//   - A Batch is written only by the core that holds it: the sender fills it,
//     publishes it on a ring and does not touch it again until it comes back.
//   - A Slot belongs to the core of the connection that waits for it. Another
//     core may carry a *Slot in a batch but never reads or writes through it.
package router
