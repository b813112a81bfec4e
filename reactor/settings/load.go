package settings

import (
	"fmt"
	"strconv"
	"strings"
)

// Line is one setting as a config file or the command line gives it: its
// words, and where it was for the error that refuses it.
type Line struct {
	Words []string
	// N is its line number as Redis counts it: the file's lines, then the
	// flags after them (see FlagLines).
	N int
	// Text is the line as the error shows it.
	Text string
}

// LoadError is a setting refused at start, in Redis's words and form.
type LoadError struct {
	Line   Line
	Reason string
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s",
		RedisVersion, e.Line.N, e.Line.Text, e.Reason)
}

// RedisVersion is the Redis version whose behaviour corekv follows.
const RedisVersion = "7.0.15"

// ErrBadDirective is Redis's reason for a line it does not know.
const ErrBadDirective = "Bad directive or wrong number of arguments"

// Apply stores each line's setting in c, in order, stopping at the first one
// refused.
func Apply(c *Config, lines []Line) error {
	for _, l := range lines {
		if reason := applyLine(c, l.Words); reason != "" {
			return &LoadError{Line: l, Reason: reason}
		}
	}
	return nil
}

func applyLine(c *Config, words []string) string {
	s := Find(words[0])
	if s == nil {
		return ErrBadDirective
	}
	args := words[1:]
	if !s.Multi && len(args) != 1 {
		return "wrong number of arguments"
	}
	return s.Set(c, strings.Join(args, " "))
}

// FileLines splits a config file's text into lines of words, skipping
// blank lines and comments.
func FileLines(text string) ([]Line, error) {
	var out []Line
	for i, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || t[0] == '#' {
			continue
		}
		words, ok := SplitLine(t)
		if !ok {
			return nil, &LoadError{Line: Line{N: i + 1, Text: t}, Reason: "Unbalanced quotes in configuration line"}
		}
		out = append(out, Line{Words: words, N: i + 1, Text: t})
	}
	return out, nil
}

// FlagLines turns "--name value..." groups into lines numbered after a file
// of fileText, as Redis appends the flags to the file's text.
func FlagLines(groups [][]string, fileText string) []Line {
	n := strings.Count(fileText, "\n") + 2
	out := make([]Line, len(groups))
	for i, g := range groups {
		text := g[0]
		for _, w := range g[1:] {
			text += " " + strconv.Quote(w)
		}
		out[i] = Line{Words: g, N: n + i, Text: text}
	}
	return out
}

// SplitLine splits a config line into words as redis.conf is read: on
// white space, with double quotes that take Redis's escapes (\n, \r, \t,
// \b, \a, \xHH, and a backslash before any other character for that
// character) and single quotes that take \' only. ok is false when a quote
// is left open or closed quotes are followed by anything but white space.
func SplitLine(s string) (words []string, ok bool) {
	isSpace := func(ch byte) bool {
		return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'
	}
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return words, true
		}
		var cur strings.Builder
		in := byte(0)
		for ; ; i++ {
			if i == len(s) {
				if in != 0 {
					return nil, false
				}
				break
			}
			ch := s[i]
			if in == '"' {
				switch {
				case ch == '\\' && i+3 < len(s) && s[i+1] == 'x' && isHex(s[i+2]) && isHex(s[i+3]):
					cur.WriteByte(unhex(s[i+2])<<4 | unhex(s[i+3]))
					i += 3
				case ch == '\\' && i+1 < len(s):
					i++
					cur.WriteByte(unescape(s[i]))
				case ch == '"':
					if i+1 < len(s) && !isSpace(s[i+1]) {
						return nil, false
					}
					in = 0
				default:
					cur.WriteByte(ch)
				}
				continue
			}
			if in == '\'' {
				switch {
				case ch == '\\' && i+1 < len(s) && s[i+1] == '\'':
					cur.WriteByte('\'')
					i++
				case ch == '\'':
					if i+1 < len(s) && !isSpace(s[i+1]) {
						return nil, false
					}
					in = 0
				default:
					cur.WriteByte(ch)
				}
				continue
			}
			if isSpace(ch) {
				break
			}
			if ch == '"' || ch == '\'' {
				in = ch
				continue
			}
			cur.WriteByte(ch)
		}
		words = append(words, cur.String())
	}
}

// unescape is the byte a backslash and ch stand for in double quotes.
func unescape(ch byte) byte {
	switch ch {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return ch
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

func unhex(ch byte) byte {
	switch {
	case ch >= 'a':
		return ch - 'a' + 10
	case ch >= 'A':
		return ch - 'A' + 10
	}
	return ch - '0'
}
