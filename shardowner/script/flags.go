package script

import (
	"bytes"
	"strings"

	"github.com/corekv/corekv/resp"
)

// Flags are a script's shebang flags (#!lua flags=...), Redis's
// SCRIPT_FLAG_* bits.
type Flags uint32

const (
	// FlagNoWrites (no-writes): the script may not call write commands;
	// it may run on a read-only replica, under EVAL_RO, and over maxmemory.
	FlagNoWrites Flags = 1 << iota
	// FlagAllowOOM (allow-oom): the script may run, and write, over
	// maxmemory.
	FlagAllowOOM
	// FlagAllowStale (allow-stale): the script may run on a stale replica
	// (replica-serve-stale-data no, link down), calling only commands that
	// may run there.
	FlagAllowStale
	// FlagNoCluster (no-cluster): the script refuses to run in cluster mode.
	FlagNoCluster
	// FlagAllowCrossSlot (allow-cross-slot-keys): the script may access
	// keys of several slots.
	FlagAllowCrossSlot
	// FlagEvalCompat marks a script without a shebang: it runs as scripts
	// did before Redis 7.0 (may write, denied over maxmemory only when it
	// writes, may cross slots), and the other flags do not apply.
	FlagEvalCompat
)

// flagNames are the shebang's flag names, in Redis's order.
var flagNames = []struct {
	name string
	flag Flags
}{
	{"no-writes", FlagNoWrites},
	{"allow-oom", FlagAllowOOM},
	{"allow-stale", FlagAllowStale},
	{"no-cluster", FlagNoCluster},
	{"allow-cross-slot-keys", FlagAllowCrossSlot},
}

// String lists the flags as a shebang would, comma separated.
func (f Flags) String() string { return strings.Join(f.Names(), ",") }

// Names are the names of the flags set, in Redis's order.
func (f Flags) Names() []string {
	var names []string
	for _, n := range flagNames {
		if f&n.flag != 0 {
			names = append(names, n.name)
		}
	}
	return names
}

// ParseShebang reads the flags of a script body as Redis's
// evalExtractShebangFlags does. A body that does not begin with "#!" has
// FlagEvalCompat; one that does must be "#!lua" with only "flags=a,b,..."
// options on its first line. shebangLen is that line's length without its
// newline: the script compiles from there, so that its line numbers are
// the body's.
func ParseShebang(body []byte) (flags Flags, shebangLen int, err error) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return FlagEvalCompat, 0, nil
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return 0, 0, Error("ERR Invalid script shebang")
	}
	line := body[:nl]
	// Redis reads the line as a C string.
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	parts, ok := resp.SplitWords(string(line))
	if !ok || len(parts) == 0 {
		return 0, 0, Error("ERR Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, Error("ERR Unexpected engine in script shebang: " + cString(parts[0]))
	}
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, "flags=") {
			return 0, 0, Error("ERR Unknown lua shebang option: " + cString(p))
		}
		list := p[len("flags="):]
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			found := Flags(0)
			for _, n := range flagNames {
				if name == n.name {
					found = n.flag
					break
				}
			}
			if found == 0 {
				return 0, 0, Error("ERR Unexpected flag in script shebang: " + cString(name))
			}
			flags |= found
		}
	}
	return flags, nl, nil
}

func isHex(c byte) bool { return digitValue(c) >= 0 && digitValue(c) < 16 }
