package resp

import (
	"bytes"
	"strings"
)

// Error is a reply error whose text is exactly what Redis sends after the '-'.
// Clients and their test suites match on these strings, so each text is
// defined once and spelled nowhere else: here the replies that several
// commands or packages send (ErrSyntax, ErrWrongType, the arity and
// unknown-command texts, …), and a text that one command family sends
// beside that family's handlers (the list errors in shardowner/lists.go,
// MULTI's in reactor/multi.go).
type Error string

func (e Error) Error() string { return string(e) }

// Shared error replies, with Redis 7's wording.
const (
	ErrSyntax        Error = "ERR syntax error"
	ErrWrongType     Error = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInteger    Error = "ERR value is not an integer or out of range"
	ErrNotFloat      Error = "ERR value is not a valid float"
	ErrOverflow      Error = "ERR increment or decrement would overflow"
	ErrIncrNaN       Error = "ERR increment would produce NaN or Infinity"
	ErrNoSuchKey     Error = "ERR no such key"
	ErrNoAuth        Error = "NOAUTH Authentication required."
	ErrWrongPass     Error = "WRONGPASS invalid username-password pair or user is disabled."
	ErrAuthNoPass    Error = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrDBIndex       Error = "ERR DB index is out of range"
	ErrMaxClients    Error = "ERR max number of clients reached"
	ErrStringTooLong Error = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange   Error = "ERR offset is out of range"
	ErrSameObject    Error = "ERR source and destination objects are the same"
	ErrNotPositive   Error = "ERR value is out of range, must be positive"
	ErrCursor        Error = "ERR invalid cursor"
)

// ErrWrongArgs is the arity error for the named command (lower case, as Redis
// prints it).
func ErrWrongArgs(name string) Error {
	return Error("ERR wrong number of arguments for '" + name + "' command")
}

// ErrUnknownCommand is the reply to a command name that is not in the table,
// clipped as Redis 7 clips it: the name at 128 bytes, then each argument in
// single quotes followed by a space, cut to what keeps the list within 128
// bytes, until the list reaches 128 bytes. Redis formats C strings, so a NUL
// ends the name or an argument. CR and LF become spaces when it is written
// (Writer.Err).
func ErrUnknownCommand(argv [][]byte) Error {
	const clip = 128
	b := make([]byte, 0, 96+2*clip)
	b = append(b, "ERR unknown command '"...)
	b = append(b, cString(argv[0], clip)...)
	b = append(b, "', with args beginning with: "...)
	list := len(b)
	for _, a := range argv[1:] {
		n := len(b) - list
		if n >= clip {
			break
		}
		b = append(b, '\'')
		b = append(b, cString(a, clip-n)...)
		b = append(b, '\'', ' ')
	}
	return Error(b)
}

// ErrUnknownSubcommand is a container command's reply to a subcommand it
// does not have: the subcommand as sent, cut as C's "%.128s" cuts it (at a
// NUL, then at 128 bytes), and the container's name in capitals. Every
// container answers with this text (CONFIG, CLIENT, COMMAND, LATENCY,
// OBJECT, MEMORY, PUBSUB, SLOWLOG).
func ErrUnknownSubcommand(cmd string, sub []byte) Error {
	return Error("ERR unknown subcommand '" + string(cString(sub, 128)) + "'. Try " + strings.ToUpper(cmd) + " HELP.")
}

// ErrSubcommandSyntax is the reply of a container that checks a
// subcommand's arguments itself, to a subcommand it lacks or one given the
// wrong number of arguments (DEBUG, SLOWLOG GET, PUBSUB CHANNELS): the
// subcommand cut as in ErrUnknownSubcommand.
func ErrSubcommandSyntax(cmd string, sub []byte) Error {
	return Error("ERR unknown subcommand or wrong number of arguments for '" + string(cString(sub, 128)) +
		"'. Try " + strings.ToUpper(cmd) + " HELP.")
}

// cString is b as C's "%.*s" prints it with precision max: up to the first
// NUL, and at most max bytes.
func cString(b []byte, max int) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) > max {
		b = b[:max]
	}
	return b
}

// ErrInvalidExpire is the reply to an expire time that is not positive or
// overflows when converted to an absolute time in milliseconds.
func ErrInvalidExpire(name string) Error {
	return Error("ERR invalid expire time in '" + name + "' command")
}
