package router

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseKeySpecs(t *testing.T) {
	got := parseKeySpecs("x", "OW update 1; RO access 2 -1; RM delete 3 -1 2; RW access delete 2 numkeys; RO ? -- why not; OW update keyword STORE 6")
	want := []KeySpec{
		{Flags: KeyOW | KeyUpdate, Begin: 1, Step: 1},
		{Flags: KeyRO | KeyAccess, Begin: 2, Last: -1, Step: 1},
		{Flags: KeyRM | KeyDelete, Begin: 3, Last: -1, Step: 2},
		{Flags: KeyRW | KeyAccess | KeyDelete, Begin: 2, Step: 1, NumKeys: true},
		{Flags: KeyRO, Notes: "why not"},
		{Flags: KeyOW | KeyUpdate, Begin: 6, Step: 1, Keyword: "STORE"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseKeySpecs:\n got %+v\nwant %+v", got, want)
	}
	if got := parseKeySpecs("x", ""); got != nil {
		t.Errorf("no specs: %+v", got)
	}
	for _, bad := range []string{"RO", "RO 0", "RO x", "RO 1 -1 0", "RO 1 x", "RO ? 1", "RO 1 2 3 4", "RO 1;RO 2", "RO keyword STORE", "RO keyword STORE 0"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("parseKeySpecs(%q) did not panic", bad)
				}
			}()
			parseKeySpecs("x", bad)
		}()
	}
}

