package router

import "strings"

var byName = func() map[string]*Command {
	m := make(map[string]*Command, len(commands))
	for i := range commands {
		c := &commands[i]
		c.ID = i
		m[c.Name] = c
	}
	return m
}()

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

// Lookup finds the command named by name in any letter case. It does not
// allocate: the name is folded into a stack buffer, and a map index with a
// converted byte slice does not copy it.
func Lookup(name []byte) *Command {
	var buf [24]byte
	if len(name) > len(buf) {
		return nil
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return byName[string(buf[:len(name)])]
}

// LookupString is Lookup for a Go string (COMMAND INFO, tests).
func LookupString(name string) *Command {
	return byName[strings.ToLower(name)]
}

// Commands returns the command table, internal commands included.
func Commands() []Command { return commands }

// FlagNames returns the COMMAND INFO names of the flags set in f.
func FlagNames(f Flag) []string {
	var out []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

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

// KeyIndexes appends the positions of argv's keys to dst.
func (c *Command) KeyIndexes(dst []int, argc int) []int {
	if !c.HasKeys(argc) {
		return dst
	}
	last := c.LastKeyIndex(argc)
	for i := c.FirstKey; i <= last; i += c.Step {
		dst = append(dst, i)
	}
	return dst
}
