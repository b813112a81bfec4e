package aof

import (
	"bytes"
	"errors"
	"strconv"
	"sync"

	"github.com/corekv/corekv/resp"
)

// Reading an incremental file: the records the journal wrote (RESP
// commands, SELECT where the database changes, MULTI … EXEC blocks) and its
// annotation lines, '#' to CRLF. "#tx <id> <parts>" marks the block after it
// as one part of a transaction over several shards; "#all" marks a record
// that every part carries, which on the owning shard is just a record; any
// other line (Redis's "#TS:<unix>") is skipped, as Redis's loader does.

// ReplayFunc runs one command of a replayed file: argv in database db.
type ReplayFunc func(db int, argv [][]byte) error

// Whole reports whether transaction id has all its parts in the files being
// loaded. A nil Whole takes every transaction as whole.
type Whole func(id uint64) bool

// ErrTruncated says that the data ends inside a record, an annotation line
// or a MULTI … EXEC block: the tail was cut off, not written wrong.
var ErrTruncated = errors.New("aof: the file ends inside a record or a transaction block")

// A FormatError is something in the data that no file the journal or Redis
// writes holds: Msg says what was expected, Offset where it was not found
// (the byte that does not fit, or the start of a record that makes no sense
// where it stands).
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return "aof: " + e.Msg + " at offset " + strconv.FormatInt(e.Offset, 10)
}

func bad(off int, msg string) error { return &FormatError{Offset: int64(off), Msg: msg} }

// maxNoteLen bounds an annotation line, CRLF included: a '#' with no line
// end that far on is garbage, not a line cut short.
const maxNoteLen = resp.MaxInlineLen

// maxParts bounds the part count of a #tx line, and maxDB a SELECT's index.
const (
	maxParts = 1<<31 - 1
	maxDB    = 1<<31 - 1
)

// argvPool keeps the argument vectors Replay and Parts fill, so that a
// replay allocates nothing once warm.
var argvPool = sync.Pool{New: func() any {
	s := make([][]byte, 0, 16)
	return &s
}}

// argvKeep is the most arguments a pooled vector keeps room for.
const argvKeep = 1024

func getArgv() *[][]byte { return argvPool.Get().(*[][]byte) }

func putArgv(p *[][]byte, argv [][]byte) {
	if cap(argv) > argvKeep {
		return
	}
	clear(argv[:cap(argv)]) // hold on to none of the caller's data
	*p = argv[:0]
	argvPool.Put(p)
}

// unit is one thing scan read: an annotation line or a record.
type unit struct {
	isNote bool
	note   []byte   // an annotation line's text, between '#' and CRLF
	argv   [][]byte // a record's arguments, in data
	end    int      // the offset just after it
}

// scan reads the annotation line or record at off, which is inside data.
// A record's arguments go into argv from its start; u.argv is argv grown,
// for the next call.
func scan(data []byte, off int, argv [][]byte) (u unit, err error) {
	u.argv = argv[:0]
	switch data[off] {
	case '#':
		limit := min(len(data), off+maxNoteLen)
		i := bytes.IndexByte(data[off:limit], '\n')
		if i < 0 {
			if limit == len(data) {
				return u, ErrTruncated
			}
			return u, bad(off, "annotation line over "+strconv.Itoa(maxNoteLen)+" bytes")
		}
		nl := off + i
		if data[nl-1] != '\r' {
			return u, bad(nl, "expected CRLF")
		}
		u.isNote, u.note, u.end = true, data[off+1:nl-1], nl+1
		return u, nil
	case '*':
	default:
		return u, bad(off, "expected '*' or '#'")
	}
	n, at, err := number(data, off+1, 1, resp.MaxMultibulkLen, "argument count")
	if err != nil {
		return u, err
	}
	for range n {
		if at >= len(data) {
			return u, ErrTruncated
		}
		if data[at] != '$' {
			return u, bad(at, "expected '$'")
		}
		l, next, err := number(data, at+1, 0, resp.MaxBulkLen, "argument length")
		if err != nil {
			return u, err
		}
		if l > len(data)-next {
			return u, ErrTruncated
		}
		end := next + l
		u.argv = append(u.argv, data[next:end:end])
		if err := crlf(data, end); err != nil {
			return u, err
		}
		at = end + 2
	}
	u.end = at
	return u, nil
}