// TestKeySpecsAgreeWithRouting holds every command's key specs, which
// COMMAND reports, to the key positions it is routed by: for argument
// lists of several lengths, COMMAND GETKEYS's keys are the ones
// KeyIndexes finds, and the command has movable keys exactly when its key
// specs cannot be told by a first key, a last key and a step.
func TestKeySpecsAgreeWithRouting(t *testing.T) {
	all := slices.Clone(Commands())
	for i := range commands {
		all = append(all, commands[i].Subcommands...)
	}
	checked := 0
	for i := range all {
		c := &all[i]
		if c.Internal {
			continue
		}
		if movable := keysMovable(c); movable != (c.Flags&FlagMovableKeys != 0) {
			t.Errorf("%s: key specs movable %v, flags %v", c.Name, movable, FlagNames(c.Flags))
		}
		if !c.HasKeyArgs() {
			// Containers route by their subcommand's key; the shard
			// channels of SPUBLISH and SSUBSCRIBE have not_key specs.
			if len(c.Subcommands) == 0 && c.FirstKey > 0 && len(c.KeySpecs()) == 0 {
				t.Errorf("%s: routed by key %d but no key specs", c.Name, c.FirstKey)
			}
			continue
		}
		for argc := max(c.Arity, -c.Arity); argc <= max(c.Arity, -c.Arity)+4; argc++ {
			argv := make([][]byte, argc)
			for j := range argv {
				argv[j] = []byte(fmt.Sprint("a", j))
			}
			for _, s := range c.KeySpecs() {
				if s.NumKeys {
					argv[s.Begin] = []byte(fmt.Sprint(min(2, argc-s.Begin-1)))
				}
			}
			var spec []int
			for _, k := range c.GetKeys(argv) {
				spec = append(spec, k.Pos)
			}
			got := c.KeyIndexes(nil, argv)
			slices.Sort(spec)
			slices.Sort(got)
			if !slices.Equal(spec, got) {
				t.Errorf("%s %s: key specs find %v, routing %v", c.Name, strings.Join(strings.Fields(fmt.Sprintf("%s", argv)), " "), spec, got)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Errorf("only %d argument lists checked", checked)
	}
}

// keysMovable reports whether a command's keys need more than a first
// key, a last key and a step to be found, as Redis decides movablekeys.
func keysMovable(c *Command) bool {
	specs := c.KeySpecs()
	if len(specs) == 1 && specs[0].Range() {
		return specs[0].Flags&KeyIncomplete != 0
	}
	first, last, _ := c.KeyRange()
	for _, s := range specs {
		if !s.Range() || s.Step != 1 || s.Flags&KeyIncomplete != 0 {
			return true
		}
		if s.Begin < first || (last >= 0 && (s.absLast() < 0 || s.absLast() > last)) {
			return true
		}
	}
	return false
}

func TestKeyRange(t *testing.T) {
	for _, tc := range []struct {
		name              string
		first, last, step int
	}{
		{"get", 1, 1, 1},
		{"del", 1, -1, 1},
		{"mset", 1, -1, 2},
		{"blpop", 1, -2, 1},
		{"rename", 1, 2, 1},
		{"sdiffstore", 1, -1, 1},
		{"zrangestore", 1, 2, 1},
		{"zunionstore", 1, 1, 1},
		{"zunion", 0, 0, 0},
		{"lmpop", 0, 0, 0},
		{"sort", 1, 1, 1},
		{"object", 0, 0, 0},
		{"ping", 0, 0, 0},
		{"ssubscribe", 1, -1, 1},
		{"georadius", 1, 1, 1},
		{"geosearchstore", 1, 2, 1},
	} {
		c := LookupString(tc.name)
		if f, l, s := c.KeyRange(); f != tc.first || l != tc.last || s != tc.step {
			t.Errorf("%s: key range %d %d %d, want %d %d %d", tc.name, f, l, s, tc.first, tc.last, tc.step)
		}
	}
}

func TestGetKeys(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string // key:flags ..., "" for none
	}{
		{"get k", "k:RO,access"},
		{"set k v", "k:OW,update"},
		{"set k v nx GeT", "k:RW,access,update"},
		{"set k v xget", "k:OW,update"},
		{"mset a 1 b 2", "a:OW,update b:OW,update"},
		{"mset a 1 b", "a:OW,update b:OW,update"},
		{"zunionstore d 2 a b", "d:OW,update a:RO,access b:RO,access"},
		{"zunionstore d 3 a b", ""},
		{"zunionstore d 0 a", ""},
		{"zunionstore d 2x a b", "a: b: d:"}, // read as atoi reads it, without flags
		{"zunionstore d 4294967298 a", ""},
		{"zunion 4294967297 a", "a:RO,access"}, // a C int's count
		{"zunion 4294967296 a", ""},
		{"zunion -1 a", ""},
		{"lmpop 2 a b left", "a:RW,access,delete b:RW,access,delete"},
		{"blmpop 0 1 a left", "a:RW,access,delete"},
		{"sort k store d by x limit 0 1 get y store e", "k:RO,access e:OW,update"},
		{"sort k limit store a store", "k:RO,access"},
		{"sort_ro k store a", "k:RO,access"},
		{"blpop a b 0", "a:RW,access,delete b:RW,access,delete"},
		{"sdiffstore d a b", "d:OW,update a:RO,access b:RO,access"},
		{"georadius k 1 2 3 km store a storedist b", "k:RO,access a:OW,update b:OW,update"},
		{"georadius k 1 2 3 km store a store b", "k:RO,access a:OW,update"},
		{"georadius k 1 2 3 store a b", "k:RO,access"},
		{"georadius k 1 2 3 km count 1 store", "k:RO,access"},
		{"georadiusbymember k m 3 km STORE a", "k:RO,access a:OW,update"},
		{"geosearchstore d s frommember m byradius 1 km", "d:OW,update s:RO,access"},
	} {
		argv := [][]byte{}
		for _, a := range strings.Fields(tc.args) {
			argv = append(argv, []byte(a))
		}
		c := Lookup(argv[0])
		var got []string
		for _, k := range c.GetKeys(argv) {
			got = append(got, string(argv[k.Pos])+":"+strings.Join(KeyFlagNames(k.Flags), ","))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("GetKeys(%s) = %q, want %q", tc.args, g, tc.want)
		}
	}
}

func TestAtoi(t *testing.T) {
	for in, want := range map[string]int{"2": 2, " 2x": 2, "+1": 1, "-3": -3, "x": 0, "": 0,
		"4294967298": 2, "99999999999999999999": -1} {
		if got := atoi([]byte(in)); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzGetKeys gives every command with key arguments (and every such
// subcommand) arguments drawn from the fuzzer, as COMMAND GETKEYS does once
// the arity holds: GetKeys must not panic, and every key it finds is one
// of the arguments after the name.
func FuzzGetKeys(f *testing.F) {
	var cmds []*Command
	for i := range commands {
		c := &commands[i]
		if c.HasKeyArgs() {
			cmds = append(cmds, c)
		}
		for j := range c.Subcommands {
			if s := &c.Subcommands[j]; s.HasKeyArgs() {
				cmds = append(cmds, s)
			}
		}
	}
	f.Add(uint16(0), "2 a b")
	f.Add(uint16(7), "store d by x limit 0 1 get y store")
	f.Add(uint16(40), "4294967297 a numkeys -1 GET")
	f.Fuzz(func(t *testing.T, which uint16, rest string) {
		c := cmds[int(which)%len(cmds)]
		argv := [][]byte{[]byte(c.Name)}
		if i := strings.IndexByte(c.Name, '|'); i >= 0 {
			argv = [][]byte{[]byte(c.Name[:i]), []byte(c.Name[i+1:])}
		}
		for _, a := range strings.Fields(rest) {
			argv = append(argv, []byte(a))
		}
		if !c.ArityOK(len(argv)) {
			return
		}
		for _, k := range c.GetKeys(argv) {
			if k.Pos < 1 || k.Pos >= len(argv) {
				t.Fatalf("%s %q: key at %d of %d arguments", c.Name, rest, k.Pos, len(argv))
			}
		}
	})
}
