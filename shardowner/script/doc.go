// Package script owns Lua scripting as Redis 7.0 has it, apart from the
// server: one Lua interpreter per shard set up as Redis sets up its own (the
// Lua 5.1 base library less dofile, loadfile and print; string, table, math,
// coroutine; Redis's bit, cjson, cmsgpack and struct; the redis table), the
// script cache keyed by SHA1 with the bounded EVAL part, the shebang flags,
// running a script with KEYS and ARGV, function libraries (FUNCTION LOAD's
// code run in its load environment, FCALL of what it registered), and the
// conversions both ways between Lua values and RESP replies, with Redis's
// error texts.
//
// The package knows nothing of commands, keys or shards. A script's
// redis.call and redis.pcall go to a Host the server gives each run: it runs
// (or refuses) the command and hands back the reply as RESP bytes. Guard and
// CheckRun hold Redis's checks and error texts for refusing commands and
// scripts, for the host to apply with what only the server knows (the
// command table, memory, replication).
//
// An Engine is owned by one goroutine, the shard's: nothing here locks,
// but a Watch, through which other goroutines see how long the running
// script has run and stop it (SCRIPT KILL).
//
// The interpreter is gopher-lua, a Lua 5.1 written in Go, not Redis's C Lua.
// Where the two differ in what a script can see, the engine papers over the
// differences that scripts meet often (error texts, number formatting in
// tostring, read-only library tables, math.random, table.foreach); the rest
// is listed in README.md beside this file.
package script