// number reads the decimal number and CRLF of a header, from at: a number
// in [least, most], with no sign and no leading zero, named what in
// errors. It returns the offset after the CRLF.
func number(data []byte, at, least, most int, what string) (n, next int, err error) {
	if at >= len(data) {
		return 0, 0, ErrTruncated
	}
	switch c := data[at]; {
	case c == '-':
		return 0, 0, bad(at, "negative "+what)
	case c < '0' || c > '9':
		return 0, 0, bad(at, "expected a digit")
	case c == '0':
		if least > 0 {
			return 0, 0, bad(at, what+" 0")
		}
		at++
	default:
		for ; at < len(data) && data[at] >= '0' && data[at] <= '9'; at++ {
			n = n*10 + int(data[at]-'0')
			if n > most {
				return 0, 0, bad(at, what+" over "+strconv.Itoa(most))
			}
		}
	}
	if err := crlf(data, at); err != nil {
		return 0, 0, err
	}
	return n, at + 2, nil
}

// crlf checks for CRLF at at; data ending before it is a cut.
func crlf(data []byte, at int) error {
	if at >= len(data) {
		return ErrTruncated
	}
	if data[at] != '\r' {
		return bad(at, "expected CRLF")
	}
	if at+1 >= len(data) {
		return ErrTruncated
	}
	if data[at+1] != '\n' {
		return bad(at+1, "expected CRLF")
	}
	return nil
}

// txLine reads an annotation line's text: whether it is a #tx mark, and
// then its transaction and part count. A line that starts "tx " and is not
// "tx <id> <parts>" is a FormatError at off, the line's start.
func txLine(note []byte, off int) (id uint64, parts int, ok bool, err error) {
	if len(note) < 3 || string(note[:3]) != "tx " {
		return 0, 0, false, nil
	}
	rest := note[3:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return 0, 0, false, bad(off, "expected #tx <id> <parts>")
	}
	id, ok1 := decimal(rest[:sp], 1<<64-1)
	p, ok2 := decimal(rest[sp+1:], maxParts)
	if !ok1 || !ok2 || p == 0 {
		return 0, 0, false, bad(off, "expected #tx <id> <parts>")
	}
	return id, int(p), true, nil
}

