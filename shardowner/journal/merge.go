package journal

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Command is one command of a merged stream: its database and arguments.
// MULTI and EXEC frame a transaction; their DB is that of the command
// before them.
type Command struct {
	DB   int
	Argv [][]byte
}

// item is a unit of one shard's stream: a command, or a transaction part.
type item struct {
	cmd   Command
	tx    uint64 // with parts > 0: a part of this transaction
	parts int
	body  []txRec
}

type txRec struct {
	cmd    Command
	shared bool
}

// parse reads one shard's stream into its items. A stream that ends inside
// a record or a transaction block is torn: parse returns what came before
// it and an error that says where.
func parse(b []byte) ([]item, error) {
	var items []item
	db := 0
	var open *item // the transaction block being read
	shared := false
	for off := 0; off < len(b); {
		if b[off] == '#' {
			end := bytes.Index(b[off:], []byte("\r\n"))
			if end < 0 {
				return items, fmt.Errorf("torn annotation at byte %d", off)
			}
			line := string(b[off+1 : off+end])
			off += end + 2
			switch {
			case line == "all":
				shared = true
			case len(line) > 3 && line[:3] == "tx ":
				var id uint64
				var parts int
				if _, err := fmt.Sscanf(line[3:], "%d %d", &id, &parts); err != nil || parts < 1 {
					return items, fmt.Errorf("bad transaction annotation %q at byte %d", line, off)
				}
				open = &item{tx: id, parts: parts}
			}
			continue
		}
		argv, n, err := parseCommand(b[off:])
		if err != nil {
			return items, fmt.Errorf("at byte %d: %w", off, err)
		}
		start := off
		off += n
		name := string(bytes.ToUpper(argv[0]))
		switch {
		case name == "SELECT" && len(argv) == 2:
			d, err := strconv.Atoi(string(argv[1]))
			if err != nil {
				return items, fmt.Errorf("bad SELECT at byte %d", start)
			}
			db = d
		case open != nil && name == "MULTI" && open.body == nil:
			open.body = []txRec{}
		case open != nil && name == "EXEC":
			items = append(items, *open)
			open = nil
		case open != nil:
			open.body = append(open.body, txRec{Command{db, argv}, shared})
		default:
			items = append(items, item{cmd: Command{db, argv}})
		}
		shared = false
	}
	if open != nil {
		return items, errors.New("torn transaction block at the end")
	}
	return items, nil
}

// parseCommand reads one RESP array of bulk strings from b.
func parseCommand(b []byte) ([][]byte, int, error) {
	n, off, err := header(b, 0, '*')
	if err != nil {
		return nil, 0, err
	}
	argv := make([][]byte, 0, min(n, 64)) // n is what the stream claims
	for range n {
		l, next, err := header(b, off, '$')
		if err != nil {
			return nil, 0, err
		}
		if l > len(b)-next-2 {
			return nil, 0, errors.New("torn record")
		}
		argv = append(argv, b[next:next+l])
		off = next + l + 2
	}
	if n == 0 {
		return nil, 0, errors.New("empty record")
	}
	return argv, off, nil
}

// header reads a "<kind><n>\r\n" header at off.
func header(b []byte, off int, kind byte) (n, next int, err error) {
	if off >= len(b) {
		return 0, 0, errors.New("torn record")
	}
	if b[off] != kind {
		return 0, 0, fmt.Errorf("expected %q", kind)
	}
	end := bytes.Index(b[off:], []byte("\r\n"))
	if end < 0 {
		return 0, 0, errors.New("torn record")
	}
	n, err = strconv.Atoi(string(b[off+1 : off+end]))
	if err != nil || n < 0 {
		return 0, 0, fmt.Errorf("bad length %q", b[off+1:off+end])
	}
	return n, off + end + 2, nil
}

// KeysFunc returns the keys a record names, or all when it touches every
// key (FLUSHALL, SWAPDB); the router's command table knows them
// (router.RecordKeys).
type KeysFunc func(argv [][]byte) (keys [][]byte, all bool)

