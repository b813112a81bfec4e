package router

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

// KeyFlag describes what a command does with a key, as Redis's key
// specifications do.
type KeyFlag uint16

// Key flags, in the order COMMAND lists them.
const (
	KeyRO KeyFlag = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

var keyFlagNames = []string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags"}

// KeyFlagNames returns the names of the key flags set in f.
func KeyFlagNames(f KeyFlag) []string { return bitNames(uint32(f), keyFlagNames) }

// KeySpec is one of a command's key specifications: where a run of keys
// starts and how far it goes. Begin 0 means Redis's "unknown": the keys
// can only be found by reading the arguments.
type KeySpec struct {
	Flags KeyFlag
	Begin int // position of the first key, or of the key count
	// Last is the last key of a range, relative to Begin; negative counts
	// from the end of the arguments.
	Last    int
	Step    int
	NumKeys bool // the count of keys stands at Begin and its keys follow it
	// Keyword, when set, begins the search at the first argument from
	// Begin on that is this word (GEORADIUS's STORE): the key follows it,
	// or a range of keys does, Last relative to it (XREAD's STREAMS).
	Keyword string
	// Limit, for a range to the end (Last < 0), takes only the first
	// 1/Limit of it (XREAD's keys, before their IDs); 0 or 1: all of it.
	Limit int
	Notes string // Redis's remark on the spec, if any
}

// Range reports whether s is a plain range: a known first key and a last
// key fixed or counted from the end.
func (s *KeySpec) Range() bool { return s.Begin > 0 && !s.NumKeys && s.Keyword == "" }

// parseKeySpecs reads a command table row's KeySpecs. Specs are separated
// by "; "; each is its flags, the position it begins at ("?" when
// unknown), then either nothing (that one key), "numkeys" (a count of
// keys stands there) or the last key relative to it and the step; or
// "keyword", the word and the position the search for it starts from
// (the one key follows the word). Notes follow " -- ". A malformed
// description is a bug in the table.
func parseKeySpecs(name, desc string) []KeySpec {
	if desc == "" {
		return nil
	}
	var out []KeySpec
	for _, part := range strings.Split(desc, "; ") {
		s := KeySpec{Step: 1}
		part, s.Notes, _ = strings.Cut(part, " -- ")
		words := strings.Fields(part)
		i := 0
		for ; i < len(words); i++ {
			f := keyFlagByName(words[i])
			if f == 0 {
				break
			}
			s.Flags |= f
		}
		rest := words[i:]
		bad := len(rest) == 0 || (len(rest) > 3 && rest[0] != "keyword")
		if !bad && rest[0] == "?" {
			s.Step = 0
			bad = len(rest) != 1
		} else if !bad && rest[0] == "keyword" {
			// keyword WORD startfrom [last step limit]
			bad = len(rest) != 3 && len(rest) != 6
			if !bad {
				s.Keyword = rest[1]
				n, err := strconv.Atoi(rest[2])
				s.Begin, bad = n, err != nil || n <= 0
			}
			if !bad && len(rest) == 6 {
				var e1, e2, e3 error
				s.Last, e1 = strconv.Atoi(rest[3])
				s.Step, e2 = strconv.Atoi(rest[4])
				s.Limit, e3 = strconv.Atoi(rest[5])
				bad = e1 != nil || e2 != nil || e3 != nil || s.Step <= 0 || s.Limit < 0
			}
		} else if !bad {
			n, err := strconv.Atoi(rest[0])
			s.Begin, bad = n, err != nil || n <= 0
			switch {
			case len(rest) == 2 && rest[1] == "numkeys":
				s.NumKeys = true
			case len(rest) >= 2:
				n, err := strconv.Atoi(rest[1])
				s.Last, bad = n, bad || err != nil
				if len(rest) == 3 {
					n, err := strconv.Atoi(rest[2])
					s.Step, bad = n, bad || err != nil || n <= 0
				}
			}
		}
		if bad {
			panic("router: " + name + ": bad key spec " + strconv.Quote(part))
		}
		out = append(out, s)
	}
	return out
}

func keyFlagByName(name string) KeyFlag {
	for i, n := range keyFlagNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// KeySpecs returns the command's key specifications.
func (c *Command) KeySpecs() []KeySpec { return c.keySpecs }

// KeyRange returns the first key, last key and step that COMMAND INFO
// reports, derived from the key specs as Redis derives them: the plain
// ranges of step 1 that follow one another, merged; specs of other shapes
// are left to the key specs (the command has movable keys).
func (c *Command) KeyRange() (first, last, step int) {
	specs := c.keySpecs
	if len(specs) == 1 && specs[0].Range() {
		s := specs[0]
		return s.Begin, s.absLast(), s.Step
	}
	prev := 0
	for _, s := range specs {
		if !s.Range() || s.Step != 1 || (prev != 0 && s.Begin != prev+1) {
			continue
		}
		if first == 0 || s.Begin < first {
			first = s.Begin
		}
		// A last key counted from the end is past any fixed one.
		if l := s.absLast(); last >= 0 && (l < 0 || l > last) {
			last = l
		}
		prev = last
	}
	if first == 0 {
		return 0, 0, 0
	}
	return first, last, 1
}

// absLast is the range's last key as a position, or counted from the end.
func (s *KeySpec) absLast() int {
	if s.Last < 0 {
		return s.Last
	}
	return s.Begin + s.Last
}

// HasKeyArgs reports whether any of the command's key specs names keys
// (COMMAND GETKEYS answers an error for a command without).
func (c *Command) HasKeyArgs() bool {
	for _, s := range c.keySpecs {
		if s.Flags&KeyNotKey == 0 {
			return true
		}
	}
	return false
}

// KeyRef is a key's position in a command's arguments and what the command
// does with it.
type KeyRef struct {
	Pos   int
	Flags KeyFlag
}

// GetKeys finds argv's keys as COMMAND GETKEYS and GETKEYSANDFLAGS report
// them; argv has been checked against the arity. Like Redis, it reads the
// key specs when they are enough, else it reads the arguments as the
// command does (SET's GET, a key count that is not a plain number, SORT's
// STORE). None found means invalid arguments.
func (c *Command) GetKeys(argv [][]byte) []KeyRef {
	specs := c.keySpecs
	if c.VarFlags != nil {
		return []KeyRef{{Pos: specs[0].Begin, Flags: c.VarFlags(argv)}}
	}
	if keys, ok := c.specKeys(argv); ok {
		return keys
	}
	for i, s := range specs {
		if s.NumKeys {
			return countedKeys(argv, s.Begin, i > 0 && specs[0].Range(), specs[0].Begin)
		}
	}
	// Unknown specs (SORT): the key sorted has the first spec's flags, a
	// STORE destination the last one's.
	if c.Keys == nil {
		return []KeyRef{{Pos: specs[0].Begin, Flags: specs[0].Flags}}
	}
	var keys []KeyRef
	var pos [2]int
	for i, p := range c.Keys(pos[:0], argv) {
		f := specs[0].Flags
		if i > 0 {
			f = specs[len(specs)-1].Flags
		}
		keys = append(keys, KeyRef{Pos: p, Flags: f})
	}
	return keys
}

// countedKeys finds the keys of a key count at argv[count] read as C's
// atoi reads it, then the destination at dst if hasDst, all without flags,
// as Redis's own reading of these commands does.
func countedKeys(argv [][]byte, count int, hasDst bool, dst int) []KeyRef {
	n := atoi(argv[count])
	if n < 1 || n > len(argv)-count-1 {
		return nil
	}
	var keys []KeyRef
	for p := count + 1; p <= count+n; p++ {
		keys = append(keys, KeyRef{Pos: p})
	}
	if hasDst {
		keys = append(keys, KeyRef{Pos: dst})
	}
	return keys
}

// specKeys reads argv's keys from the key specs alone, and reports false
// where they do not tell (an unknown spec, a count that is not a number of
// keys present).
func (c *Command) specKeys(argv [][]byte) ([]KeyRef, bool) {
	var keys []KeyRef
	for _, s := range c.keySpecs {
		if s.Flags&KeyNotKey != 0 {
			continue
		}
		if s.Begin == 0 {
			return nil, false
		}
		first, last, step := s.Begin, 0, s.Step
		if s.Keyword != "" {
			// The first argument that is the word, from Begin to the one
			// before the last; none, no key.
			first = 0
			for i := s.Begin; i < len(argv)-1; i++ {
				if resp.EqualFold(argv[i], strings.ToLower(s.Keyword)) {
					first = i + 1
					break
				}
			}
			if first == 0 {
				continue
			}
			last := first + s.Last
			if s.Last < 0 {
				last = len(argv) + s.Last
				if s.Limit > 1 {
					last = first + (last-first+1)/s.Limit - 1
				}
			}
			for i := first; i <= last && i < len(argv); i += s.Step {
				keys = append(keys, KeyRef{Pos: i, Flags: s.Flags})
			}
			continue
		}
		if s.NumKeys {
			n, ok := resp.ParseInt(argv[s.Begin])
			// Redis takes the count as a C int.
			if !ok || n < 0 || int32(n) <= 0 || int64(int32(n)) > int64(len(argv)-s.Begin-1) {
				return nil, false
			}
			first, last = s.Begin+1, s.Begin+int(int32(n))
		} else if last = s.absLast(); last < 0 {
			last += len(argv)
		}
		for i := first; i <= last && i < len(argv); i += step {
			keys = append(keys, KeyRef{Pos: i, Flags: s.Flags})
		}
	}
	return keys, true
}

// atoi reads a number as C's atoi does: strtol's reading, taken as a C
// int.
func atoi(b []byte) int {
	n, _ := resp.ParseIntPrefix(b)
	return int(int32(n))
}

// setKeyFlags is what SET does with its key: reads and updates it when a
// GET option asks for the old value, else overwrites it.
func setKeyFlags(argv [][]byte) KeyFlag {
	for _, a := range argv[min(3, len(argv)):] {
		if resp.EqualFold(a, "get") {
			return KeyRW | KeyAccess | KeyUpdate
		}
	}
	return KeyOW | KeyUpdate
}

// bitfieldKeyFlags is what BITFIELD does with its key, read as Redis reads
// it: only reads while its arguments are GETs and OVERFLOWs; a SET or
// INCRBY, or anything it cannot read, counts as a write.
func bitfieldKeyFlags(argv [][]byte) KeyFlag {
	for i := 2; i < len(argv); i++ {
		rem := len(argv) - i - 1
		switch a := argv[i]; {
		case resp.EqualFold(a, "get") && rem >= 2:
			i += 2
		case resp.EqualFold(a, "overflow") && rem >= 1:
			i++
		default:
			return KeyRW | KeyAccess | KeyUpdate
		}
	}
	return KeyRO | KeyAccess
}
