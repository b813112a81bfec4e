// Package monitorline owns the form of a MONITOR line, as Redis 7.0 writes
// it: the time, the database and client address, and the quoted arguments.
package monitorline

import (
	"strconv"
	"time"
)

// Append appends the line Redis 7.0 shows a monitor for a command:
// "+<seconds>.<microseconds> [<db> <ip:port>] " and the quoted arguments
// separated by spaces, then CRLF.
func Append(dst []byte, now time.Time, db int, addr string, argv [][]byte) []byte {
	dst = append(dst, '+')
	dst = strconv.AppendInt(dst, now.Unix(), 10)
	dst = append(dst, '.')
	us := now.Nanosecond() / 1000
	for d := 100000; d > 1 && us < d; d /= 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, int64(us), 10)
	dst = append(dst, " ["...)
	dst = strconv.AppendInt(dst, int64(db), 10)
	dst = append(dst, ' ')
	dst = append(dst, addr...)
	dst = append(dst, "] "...)
	for i, a := range argv {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = AppendQuoted(dst, a)
	}
	return append(dst, '\r', '\n')
}

// AppendQuoted appends b in double quotes the way Redis's sdscatrepr
// writes it: printable ASCII as is, backslash and quote escaped, the
// usual control characters by their C escapes, any other byte as \xhh.
func AppendQuoted(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, ch := range b {
		switch ch {
		case '\\', '"':
			dst = append(dst, '\\', ch)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if ch >= ' ' && ch <= '~' {
				dst = append(dst, ch)
			} else {
				dst = append(dst, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(dst, '"')
}

// Time reads the time (µs) at the head of a MONITOR line.
func Time(line []byte) int64 {
	var sec, us int64
	i := 1
	for ; i < len(line) && line[i] != '.'; i++ {
		sec = sec*10 + int64(line[i]-'0')
	}
	for i++; i < len(line) && line[i] != ' '; i++ {
		us = us*10 + int64(line[i]-'0')
	}
	return sec*1e6 + us
}
