package router

import (
	so "github.com/corekv/corekv/shardowner"
)

const (
	w  = FlagWrite
	r  = FlagReadonly
	dn = FlagDenyOOM
	f  = FlagFast
)

// commands is the command table: every command corekv knows, in one place.
// Lookup, arity checks, key extraction, routing and the COMMAND replies all
// read it. Keep it sorted by group, then name.
var commands = []Command{
	// connection: answered on the client's home core by the reactor
	{Name: "auth", Home: HomeAuth, Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Cats: CatConnection, Group: "connection", Summary: "Authenticates the connection."},
	{Name: "client", Home: HomeClient, Arity: -2, Subcommands: clientSubcommands, Group: "connection", Summary: "A container for client connection commands."},
	{Name: "echo", Home: HomeEcho, Arity: 2, Flags: FlagLoading | FlagStale | f, Cats: CatConnection, Group: "connection", Summary: "Returns the given string."},
	{Name: "hello", Home: HomeHello, Arity: -1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Cats: CatConnection, Group: "connection", Summary: "Handshakes with the server: protocol version, authentication, client name."},
	{Name: "ping", Home: HomePing, Arity: -1, Flags: f, Cats: CatConnection, Tips: "request_policy:all_shards response_policy:all_succeeded", Group: "connection", Summary: "Returns the server's liveliness response."},
	{Name: "quit", Home: HomeQuit, Arity: -1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Cats: CatConnection, Group: "connection", Summary: "Closes the connection."},
	{Name: "reset", Home: HomeReset, Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Cats: CatConnection, Group: "connection", Summary: "Resets the connection."},
	{Name: "select", Home: HomeSelect, Arity: 2, Flags: FlagLoading | FlagStale | FlagFast, Cats: CatConnection, Group: "connection", Summary: "Changes the selected database."},

	// pubsub: subscriptions live on the subscriber's home core (reactor);
	// a publish runs on every core that has subscribers and adds their counts
	{Name: "psubscribe", Home: HomePSubscribe, Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Summary: "Listens for messages published to channels that match one or more patterns."},
	{Name: "publish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | f, Route: RouteAll, Combine: CombinePublish, Run: so.Publish, Group: "pubsub", Summary: "Posts a message to a channel."},
	{Name: "pubsub", Home: HomePubsub, Arity: -2, Subcommands: pubsubSubcommands, Group: "pubsub", Summary: "A container for Pub/Sub commands."},
	{Name: "punsubscribe", Home: HomePUnsubscribe, Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Summary: "Stops listening to messages published to channels that match one or more patterns."},
	{Name: "spublish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | f, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteAll, Combine: CombinePublish, Run: so.SPublish, Specs: "not_key 1", Group: "pubsub", Summary: "Post a message to a shard channel"},
	{Name: "ssubscribe", Home: HomeSSubscribe, Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, FirstKey: 1, LastKey: -1, Step: 1, Specs: "not_key 1 -1", Group: "pubsub", Summary: "Listens for messages published to shard channels."},
	{Name: "subscribe", Home: HomeSubscribe, Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Summary: "Listens for messages published to channels."},
	{Name: "sunsubscribe", Home: HomeSUnsubscribe, Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, FirstKey: 1, LastKey: -1, Step: 1, Specs: "not_key 1 -1", Group: "pubsub", Summary: "Stops listening to messages posted to shard channels."},
	{Name: "unsubscribe", Home: HomeUnsubscribe, Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Summary: "Stops listening to messages posted to channels."},

	// server
	{Name: "command", Home: HomeCommand, Arity: -1, Flags: FlagLoading | FlagStale, Cats: CatConnection, Subcommands: commandSubcommands, Tips: "nondeterministic_output_order", Group: "server", Summary: "Returns detailed information about all commands."},
	{Name: "config", Home: HomeConfig, Arity: -2, Subcommands: configSubcommands, Group: "server", Summary: "A container for server configuration commands."},
	{Name: "dbsize", Arity: 1, Flags: r | f, Cats: CatKeyspace, Route: RouteAll, Combine: CombineSumInt, Run: so.DBSize, Tips: "request_policy:all_shards response_policy:agg_sum", Group: "server", Summary: "Returns the number of keys in the database."},
	{Name: "debug", Home: HomeDebug, Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Summary: "A container for debugging commands."},
	{Name: "flushall", Arity: -1, Flags: w, Cats: CatKeyspace | CatDangerous, Route: RouteAll, Combine: CombineOK, Run: so.FlushAll, Tips: "request_policy:all_shards response_policy:all_succeeded", Group: "server", Summary: "Removes all keys from all databases."},
	{Name: "flushdb", Arity: -1, Flags: w, Cats: CatKeyspace | CatDangerous, Route: RouteAll, Combine: CombineOK, Run: so.FlushDB, Tips: "request_policy:all_shards response_policy:all_succeeded", Group: "server", Summary: "Removes all keys from the current database."},
	{Name: "info", Home: HomeInfo, Arity: -1, Flags: FlagLoading | FlagStale, Cats: CatDangerous, Tips: "nondeterministic_output request_policy:all_shards response_policy:special", Group: "server", Summary: "Returns information and statistics about the server."},
	{Name: "lastsave", Home: HomeLastSave, Arity: 1, Flags: FlagLoading | FlagStale | f, Cats: CatAdmin | CatDangerous, Tips: "nondeterministic_output", Group: "server", Summary: "Returns the Unix timestamp of the last successful save to disk."},
	{Name: "memory", Arity: -2, FirstKey: 2, LastKey: 2, Step: 1, Route: RouteKey, Run: so.Memory, Subcommands: memorySubcommands, Group: "server", Summary: "A container for memory diagnostics commands."},
	{Name: "swapdb", Arity: 3, Flags: w | f, Cats: CatKeyspace | CatDangerous, Route: RouteAll, Combine: CombineOK, Run: so.SwapDB, Group: "server", Summary: "Swaps two Redis databases."},
	{Name: "slowlog", Arity: -2, Route: RouteAll, Combine: CombineSlowlog, Run: so.Slowlog, Subcommands: slowlogSubcommands, Group: "server", Summary: "A container for slow log commands."},
	{Name: "shutdown", Home: HomeShutdown, Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagNoMulti | FlagAllowBusy, Group: "server", Summary: "Stops the server."},
	{Name: "time", Home: HomeTime, Arity: 1, Flags: FlagLoading | FlagStale | f, Tips: "nondeterministic_output", Group: "server", Summary: "Returns the server time."},

	// transactions: queued and run by the reactor as a router.Txn
	{Name: "discard", Home: HomeDiscard, Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | f | FlagAllowBusy, Cats: CatTransaction, Group: "transactions", Summary: "Discards a transaction."},
	{Name: "exec", Home: HomeExec, Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagSkipSlowlog, Cats: CatTransaction, Group: "transactions", Summary: "Executes all commands in a transaction."},
	{Name: "multi", Home: HomeMulti, Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | f | FlagAllowBusy, Cats: CatTransaction, Group: "transactions", Summary: "Starts a transaction."},
	{Name: "unwatch", Home: HomeUnwatch, Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | f | FlagAllowBusy, Cats: CatTransaction, Group: "transactions", Summary: "Forgets about watched keys of a transaction."},
	{Name: "watch", Home: HomeWatch, Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale | f | FlagAllowBusy, Cats: CatTransaction, FirstKey: 1, LastKey: -1, Step: 1, Specs: "RO 1 -1", Group: "transactions", Summary: "Monitors changes to keys to determine the execution of a transaction."},

	// generic (keys)
	{Name: "copy", Arity: -3, Flags: w | dn, Cats: CatKeyspace, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitMoveKey, Run: so.Copy, Specs: "RO access 1; OW update 2", Group: "generic", Summary: "Copies the value of a key to a new key."},
	{Name: "del", Arity: -2, Flags: w, Cats: CatKeyspace, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.Del, Specs: "RM delete 1 -1", Tips: "request_policy:multi_shard response_policy:agg_sum", Group: "generic", Summary: "Deletes one or more keys."},
	{Name: "exists", Arity: -2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.Exists, Specs: "RO 1 -1", Tips: "request_policy:multi_shard response_policy:agg_sum", Group: "generic", Summary: "Determines whether one or more keys exist."},
	{Name: "expire", Arity: -3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Expire, Specs: "RW update 1", Group: "generic", Summary: "Sets the expiration time of a key in seconds."},
	{Name: "expireat", Arity: -3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ExpireAt, Specs: "RW update 1", Group: "generic", Summary: "Sets the expiration time of a key to a Unix timestamp."},
	{Name: "expiretime", Arity: 2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ExpireTime, Specs: "RO access 1", Group: "generic", Summary: "Returns the expiration time of a key as a Unix timestamp."},
	{Name: "keys", Arity: 2, Flags: r, Cats: CatKeyspace | CatDangerous, Route: RouteAll, Combine: CombineConcatArray, Run: so.Keys, Tips: "request_policy:all_shards nondeterministic_output_order", Group: "generic", Summary: "Returns all key names that match a pattern."},
	{Name: "move", Arity: 3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Move, Specs: "RW access update 1", Group: "generic", Summary: "Moves a key to another database."},
	{Name: "object", Arity: -2, FirstKey: 2, LastKey: 2, Step: 1, Route: RouteKey, Run: so.Object, Subcommands: objectSubcommands, Group: "generic", Summary: "A container for object introspection commands."},
	{Name: "persist", Arity: 2, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Persist, Specs: "RW update 1", Group: "generic", Summary: "Removes the expiration time of a key."},
	{Name: "pexpire", Arity: -3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.PExpire, Specs: "RW update 1", Group: "generic", Summary: "Sets the expiration time of a key in milliseconds."},
	{Name: "pexpireat", Arity: -3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.PExpireAt, Specs: "RW update 1", Group: "generic", Summary: "Sets the expiration time of a key to a Unix milliseconds timestamp."},
	{Name: "pexpiretime", Arity: 2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.PExpireTime, Specs: "RO access 1", Group: "generic", Summary: "Returns the expiration time of a key as a Unix milliseconds timestamp."},
	{Name: "pttl", Arity: 2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.PTTL, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "generic", Summary: "Returns the expiration time in milliseconds of a key."},
	{Name: "randomkey", Arity: 1, Flags: r, Cats: CatKeyspace, Route: RouteAll, Combine: CombineRandomKey, Run: so.RandomKey, Tips: "request_policy:all_shards nondeterministic_output", Group: "generic", Summary: "Returns a random key name from the database."},
	{Name: "rename", Arity: 3, Flags: w, Cats: CatKeyspace, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitMoveKey, Run: so.Rename, Specs: "RW access delete 1; OW update 2", Group: "generic", Summary: "Renames a key and overwrites the destination."},
	{Name: "renamenx", Arity: 3, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitMoveKey, Run: so.RenameNX, Specs: "RW access delete 1; OW insert 2", Group: "generic", Summary: "Renames a key only when the target key name doesn't exist."},
	{Name: "scan", Arity: -2, Flags: r, Cats: CatKeyspace, Route: RouteCursor, Run: so.Scan, Tips: "nondeterministic_output request_policy:special", Group: "generic", Summary: "Iterates over the key names in the database."},
	// SORT: the destination of STORE may be on another shard (SplitGather);
	// the keys its patterns name must be on the sorted key's (shardowner/sort.go),
	// which it holds whole while it reads them (ReadsOthers)
	{Name: "sort", Arity: -2, Flags: w | dn | FlagMovableKeys, Cats: CatSet | CatSortedSet | CatList | CatDangerous, FirstKey: 1, LastKey: 1, Step: 1, Keys: sortKeys, ReadsOthers: sortReadsOthers, Route: RouteKey, Split: SplitGather, Run: so.Sort, Specs: "RO access 1; RO access ? -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort; OW update ? -- For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", Group: "generic", Summary: "Sorts the elements in a list, a set, or a sorted set, optionally storing the result."},
	{Name: "sort_ro", Arity: -2, Flags: r | FlagMovableKeys, Cats: CatSet | CatSortedSet | CatList | CatDangerous, FirstKey: 1, LastKey: 1, Step: 1, ReadsOthers: sortReadsOthers, Route: RouteKey, Run: so.SortRO, Specs: "RO access 1; RO access ? -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Group: "generic", Summary: "Returns the sorted elements of a list, a set, or a sorted set."},
	{Name: "touch", Arity: -2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.Touch, Specs: "RO 1 -1", Tips: "request_policy:multi_shard response_policy:agg_sum", Group: "generic", Summary: "Returns the number of existing keys out of those specified after updating the time they were last accessed."},
	{Name: "ttl", Arity: 2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.TTL, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "generic", Summary: "Returns the expiration time in seconds of a key."},
	{Name: "type", Arity: 2, Flags: r | f, Cats: CatKeyspace, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Type, Specs: "RO 1", Group: "generic", Summary: "Determines the type of value stored at a key."},
	{Name: "unlink", Arity: -2, Flags: w | f, Cats: CatKeyspace, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.Del, Specs: "RM delete 1 -1", Tips: "request_policy:multi_shard response_policy:agg_sum", Group: "generic", Summary: "Asynchronously deletes one or more keys."},

	// hash
	{Name: "hdel", Arity: -3, Flags: w | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HDel, Specs: "RW delete 1", Group: "hash", Summary: "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain."},
	{Name: "hexists", Arity: 3, Flags: r | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HExists, Specs: "RO 1", Group: "hash", Summary: "Determines whether a field exists in a hash."},
	{Name: "hget", Arity: 3, Flags: r | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HGet, Specs: "RO access 1", Group: "hash", Summary: "Returns the value of a field in a hash."},
	{Name: "hgetall", Arity: 2, Flags: r, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HGetAll, Specs: "RO access 1", Tips: "nondeterministic_output_order", Group: "hash", Summary: "Returns all fields and values in a hash."},
	{Name: "hincrby", Arity: 4, Flags: w | dn | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HIncrBy, Specs: "RW access update 1", Group: "hash", Summary: "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist."},
	{Name: "hincrbyfloat", Arity: 4, Flags: w | dn | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HIncrByFloat, Specs: "RW access update 1", Group: "hash", Summary: "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist."},
	{Name: "hkeys", Arity: 2, Flags: r, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HKeys, Specs: "RO access 1", Tips: "nondeterministic_output_order", Group: "hash", Summary: "Returns all fields in a hash."},
	{Name: "hlen", Arity: 2, Flags: r | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HLen, Specs: "RO 1", Group: "hash", Summary: "Returns the number of fields in a hash."},
	{Name: "hmget", Arity: -3, Flags: r | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HMGet, Specs: "RO access 1", Group: "hash", Summary: "Returns the values of all fields in a hash."},
	{Name: "hmset", Arity: -4, Flags: w | dn | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HMSet, Specs: "RW update 1", Group: "hash", Summary: "Sets the values of multiple fields."},
	{Name: "hrandfield", Arity: -2, Flags: r, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HRandField, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "hash", Summary: "Returns one or more random fields from a hash."},
	{Name: "hscan", Arity: -3, Flags: r, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HScan, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "hash", Summary: "Iterates over fields and values of a hash."},
	{Name: "hset", Arity: -4, Flags: w | dn | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HSet, Specs: "RW update 1", Group: "hash", Summary: "Creates or modifies the value of a field in a hash."},
	{Name: "hsetnx", Arity: 4, Flags: w | dn | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HSetNX, Specs: "RW insert 1", Group: "hash", Summary: "Sets the value of a field in a hash only when the field doesn't exist."},
	{Name: "hstrlen", Arity: 3, Flags: r | f, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HStrLen, Specs: "RO 1", Group: "hash", Summary: "Returns the length of the value of a field."},
	{Name: "hvals", Arity: 2, Flags: r, Cats: CatHash, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.HVals, Specs: "RO access 1", Tips: "nondeterministic_output_order", Group: "hash", Summary: "Returns all values in a hash."},

	// list: LMOVE, RPOPLPUSH and LMPOP over keys of several shards gather
	// them (SplitGather); LMPOP's keys follow its count (NumKeys)
	{Name: "blmove", Arity: 6, Flags: w | dn | FlagNoScript | FlagBlocking, Cats: CatList, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BLMove, Specs: "RW access delete 1; RW insert 2", Group: "list", Summary: "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved."},
	{Name: "blmpop", Arity: -5, Flags: w | FlagBlocking | FlagMovableKeys, Cats: CatList, FirstKey: 3, LastKey: 3, Step: 1, NumKeys: 2, Route: RouteKey, Split: SplitGather, Run: so.BLMPop, Specs: "RW access delete 2 numkeys", Group: "list", Summary: "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped."},
	{Name: "blpop", Arity: -3, Flags: w | FlagNoScript | FlagBlocking, Cats: CatList, FirstKey: 1, LastKey: -2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BLPop, Specs: "RW access delete 1 -2", Group: "list", Summary: "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped."},
	{Name: "brpop", Arity: -3, Flags: w | FlagNoScript | FlagBlocking, Cats: CatList, FirstKey: 1, LastKey: -2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BRPop, Specs: "RW access delete 1 -2", Group: "list", Summary: "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped."},
	{Name: "brpoplpush", Arity: 4, Flags: w | dn | FlagNoScript | FlagBlocking, Cats: CatList, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BRPopLPush, Specs: "RW access delete 1; RW insert 2", Group: "list", Summary: "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped."},
	{Name: "lindex", Arity: 3, Flags: r, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LIndex, Specs: "RO access 1", Group: "list", Summary: "Returns an element from a list by its index."},
	{Name: "linsert", Arity: 5, Flags: w | dn, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LInsert, Specs: "RW insert 1", Group: "list", Summary: "Inserts an element before or after another element in a list."},
	{Name: "llen", Arity: 2, Flags: r | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LLen, Specs: "RO 1", Group: "list", Summary: "Returns the length of a list."},
	{Name: "lmove", Arity: 5, Flags: w | dn, Cats: CatList, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.LMove, Specs: "RW access delete 1; RW insert 2", Group: "list", Summary: "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved."},
	{Name: "lmpop", Arity: -4, Flags: w | FlagMovableKeys, Cats: CatList, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.LMPop, Specs: "RW access delete 1 numkeys", Group: "list", Summary: "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped."},
	{Name: "lpop", Arity: -2, Flags: w | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LPop, Specs: "RW access delete 1", Group: "list", Summary: "Returns the first elements in a list after removing it. Deletes the list if the last element was popped."},
	{Name: "lpos", Arity: -3, Flags: r, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LPos, Specs: "RO access 1", Group: "list", Summary: "Returns the index of matching elements in a list."},
	{Name: "lpush", Arity: -3, Flags: w | dn | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LPush, Specs: "RW insert 1", Group: "list", Summary: "Prepends one or more elements to a list. Creates the key if it doesn't exist."},
	{Name: "lpushx", Arity: -3, Flags: w | dn | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LPushX, Specs: "RW insert 1", Group: "list", Summary: "Prepends one or more elements to a list only when the list exists."},
	{Name: "lrange", Arity: 4, Flags: r, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LRange, Specs: "RO access 1", Group: "list", Summary: "Returns a range of elements from a list."},
	{Name: "lrem", Arity: 4, Flags: w, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LRem, Specs: "RW delete 1", Group: "list", Summary: "Removes elements from a list. Deletes the list if the last element was removed."},
	{Name: "lset", Arity: 4, Flags: w | dn, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LSet, Specs: "RW update 1", Group: "list", Summary: "Sets the value of an element in a list by its index."},
	{Name: "ltrim", Arity: 4, Flags: w, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.LTrim, Specs: "RW delete 1", Group: "list", Summary: "Removes elements from both ends a list. Deletes the list if all elements were trimmed."},
	{Name: "rpop", Arity: -2, Flags: w | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.RPop, Specs: "RW access delete 1", Group: "list", Summary: "Returns and removes the last elements of a list. Deletes the list if the last element was popped."},
	{Name: "rpoplpush", Arity: 3, Flags: w | dn, Cats: CatList, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.RPopLPush, Specs: "RW access delete 1; RW insert 2", Group: "list", Summary: "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped."},
	{Name: "rpush", Arity: -3, Flags: w | dn | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.RPush, Specs: "RW insert 1", Group: "list", Summary: "Appends one or more elements to a list. Creates the key if it doesn't exist."},
	{Name: "rpushx", Arity: -3, Flags: w | dn | f, Cats: CatList, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.RPushX, Specs: "RW insert 1", Group: "list", Summary: "Appends an element to a list only when the list exists."},

	// set: a command over sets of several shards gathers them (SplitGather)
	{Name: "sadd", Arity: -3, Flags: w | dn | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SAdd, Specs: "RW insert 1", Group: "set", Summary: "Adds one or more members to a set. Creates the key if it doesn't exist."},
	{Name: "scard", Arity: 2, Flags: r | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SCard, Specs: "RO 1", Group: "set", Summary: "Returns the number of members in a set."},
	{Name: "sdiff", Arity: -2, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SDiff, Specs: "RO access 1 -1", Tips: "nondeterministic_output_order", Group: "set", Summary: "Returns the difference of multiple sets."},
	{Name: "sdiffstore", Arity: -3, Flags: w | dn, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SDiffStore, Specs: "OW update 1; RO access 2 -1", Group: "set", Summary: "Stores the difference of multiple sets in a key."},
	{Name: "sintercard", Arity: -3, Flags: r | FlagMovableKeys, Cats: CatSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.SInterCard, Specs: "RO access 1 numkeys", Group: "set", Summary: "Returns the number of members of the intersect of multiple sets."},
	{Name: "sinter", Arity: -2, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SInter, Specs: "RO access 1 -1", Tips: "nondeterministic_output_order", Group: "set", Summary: "Returns the intersect of multiple sets."},
	{Name: "sinterstore", Arity: -3, Flags: w | dn, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SInterStore, Specs: "RW update 1; RO access 2 -1", Group: "set", Summary: "Stores the intersect of multiple sets in a key."},
	{Name: "sismember", Arity: 3, Flags: r | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SIsMember, Specs: "RO 1", Group: "set", Summary: "Determines whether a member belongs to a set."},
	{Name: "smembers", Arity: 2, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SMembers, Specs: "RO access 1", Tips: "nondeterministic_output_order", Group: "set", Summary: "Returns all members of a set."},
	{Name: "smismember", Arity: -3, Flags: r | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SMIsMember, Specs: "RO access 1", Group: "set", Summary: "Determines whether multiple members belong to a set."},
	{Name: "smove", Arity: 4, Flags: w | f, Cats: CatSet, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SMove, Specs: "RW access delete 1; RW insert 2", Group: "set", Summary: "Moves a member from one set to another."},
	{Name: "spop", Arity: -2, Flags: w | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SPop, Specs: "RW access delete 1", Tips: "nondeterministic_output", Group: "set", Summary: "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped."},
	{Name: "srandmember", Arity: -2, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SRandMember, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "set", Summary: "Get one or multiple random members from a set"},
	{Name: "srem", Arity: -3, Flags: w | f, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SRem, Specs: "RW delete 1", Group: "set", Summary: "Removes one or more members from a set. Deletes the set if the last member was removed."},
	{Name: "sscan", Arity: -3, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SScan, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "set", Summary: "Iterates over members of a set."},
	{Name: "sunion", Arity: -2, Flags: r, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SUnion, Specs: "RO access 1 -1", Tips: "nondeterministic_output_order", Group: "set", Summary: "Returns the union of multiple sets."},
	{Name: "sunionstore", Arity: -3, Flags: w | dn, Cats: CatSet, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.SUnionStore, Specs: "OW update 1; RO access 2 -1", Group: "set", Summary: "Stores the union of multiple sets in a key."},

	// sorted set: a command over keys of several shards gathers them
	// (SplitGather); NumKeys is where a count of keys stands
	{Name: "bzmpop", Arity: -5, Flags: w | FlagBlocking | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 3, LastKey: 3, Step: 1, NumKeys: 2, Route: RouteKey, Split: SplitGather, Run: so.BZMPop, Specs: "RW access delete 2 numkeys", Group: "sorted-set", Summary: "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped."},
	{Name: "bzpopmax", Arity: -3, Flags: w | f | FlagNoScript | FlagBlocking, Cats: CatSortedSet, FirstKey: 1, LastKey: -2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BZPopMax, Specs: "RW access delete 1 -2", Group: "sorted-set", Summary: "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped."},
	{Name: "bzpopmin", Arity: -3, Flags: w | f | FlagNoScript | FlagBlocking, Cats: CatSortedSet, FirstKey: 1, LastKey: -2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.BZPopMin, Specs: "RW access delete 1 -2", Group: "sorted-set", Summary: "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped."},
	{Name: "zadd", Arity: -4, Flags: w | dn | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZAdd, Specs: "RW update 1", Group: "sorted-set", Summary: "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist."},
	{Name: "zcard", Arity: 2, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZCard, Specs: "RO 1", Group: "sorted-set", Summary: "Returns the number of members in a sorted set."},
	{Name: "zcount", Arity: 4, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZCount, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the count of members in a sorted set that have scores within a range."},
	{Name: "zdiff", Arity: -3, Flags: r | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.ZDiff, Specs: "RO access 1 numkeys", Group: "sorted-set", Summary: "Returns the difference between multiple sorted sets."},
	{Name: "zdiffstore", Arity: -4, Flags: w | dn | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, NumKeys: 2, Route: RouteKey, Split: SplitGather, Run: so.ZDiffStore, Specs: "OW update 1; RO access 2 numkeys", Group: "sorted-set", Summary: "Stores the difference of multiple sorted sets in a key."},
	{Name: "zincrby", Arity: 4, Flags: w | dn | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZIncrBy, Specs: "RW access update 1", Group: "sorted-set", Summary: "Increments the score of a member in a sorted set."},
	{Name: "zinter", Arity: -3, Flags: r | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.ZInter, Specs: "RO access 1 numkeys", Group: "sorted-set", Summary: "Returns the intersect of multiple sorted sets."},
	{Name: "zintercard", Arity: -3, Flags: r | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.ZInterCard, Specs: "RO access 1 numkeys", Group: "sorted-set", Summary: "Returns the number of members of the intersect of multiple sorted sets."},
	{Name: "zinterstore", Arity: -4, Flags: w | dn | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, NumKeys: 2, Route: RouteKey, Split: SplitGather, Run: so.ZInterStore, Specs: "OW update 1; RO access 2 numkeys", Group: "sorted-set", Summary: "Stores the intersect of multiple sorted sets in a key."},
	{Name: "zlexcount", Arity: 4, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZLexCount, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the number of members in a sorted set within a lexicographical range."},
	{Name: "zmscore", Arity: -3, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZMScore, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the score of one or more members in a sorted set."},
	{Name: "zmpop", Arity: -4, Flags: w | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.ZMPop, Specs: "RW access delete 1 numkeys", Group: "sorted-set", Summary: "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped."},
	{Name: "zpopmax", Arity: -2, Flags: w | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZPopMax, Specs: "RW access delete 1", Group: "sorted-set", Summary: "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped."},
	{Name: "zpopmin", Arity: -2, Flags: w | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZPopMin, Specs: "RW access delete 1", Group: "sorted-set", Summary: "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped."},
	{Name: "zrange", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRange, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a range of indexes."},
	{Name: "zrandmember", Arity: -2, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRandMember, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "sorted-set", Summary: "Returns one or more random members from a sorted set."},
	{Name: "zrangestore", Arity: -5, Flags: w | dn, Cats: CatSortedSet, FirstKey: 1, LastKey: 2, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.ZRangeStore, Specs: "OW update 1; RO access 2", Group: "sorted-set", Summary: "Stores a range of members from sorted set in a key."},
	{Name: "zrangebylex", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRangeByLex, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a lexicographical range."},
	{Name: "zrangebyscore", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRangeByScore, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a range of scores."},
	{Name: "zrank", Arity: 3, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRank, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the index of a member in a sorted set ordered by ascending scores."},
	{Name: "zrem", Arity: -3, Flags: w | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRem, Specs: "RW delete 1", Group: "sorted-set", Summary: "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed."},
	{Name: "zremrangebylex", Arity: 4, Flags: w, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRemRangeByLex, Specs: "RW delete 1", Group: "sorted-set", Summary: "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed."},
	{Name: "zremrangebyrank", Arity: 4, Flags: w, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRemRangeByRank, Specs: "RW delete 1", Group: "sorted-set", Summary: "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed."},
	{Name: "zremrangebyscore", Arity: 4, Flags: w, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRemRangeByScore, Specs: "RW delete 1", Group: "sorted-set", Summary: "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed."},
	{Name: "zrevrange", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRevRange, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a range of indexes in reverse order."},
	{Name: "zrevrangebylex", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRevRangeByLex, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a lexicographical range in reverse order."},
	{Name: "zrevrangebyscore", Arity: -4, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRevRangeByScore, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns members in a sorted set within a range of scores in reverse order."},
	{Name: "zrevrank", Arity: 3, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZRevRank, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the index of a member in a sorted set ordered by descending scores."},
	{Name: "zscan", Arity: -3, Flags: r, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZScan, Specs: "RO access 1", Tips: "nondeterministic_output", Group: "sorted-set", Summary: "Iterates over members and scores of a sorted set."},
	{Name: "zscore", Arity: 3, Flags: r | f, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.ZScore, Specs: "RO access 1", Group: "sorted-set", Summary: "Returns the score of a member in a sorted set."},
	{Name: "zunion", Arity: -3, Flags: r | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 2, LastKey: 2, Step: 1, NumKeys: 1, Route: RouteKey, Split: SplitGather, Run: so.ZUnion, Specs: "RO access 1 numkeys", Group: "sorted-set", Summary: "Returns the union of multiple sorted sets."},
	{Name: "zunionstore", Arity: -4, Flags: w | dn | FlagMovableKeys, Cats: CatSortedSet, FirstKey: 1, LastKey: 1, Step: 1, NumKeys: 2, Route: RouteKey, Split: SplitGather, Run: so.ZUnionStore, Specs: "OW update 1; RO access 2 numkeys", Group: "sorted-set", Summary: "Stores the union of multiple sorted sets in a key."},

	// string
	{Name: "append", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Append, Specs: "RW insert 1", Group: "string", Summary: "Appends a string to the value of a key. Creates the key if it doesn't exist."},
	{Name: "decr", Arity: 2, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Decr, Specs: "RW access update 1", Group: "string", Summary: "Decrements the integer value of a key by one."},
	{Name: "decrby", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.DecrBy, Specs: "RW access update 1", Group: "string", Summary: "Decrements a number from the integer value of a key."},
	{Name: "get", Arity: 2, Flags: r | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Get, Specs: "RO access 1", Group: "string", Summary: "Returns the string value of a key."},
	{Name: "getdel", Arity: 2, Flags: w | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.GetDel, Specs: "RW access delete 1", Group: "string", Summary: "Returns the string value of a key after deleting the key."},
	{Name: "getex", Arity: -2, Flags: w | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.GetEx, Specs: "RW access update 1 -- RW and UPDATE because it changes the TTL", Group: "string", Summary: "Returns the string value of a key after setting its expiration time."},
	{Name: "getrange", Arity: 4, Flags: r, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.GetRange, Specs: "RO access 1", Group: "string", Summary: "Returns a substring of the string stored at a key."},
	{Name: "getset", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.GetSet, Specs: "RW access update 1", Group: "string", Summary: "Returns the previous string value of a key after setting it to a new value."},
	{Name: "incr", Arity: 2, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.Incr, Specs: "RW access update 1", Group: "string", Summary: "Increments the integer value of a key by one."},
	{Name: "incrby", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.IncrBy, Specs: "RW access update 1", Group: "string", Summary: "Increments the integer value of a key by a number."},
	{Name: "incrbyfloat", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.IncrByFloat, Specs: "RW access update 1", Group: "string", Summary: "Increment the floating point value of a key by a number."},
	{Name: "mget", Arity: -2, Flags: r | f, Cats: CatString, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitPerKey, Run: so.MGet, Specs: "RO access 1 -1", Tips: "request_policy:multi_shard", Group: "string", Summary: "Atomically returns the string values of one or more keys."},
	{Name: "mset", Arity: -3, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: -1, Step: 2, Route: RouteKey, Split: SplitPairsOK, Run: so.MSet, Specs: "OW update 1 -1 2", Tips: "request_policy:multi_shard response_policy:all_succeeded", Group: "string", Summary: "Atomically creates or modifies the string values of one or more keys."},
	{Name: "msetnx", Arity: -3, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: -1, Step: 2, Route: RouteKey, Split: SplitMSETNX, Run: so.MSetNX, Specs: "OW insert 1 -1 2", Tips: "request_policy:multi_shard response_policy:agg_min", Group: "string", Summary: "Atomically modifies the string values of one or more keys only when all keys don't exist."},
	{Name: "psetex", Arity: 4, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.PSetEX, Specs: "OW update 1", Group: "string", Summary: "Sets both string value and expiration time in milliseconds of a key."},
	{Name: "set", Arity: -3, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, VarFlags: setKeyFlags, Route: RouteKey, Run: so.Set, Specs: "RW access update variable_flags 1 -- RW and ACCESS due to the optional `GET` argument", Group: "string", Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist."},
	{Name: "setex", Arity: 4, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SetEX, Specs: "OW update 1", Group: "string", Summary: "Sets the string value and expiration time of a key."},
	{Name: "setnx", Arity: 3, Flags: w | dn | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SetNX, Specs: "OW insert 1", Group: "string", Summary: "Set the string value of a key only when the key doesn't exist."},
	{Name: "setrange", Arity: 4, Flags: w | dn, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.SetRange, Specs: "RW update 1", Group: "string", Summary: "Overwrites a part of a string value with another by an offset."},
	{Name: "strlen", Arity: 2, Flags: r | f, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.StrLen, Specs: "RO 1", Group: "string", Summary: "Returns the length of a string value."},
	{Name: "substr", Arity: 4, Flags: r, Cats: CatString, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.GetRange, Specs: "RO access 1", Group: "string", Summary: "Returns a substring from a string value."},

	// shard to shard: the halves of a command whose keys live on two shards,
	// and RANDOMKEY's part on each shard
	{Name: "corekv.dumps", Arity: -2, FirstKey: 1, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitGather, Run: so.InternalDumps, Internal: true},
	{Name: "corekv.dump", Arity: 2, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.InternalDump, Internal: true},
	{Name: "corekv.take", Arity: 2, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.InternalTake, Internal: true},
	{Name: "corekv.restore", Arity: -4, FirstKey: 1, LastKey: 1, Step: 1, Route: RouteKey, Run: so.InternalRestore, Internal: true},
	{Name: "corekv.randomkey", Arity: 1, Route: RouteAll, Combine: CombineRandomKey, Run: so.InternalRandomKey, Internal: true},
	// a transaction's lock requests (Txn, Locks)
	{Name: "corekv.lock", Arity: -2, Route: RouteAll, Run: so.InternalLock, Internal: true},
	{Name: "corekv.unlock", Arity: 2, Route: RouteAll, Run: so.InternalUnlock, Internal: true},
	// the end of a parked blocking command, sent by its client's core:
	// corekv.bcancel <client> timeout|error|gone key [key ...], sent to the
	// one shard of its keys (Split for the table only); its keys
	// order it behind the command where locks make it wait (blocking.go)
	// a wake-only registration of a blocking command whose keys span
	// shards: corekv.bwait <client> list|zset key [key ...]
	{Name: "corekv.bwait", Arity: -4, FirstKey: 3, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.InternalUnlock, Internal: true},
	{Name: "corekv.bcancel", Arity: -4, FirstKey: 3, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.InternalUnlock, Internal: true},

	// WATCH's part on the shards that own watched keys; EXEC asks each shard
	// whether one was touched. corekv.watch's parts are built by the caller,
	// each with the client id before its keys: the generic split, which would
	// drop the id, makes a part fail with a not-an-integer error.
	{Name: "corekv.watch", Arity: -3, FirstKey: 2, LastKey: -1, Step: 1, Route: RouteKey, Split: SplitSumInt, Run: so.InternalWatch, Internal: true},
	{Name: "corekv.unwatch", Arity: 2, Route: RouteAll, Combine: CombineOK, Run: so.InternalUnwatch, Internal: true},
	{Name: "corekv.watched", Arity: 2, Route: RouteAll, Combine: CombineSumInt, Run: so.InternalWatched, Internal: true},
}

// The subcommands of the container commands: COMMAND INFO lists them under
// their container, and COMMAND GETKEYS and the arity checks look them up.
// The container's handler runs them.
const (
	ls  = FlagLoading | FlagStale // a container's HELP
	nls = FlagNoScript | ls
)

var clientSubcommands = []Command{
	{Name: "client|getname", Arity: 2, Flags: nls, Cats: CatConnection},
	{Name: "client|help", Arity: 2, Flags: ls, Cats: CatConnection},
	{Name: "client|id", Arity: 2, Flags: nls, Cats: CatConnection},
	{Name: "client|info", Arity: 2, Flags: nls, Cats: CatConnection, Tips: "nondeterministic_output"},
	{Name: "client|kill", Arity: -3, Flags: FlagAdmin | nls, Cats: CatConnection},
	{Name: "client|list", Arity: -2, Flags: FlagAdmin | nls, Cats: CatConnection, Tips: "nondeterministic_output"},
	{Name: "client|no-evict", Arity: 3, Flags: FlagAdmin | nls, Cats: CatConnection},
	{Name: "client|no-touch", Arity: 3, Flags: nls, Cats: CatConnection},
	{Name: "client|reply", Arity: 3, Flags: nls, Cats: CatConnection},
	{Name: "client|setinfo", Arity: 4, Flags: nls, Cats: CatConnection},
	{Name: "client|setname", Arity: 3, Flags: nls, Cats: CatConnection},
	{Name: "client|unblock", Arity: -3, Flags: FlagAdmin | nls, Cats: CatConnection},
}

var commandSubcommands = []Command{
	{Name: "command|count", Arity: 2, Flags: ls, Cats: CatConnection},
	{Name: "command|docs", Arity: -2, Flags: ls, Cats: CatConnection, Tips: "nondeterministic_output_order"},
	{Name: "command|getkeys", Arity: -4, Flags: ls, Cats: CatConnection},
	{Name: "command|getkeysandflags", Arity: -4, Flags: ls, Cats: CatConnection},
	{Name: "command|help", Arity: 2, Flags: ls, Cats: CatConnection},
	{Name: "command|info", Arity: -2, Flags: ls, Cats: CatConnection, Tips: "nondeterministic_output_order"},
	{Name: "command|list", Arity: -2, Flags: ls, Cats: CatConnection, Tips: "nondeterministic_output_order"},
}

var configSubcommands = []Command{
	{Name: "config|get", Arity: -3, Flags: FlagAdmin | nls},
	{Name: "config|help", Arity: 2, Flags: ls},
	{Name: "config|resetstat", Arity: 2, Flags: FlagAdmin | nls},
	{Name: "config|rewrite", Arity: 2, Flags: FlagAdmin | nls},
	{Name: "config|set", Arity: -4, Flags: FlagAdmin | nls, Tips: "request_policy:all_nodes response_policy:all_succeeded"},
}

var memorySubcommands = []Command{
	{Name: "memory|help", Arity: 2, Flags: ls},
	{Name: "memory|usage", Arity: -3, Flags: r, FirstKey: 2, LastKey: 2, Step: 1, Specs: "RO 2"},
}

var objectSubcommands = []Command{
	{Name: "object|encoding", Arity: 3, Flags: r, Cats: CatKeyspace, FirstKey: 2, LastKey: 2, Step: 1, Specs: "RO 2", Tips: "nondeterministic_output"},
	{Name: "object|freq", Arity: 3, Flags: r, Cats: CatKeyspace, FirstKey: 2, LastKey: 2, Step: 1, Specs: "RO 2", Tips: "nondeterministic_output"},
	{Name: "object|help", Arity: 2, Flags: ls, Cats: CatKeyspace},
	{Name: "object|idletime", Arity: 3, Flags: r, Cats: CatKeyspace, FirstKey: 2, LastKey: 2, Step: 1, Specs: "RO 2", Tips: "nondeterministic_output"},
	{Name: "object|refcount", Arity: 3, Flags: r, Cats: CatKeyspace, FirstKey: 2, LastKey: 2, Step: 1, Specs: "RO 2", Tips: "nondeterministic_output"},
}

var pubsubSubcommands = []Command{
	{Name: "pubsub|channels", Arity: -2, Flags: FlagPubSub | ls},
	{Name: "pubsub|help", Arity: 2, Flags: ls},
	{Name: "pubsub|numpat", Arity: 2, Flags: FlagPubSub | ls},
	{Name: "pubsub|numsub", Arity: -2, Flags: FlagPubSub | ls},
	{Name: "pubsub|shardchannels", Arity: -2, Flags: FlagPubSub | ls},
	{Name: "pubsub|shardnumsub", Arity: -2, Flags: FlagPubSub | ls},
}

var slowlogSubcommands = []Command{
	{Name: "slowlog|get", Arity: -2, Flags: FlagAdmin | ls, Tips: "request_policy:all_nodes nondeterministic_output"},
	{Name: "slowlog|help", Arity: 2, Flags: ls},
	{Name: "slowlog|len", Arity: 2, Flags: FlagAdmin | ls, Tips: "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
	{Name: "slowlog|reset", Arity: 2, Flags: FlagAdmin | ls, Tips: "request_policy:all_nodes response_policy:all_succeeded"},
}
