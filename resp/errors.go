package resp

// Error is a reply error whose text is exactly what Redis sends after the '-'.
// Clients and their test suites match on these strings, so they are defined
// once here and never spelled anywhere else.
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

// ErrUnknownCommand is the reply to a command name that is not in the table.
// Redis quotes the name as sent and up to the first arguments, each in single
// quotes followed by a space, cut at 128 bytes each.
func ErrUnknownCommand(argv [][]byte) Error {
	s := "ERR unknown command '" + clip(argv[0]) + "', with args beginning with: "
	for _, a := range argv[1:] {
		if len(s) > 512 {
			break
		}
		s += "'" + clip(a) + "' "
	}
	return Error(s)
}

func clip(b []byte) string {
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}

// ErrInvalidExpire is the reply to an expire time that is not positive or
// overflows when converted to an absolute time in milliseconds.
func ErrInvalidExpire(name string) Error {
	return Error("ERR invalid expire time in '" + name + "' command")
}
