// Package reactor owns the cores: one goroutine per shard, locked to its OS
// thread (and pinned to one CPU when Config.CPUs says so), running an epoll
// loop over its own SO_REUSEPORT listener, its connections and an eventfd for
// wakeups.
//
// A core reads requests into each connection's input buffer, parses them in
// place, runs commands whose keys it owns, sends the others over the router's
// rings to the owning core, answers peers' requests on its own shard (also
// between connections of a long turn), and writes every connection's ready
// replies with one write per loop turn, holding a pipeline's first replies
// back while the rest are due from peers. While its shard runs a script
// past busy-reply-threshold, the core answers its other connections from
// inside the script, with a loop cut down to what cannot reach into it
// (busy.go).
//
// The connection commands (SELECT, RESET, MULTI's queueing, WATCH,
// SUBSCRIBE, …) run here, EXEC's body in router (ExecTxn); the server
// commands (INFO, CONFIG, CLIENT, COMMAND, LATENCY, DEBUG, PUBSUB, TIME,
// LASTSAVE, SHUTDOWN) and AUTH and HELLO are in reactor/servercmd, which
// sees a core and a connection only through the interfaces servercmd.go
// implements, and the settings in reactor/settings. What needs neither a
// core nor a connection lives in small packages of its own: reactor/sockets
// (listeners, raw system calls, the open file limit), reactor/monitorline
// and reactor/instant.
//
// Invariants that are easy to break:
//   - Only the core that accepted a connection touches it (its buffers, its
//     reply slots). Other goroutines reach it through flags and the eventfd.
//   - A reply is appended to a connection's output only when every earlier
//     reply slot is filled; the direct path (no slot pending, key local)
//     writes straight into the output buffer.
//   - Before sleeping, a core sets its sleeping flag and then looks at its
//     inbound rings once more; a producer that sees the flag clears it and
//     writes the eventfd. Skipping the second look loses wakeups.
//   - The busy loop runs inside a command: it must not touch the shard,
//     the rings, the connection being parsed or the core's per-command
//     state (ctx, group, ahead), and leaves closing connections to the loop.
package reactor
