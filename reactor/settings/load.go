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

// SplitLine splits a config line on spaces, honouring double and single
// quotes as redis.conf does; ok is false when a quote is left open.
func SplitLine(s string) (words []string, ok bool) {
	var cur strings.Builder
	in := byte(0)
	started := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case in != 0 && ch == in:
			in = 0
		case in != 0:
			cur.WriteByte(ch)
		case ch == '"' || ch == '\'':
			in, started = ch, true
		case ch == ' ' || ch == '\t':
			if started {
				words = append(words, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(ch)
			started = true
		}
	}
	if in != 0 {
		return nil, false
	}
	if started {
		words = append(words, cur.String())
	}
	return words, true
}
