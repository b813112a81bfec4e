package router

import (
	"strconv"
	"strings"
)

// Arg is one argument of a command as COMMAND DOCS describes it.
type Arg struct {
	Name       string
	Type       string // key, string, integer, double, pattern, unix-time, pure-token, oneof, block
	KeySpec    int    // index of the key spec that finds it, or -1
	Token      string // the word that comes before it, if any
	Since      string
	Deprecated string // version since which it is deprecated
	Flags      []string
	Args       []Arg // a oneof's or block's arguments
}

// argTypes maps the type letters of the Args notation to type names.
var argTypes = map[byte]string{'k': "key", 's': "string", 'i': "integer", 'd': "double", 'p': "pattern",
	't': "unix-time", 'T': "pure-token", 'o': "oneof", 'b': "block"}

// parseArgs reads a table row's Args: arguments separated by spaces, each
//
//	[?][*][+]name[#keyspec][=TOKEN][%type][@since][!deprecated][(args)]
//
// where ? * + are the flags optional, multiple and multiple_token, and
// type is a letter of argTypes. Without a type an argument with a token is
// a pure token (its name, left out, is the token in lower case), one with
// a key spec is a key, and any other a string. A malformed description is
// a bug in the table.
func parseArgs(name, desc string) []Arg {
	if desc == "" {
		return nil
	}
	p := argParser{name: name, s: desc}
	args := p.list()
	if p.i != len(p.s) {
		p.fail()
	}
	return args
}

type argParser struct {
	name string
	s    string
	i    int
}

func (p *argParser) fail() {
	panic("router: " + p.name + ": bad argument list at " + strconv.Quote(p.s[p.i:]))
}

func (p *argParser) list() []Arg {
	var out []Arg
	for {
		out = append(out, p.arg())
		if p.i >= len(p.s) || p.s[p.i] != ' ' {
			return out
		}
		p.i++
	}
}

// token reads a token, which may itself be "=", "~" or "#": up to the next
// delimiter of the notation other than those.
func (p *argParser) token() string {
	start := p.i
	for p.i < len(p.s) && (p.i == start || !strings.ContainsRune("%@!() ", rune(p.s[p.i]))) {
		p.i++
	}
	return p.s[start:p.i]
}

// word reads up to the next delimiter of the notation.
func (p *argParser) word() string {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune("#=%@!() ", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *argParser) arg() Arg {
	a := Arg{KeySpec: -1}
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '?':
			a.Flags = append(a.Flags, "optional")
			continue
		case '*':
			a.Flags = append(a.Flags, "multiple")
			continue
		case '+':
			a.Flags = append(a.Flags, "multiple_token")
			continue
		}
		break
	}
	a.Name = p.word()
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == ')' {
			break
		}
		p.i++
		switch c {
		case '#':
			n, err := strconv.Atoi(p.word())
			if err != nil {
				p.fail()
			}
			a.KeySpec = n
		case '=':
			a.Token = p.token()
		case '%':
			if p.i >= len(p.s) || argTypes[p.s[p.i]] == "" {
				p.fail()
			}
			a.Type = argTypes[p.s[p.i]]
			p.i++
		case '@':
			a.Since = p.word()
		case '!':
			a.Deprecated = p.word()
		case '(':
			a.Args = p.list()
			if p.i >= len(p.s) || p.s[p.i] != ')' {
				p.fail()
			}
			p.i++
		default:
			p.fail()
		}
	}
	switch {
	case a.Type != "":
	case a.Token != "":
		a.Type = "pure-token"
	case a.KeySpec >= 0:
		a.Type = "key"
	default:
		a.Type = "string"
	}
	if a.Name == "" && a.Type == "pure-token" {
		a.Name = strings.ToLower(a.Token)
	}
	if a.Name == "" || (a.Args != nil) != (a.Type == "oneof" || a.Type == "block") {
		p.fail()
	}
	return a
}

// DocArgs returns the command's arguments for COMMAND DOCS.
func (c *Command) DocArgs() []Arg { return c.args }
