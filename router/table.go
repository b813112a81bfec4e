package router

import (
	"strings"

	"github.com/corekv/corekv/resp"
)

var byName = func() map[string]*Command {
	m := make(map[string]*Command, len(commands))
	for i := range commands {
		c := &commands[i]
		c.ID = i
		c.Member = memberArgs[c.Name]
		c.keySpecs = parseKeySpecs(c.Name, c.Specs)
		c.args = parseArgs(c.Name, c.Args)
		for j := range c.Subcommands {
			sub := &c.Subcommands[j]
			sub.keySpecs = parseKeySpecs(sub.Name, sub.Specs)
			sub.args = parseArgs(sub.Name, sub.Args)
		}
		m[c.Name] = c
		statNames = append(statNames, c.Name)
	}
	// A subcommand's statistics are its own (Command.StatID), after the
	// commands'.
	for i := range commands {
		for j := range commands[i].Subcommands {
			sub := &commands[i].Subcommands[j]
			sub.ID = len(statNames)
			statNames = append(statNames, sub.Name)
		}
	}
	return m
}()

// statNames names the commands and subcommands by statistics index.
var statNames []string

// StatNames returns the names INFO commandstats gives to the statistics
// indexes (Command.StatID).
func StatNames() []string { return statNames }

// memberArgs gives Command.Member for the commands that look up one member
// or field of an aggregate. ZADD's is its first member when no option comes
// before the score; otherwise a score or an option is read ahead in vain.
var memberArgs = map[string]int{
	"sadd": 2, "srem": 2, "sismember": 2, "smismember": 2,
	"hset": 2, "hsetnx": 2, "hget": 2, "hmget": 2, "hdel": 2, "hexists": 2, "hstrlen": 2,
	"hincrby": 2, "hincrbyfloat": 2,
	"zadd": 3, "zincrby": 3, "zscore": 2, "zmscore": 2, "zrank": 2, "zrevrank": 2, "zrem": 2,
}

// lookupSlots is an open-addressing table over the command names, indexed
// by nameHash: Lookup folds case and hashes in one pass over the client's
// bytes and usually compares one name, where a Go map would hash again.
var lookupSlots = func() []*Command {
	n := 1
	for n < 4*len(commands) {
		n <<= 1
	}
	slots := make([]*Command, n)
	for i := range commands {
		c := &commands[i]
		j := nameHash([]byte(c.Name)) & uint32(n-1)
		for slots[j] != nil {
			j = (j + 1) & uint32(n-1)
		}
		slots[j] = c
	}
	return slots
}()

// nameHash is FNV-1a over the lower-cased bytes of name.
func nameHash(name []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c|0x20)) * 16777619
	}
	return h
}

// names holds each command's name as bytes, by ID, so that plans can build
// argument lists without converting strings.
var names = func() [][]byte {
	out := make([][]byte, len(commands))
	for i := range commands {
		out[i] = []byte(commands[i].Name)
	}
	return out
}()

// NameBytes is the command's name as bytes; callers must not modify it.
func (c *Command) NameBytes() []byte { return names[c.ID] }

// maxNameLen bounds the names Lookup considers; no command is longer.
const maxNameLen = 24

// Lookup finds the command named by name in any letter case, without
// allocating.
func Lookup(name []byte) *Command {
	if len(name) > maxNameLen || len(name) == 0 {
		return nil
	}
	mask := uint32(len(lookupSlots) - 1)
	for j := nameHash(name) & mask; ; j = (j + 1) & mask {
		c := lookupSlots[j]
		if c == nil {
			return nil
		}
		if resp.EqualFold(name, c.Name) {
			return c
		}
	}
}

// LookupString is Lookup for a Go string (COMMAND INFO, tests).
func LookupString(name string) *Command {
	return byName[strings.ToLower(name)]
}

// Commands returns the command table, internal commands included.
func Commands() []Command { return commands }

// FlagNames returns the COMMAND INFO names of the flags set in f.
func FlagNames(f Flag) []string { return bitNames(uint32(f), flagNames) }

// HasKeys reports whether argv (as sent) holds at least one key for c.
func (c *Command) HasKeys(argc int) bool {
	return c.FirstKey > 0 && c.FirstKey < argc
}

// LastKeyIndex resolves the last key position for an argv of argc elements.
func (c *Command) LastKeyIndex(argc int) int {
	last := c.LastKey
	if last < 0 {
		last = argc + last
	}
	if last >= argc {
		last = argc - 1
	}
	return last
}

// MultiKey reports whether c may name more than one key.
func (c *Command) MultiKey() bool { return c.LastKey != c.FirstKey || c.NumKeys > 0 || c.Keys != nil }

// KeyIndexes appends the positions of argv's keys to dst: FirstKey to
// LastKey by Step and, for a command with a key count (NumKeys), the keys
// the count names after it. A count that is not a number of keys present
// names none: the command then runs on its first key's shard, which
// answers the error. A command with Keys finds its own.
func (c *Command) KeyIndexes(dst []int, argv [][]byte) []int {
	argc := len(argv)
	if !c.HasKeys(argc) {
		return dst
	}
	if c.Keys != nil {
		return c.Keys(dst, argv)
	}
	start := len(dst)
	last := c.LastKeyIndex(argc)
	for i := c.FirstKey; i <= last && (c.NumKeys == 0 || i < c.NumKeys); i += c.Step {
		dst = append(dst, i)
	}
	if c.NumKeys == 0 || c.NumKeys >= argc {
		return dst
	}
	if n, ok := resp.ParseInt(argv[c.NumKeys]); ok && n > 0 && n < int64(argc-c.NumKeys) {
		for i := c.NumKeys + 1; i <= c.NumKeys+int(n); i++ {
			dst = append(dst, i)
		}
	} else if len(dst) == start {
		dst = append(dst, c.FirstKey)
	}
	return dst
}