// Merge reads the streams of a server's shards, one per shard, and returns
// one sequence of commands that applies them as the server did: each
// shard's records in its order, and each transaction whole, as MULTI …
// EXEC, once all of its parts stand at the heads of their streams.
//
// Transactions that share a key are ordered alike on every shard they
// share (their locks see to it). Two that share none may close their parts
// in different orders on different shards, and then each waits for the
// other; keys says which records commute, and a part that commutes with
// everything before it in its stream may move up to its head. A stream
// that ends with a part whose siblings never come, or parts that cannot
// be brought together, make an error.
func Merge(streams [][]byte, keys KeysFunc) ([]Command, error) {
	lists := make([][]item, len(streams))
	for i, s := range streams {
		items, err := parse(s)
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", i, err)
		}
		lists[i] = items
	}
	var out []Command
	pos := make([]int, len(lists))
	for {
		// Run each stream up to its next transaction part.
		for i, l := range lists {
			for pos[i] < len(l) && l[pos[i]].parts == 0 {
				out = append(out, l[pos[i]].cmd)
				pos[i]++
			}
		}
		// Every stream is now at its end or at a part: find a
		// transaction whose parts all stand at the heads.
		heads := map[uint64][]int{}
		var ids []uint64
		for i, l := range lists {
			if pos[i] < len(l) {
				id := l[pos[i]].tx
				if heads[id] == nil {
					ids = append(ids, id)
				}
				heads[id] = append(heads[id], i)
			}
		}
		if len(ids) == 0 {
			return out, nil
		}
		slices.Sort(ids)
		progress := false
		for _, id := range ids {
			at := heads[id]
			if len(at) != lists[at[0]][pos[at[0]]].parts {
				continue
			}
			body, err := mergeParts(lists, pos, at)
			if err != nil {
				return nil, fmt.Errorf("transaction %d: %w", id, err)
			}
			out = append(out, body...)
			for _, i := range at {
				pos[i]++
			}
			progress = true
		}
		if !progress && !(keys != nil && pullForward(lists, pos, ids, heads, keys)) {
			return nil, fmt.Errorf("transaction parts wait for each other or are missing: %v", heads)
		}
	}
}

// pullForward brings the parts of one of the transactions at the heads
// (ids) to the heads of all their streams, where each commutes with what it
// passes, and reports whether it could.
func pullForward(lists [][]item, pos []int, ids []uint64, heads map[uint64][]int, keys KeysFunc) bool {
	for _, id := range ids {
		at := heads[id]
		need := lists[at[0]][pos[at[0]]].parts
		found := map[int]int{} // stream → index of the part beyond its head
		for i, l := range lists {
			if slices.Contains(at, i) {
				continue
			}
			for j := pos[i]; j < len(l); j++ {
				if l[j].parts > 0 && l[j].tx == id {
					if commutes(l[pos[i]:j], l[j], keys) {
						found[i] = j
					}
					break
				}
			}
		}
		if len(at)+len(found) != need {
			continue
		}
		for i, j := range found {
			part := lists[i][j]
			lists[i] = slices.Insert(slices.Delete(lists[i], j, j+1), pos[i], part)
		}
		return true
	}
	return false
}

// commutes reports whether part shares no key with any record of passed.
func commutes(passed []item, part item, keys KeysFunc) bool {
	mine := map[string]bool{}
	for _, r := range part.body {
		ks, all := keys(r.cmd.Argv)
		if all {
			return false
		}
		for _, k := range ks {
			mine[string(k)] = true
		}
	}
	clash := func(argv [][]byte) bool {
		ks, all := keys(argv)
		if all {
			return true
		}
		for _, k := range ks {
			if mine[string(k)] {
				return true
			}
		}
		return false
	}
	for _, it := range passed {
		if it.parts == 0 && clash(it.cmd.Argv) {
			return false
		}
		for _, r := range it.body {
			if clash(r.cmd.Argv) {
				return false
			}
		}
	}
	return true
}

// mergeParts joins the parts at the heads of the streams at into one
// MULTI … EXEC. The records every part carries (#all) cut each part into
// segments; the segments between two of them touch keys of their own
// shards only, so they may go in any order, but not across the cut.
func mergeParts(lists [][]item, pos, at []int) ([]Command, error) {
	type cursor struct{ body []txRec }
	cur := make([]cursor, len(at))
	for k, i := range at {
		cur[k].body = lists[i][pos[i]].body
	}
	db := 0
	if len(cur[0].body) > 0 {
		db = cur[0].body[0].cmd.DB
	}
	out := []Command{{DB: db, Argv: [][]byte{wordMulti}}}
	for {
		for k := range cur {
			for len(cur[k].body) > 0 && !cur[k].body[0].shared {
				out = append(out, cur[k].body[0].cmd)
				cur[k].body = cur[k].body[1:]
			}
		}
		done := 0
		for k := range cur {
			if len(cur[k].body) == 0 {
				done++
			}
		}
		if done == len(cur) {
			break
		}
		if done > 0 {
			return nil, errors.New("its parts carry different shared records")
		}
		first := cur[0].body[0].cmd
		for k := range cur {
			c := cur[k].body[0].cmd
			if c.DB != first.DB || !sameArgv(c.Argv, first.Argv) {
				return nil, errors.New("its parts carry different shared records")
			}
			cur[k].body = cur[k].body[1:]
		}
		out = append(out, first)
	}
	last := out[len(out)-1].DB
	return append(out, Command{DB: last, Argv: [][]byte{wordExec}}), nil
}

func sameArgv(a, b [][]byte) bool {
	if len(a) != len(b) || !bytes.EqualFold(a[0], b[0]) {
		return false
	}
	for i := 1; i < len(a); i++ {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