// decimal reads b as a decimal number no greater than most: digits only,
// no leading zero.
func decimal(b []byte, most uint64) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (most-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// kinds of record, by what Replay does with them.
const (
	kindCommand = iota
	kindSelect
	kindMulti
	kindExec
)

// classify says what kind of record argv, at off, is; for a SELECT, its
// database.
func classify(argv [][]byte, off int) (kind, db int, err error) {
	name := argv[0]
	switch {
	case foldEqual(name, "MULTI"):
		if len(argv) != 1 {
			return 0, 0, bad(off, "expected MULTI with no arguments")
		}
		return kindMulti, 0, nil
	case foldEqual(name, "EXEC"):
		if len(argv) != 1 {
			return 0, 0, bad(off, "expected EXEC with no arguments")
		}
		return kindExec, 0, nil
	case foldEqual(name, "SELECT"):
		if len(argv) != 2 {
			return 0, 0, bad(off, "expected SELECT <db>")
		}
		v, ok := decimal(argv[1], maxDB)
		if !ok {
			return 0, 0, bad(off, "expected SELECT <db>")
		}
		return kindSelect, int(v), nil
	}
	return kindCommand, 0, nil
}

// foldEqual reports whether b is word (upper case ASCII) in any case.
func foldEqual(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// block reads a MULTI … EXEC block's body, from off just after its MULTI,
// in database db, passing its commands to fn unless fn is nil. It returns
// the offset after the EXEC and the database after the block.
func block(data []byte, off, db int, argv [][]byte, fn ReplayFunc) (end, dbAfter int, argvOut [][]byte, err error) {
	for {
		if off >= len(data) {
			return 0, 0, argv, ErrTruncated
		}
		u, err := scan(data, off, argv)
		argv = u.argv
		if err != nil {
			return 0, 0, argv, err
		}
		if u.isNote {
			if len(u.note) >= 3 && string(u.note[:3]) == "tx " {
				return 0, 0, argv, bad(off, "#tx inside a MULTI block")
			}
			off = u.end
			continue
		}
		kind, sel, err := classify(u.argv, off)
		if err != nil {
			return 0, 0, argv, err
		}
		switch kind {
		case kindMulti:
			return 0, 0, argv, bad(off, "MULTI inside a MULTI block")
		case kindExec:
			return u.end, db, argv, nil
		case kindSelect:
			db = sel
		default:
			if fn != nil {
				if err := fn(db, u.argv); err != nil {
					return 0, 0, argv, err
				}
			}
		}
		off = u.end
	}
}

// Replay calls fn for every command of an incremental file's bytes data,
// in order, with the database it runs in: 0 at the start, then what the
// last SELECT named. SELECT, MULTI and EXEC records are not passed on; the
// commands of a MULTI … EXEC block are, one by one, once the whole block
// has been read (the caller runs them back to back). A block marked
// "#tx id parts" for which whole(id) is false is skipped, all of it, but
// its SELECTs still set the database for what follows: the journal's
// SELECTs follow the stream, blocks included. A nil fn only checks data.
//
// valid is the offset just after the last record read and applied outside
// an open block (after a block, its EXEC; annotation lines count as read,
// but a #tx line counts with its block), so that data[:valid] is data less
// a torn tail. err is nil when data ends there, at a record boundary
// outside a block (then valid is len(data)); ErrTruncated when data ends
// inside a record, an annotation line or a block (a #tx line whose MULTI
// is missing included); a *FormatError when something that is not a
// record or an annotation line comes before the end; or what fn returned,
// at once.
//
// The argument slices point into data, with no room to append, and are
// fn's only until it returns. Replay never panics, runs in time linear in
// len(data), and allocates nothing per command.
func Replay(data []byte, whole Whole, fn ReplayFunc) (valid int64, err error) {
	p := getArgv()
	argv := *p
	v, argv, err := replay(data, whole, fn, argv)
	putArgv(p, argv)
	return int64(v), err
}

func replay(data []byte, whole Whole, fn ReplayFunc, argv [][]byte) (valid int, _ [][]byte, err error) {
	db := 0
	mark := -1 // the offset of a #tx line waiting for its MULTI
	var markID uint64
	for off := 0; off < len(data); {
		u, err := scan(data, off, argv)
		argv = u.argv
		if err != nil {
			return valid, argv, err
		}
		if u.isNote {
			id, _, isTx, err := txLine(u.note, off)
			if err != nil {
				return valid, argv, err
			}
			if isTx {
				mark, markID = off, id
			} else if mark < 0 {
				valid = u.end
			}
			off = u.end
			continue
		}
		kind, sel, err := classify(u.argv, off)
		if err != nil {
			return valid, argv, err
		}
		marked := mark >= 0
		mark = -1
		switch kind {
		case kindMulti:
			end, dbAfter, a, err := block(data, u.end, db, argv, nil)
			argv = a
			if err != nil {
				return valid, argv, err
			}
			if !marked || whole == nil || whole(markID) {
				_, _, a, err = block(data, u.end, db, argv, fn)
				argv = a
				if err != nil {
					return valid, argv, err
				}
			}
			db, valid, off = dbAfter, end, end
			continue
		case kindExec:
			return valid, argv, bad(off, "EXEC without MULTI")
		case kindSelect:
			db = sel
		default:
			if fn != nil {
				if err := fn(db, u.argv); err != nil {
					return valid, argv, err
				}
			}
		}
		valid, off = u.end, u.end
	}
	if mark >= 0 {
		return valid, argv, ErrTruncated
	}
	return valid, argv, nil
}

// TxParts is what the files hold of one transaction: how many of its parts
// are there complete, and how many it has.
type TxParts struct {
	Seen, Declared int
}

// Parts reads the #tx marks of incremental files, one shard's each, and
// returns, for every transaction marked, how many of its parts are there
// complete (the #tx line and all of its MULTI … EXEC block) and how many
// its marks declare (the most, should they differ). It reads records by
// their lengths, so a value that holds "\r\n#tx " is a value; a file that
// ends torn or turns to garbage is read up to there, and a part cut off
// counts as not seen.
func Parts(files ...[]byte) map[uint64]TxParts {
	p := getArgv()
	argv := *p
	m := make(map[uint64]TxParts)
	for _, data := range files {
		argv = parts(data, argv, m)
	}
	putArgv(p, argv)
	return m
}

func parts(data []byte, argv [][]byte, m map[uint64]TxParts) [][]byte {
	marked := false
	var markID uint64
	for off := 0; off < len(data); {
		u, err := scan(data, off, argv)
		argv = u.argv
		if err != nil {
			return argv
		}
		if u.isNote {
			id, n, isTx, err := txLine(u.note, off)
			if err != nil {
				return argv
			}
			if isTx {
				marked, markID = true, id
				t := m[id]
				t.Declared = max(t.Declared, n)
				m[id] = t
			}
			off = u.end
			continue
		}
		kind, _, err := classify(u.argv, off)
		if err != nil {
			return argv
		}
		wasMarked := marked
		marked = false
		switch kind {
		case kindMulti:
			end, _, a, err := block(data, u.end, 0, argv, nil)
			argv = a
			if err != nil {
				return argv
			}
			if wasMarked {
				t := m[markID]
				t.Seen++
				m[markID] = t
			}
			off = end
			continue
		case kindExec:
			return argv
		}
		off = u.end
	}
	return argv
}

// Complete returns the Whole of what Parts found: a transaction is whole
// when all the parts it declares are there. One that Parts never saw
// marked is not.
func Complete(parts map[uint64]TxParts) Whole {
	return func(id uint64) bool {
		t, ok := parts[id]
		return ok && t.Seen >= t.Declared
	}
}
