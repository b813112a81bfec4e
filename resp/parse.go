package resp

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// Limits of the request protocol, with Redis's defaults.
const (
	// MaxBulkLen is the largest bulk argument a client may declare
	// (proto-max-bulk-len).
	MaxBulkLen = 512 << 20
	// MaxMultibulkLen is the most arguments one request may declare. Redis 7
	// accepts up to INT_MAX; we keep the older 1M bound so that a single
	// request's argument vector stays small.
	MaxMultibulkLen = 1 << 20
	// MaxInlineLen bounds an inline request line and the count lines of a
	// multibulk request (PROTO_INLINE_MAX_SIZE).
	MaxInlineLen = 64 << 10
	// MaxQueryBuffer is the most unparsed input a connection may hold
	// (client-query-buffer-limit). The parser does not enforce it: the reader
	// closes the connection, without a reply, when its buffer passes it.
	MaxQueryBuffer = 1 << 30
)

// ProtocolError is a malformed request. Msg is Redis's text; the reply is
// "-ERR " followed by it, after which the connection must be closed because
// the position of the next request can no longer be trusted.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return e.Msg }

// Reply is the error reply to send before closing the connection.
func (e *ProtocolError) Reply() Error { return Error("ERR " + e.Msg) }

// Protocol errors with fixed text. They are shared values so that rejecting a
// request costs no allocation; compare with errors.Is or ==.
var (
	ErrInvalidMultibulkLen = &ProtocolError{"Protocol error: invalid multibulk length"}
	ErrInvalidBulkLen      = &ProtocolError{"Protocol error: invalid bulk length"}
	ErrTooBigInline        = &ProtocolError{"Protocol error: too big inline request"}
	ErrTooBigMbulkCount    = &ProtocolError{"Protocol error: too big mbulk count string"}
	ErrTooBigBulkCount     = &ProtocolError{"Protocol error: too big bulk count string"}
	ErrUnbalancedQuotes    = &ProtocolError{"Protocol error: unbalanced quotes in request"}
	ErrUnauthMultibulkLen  = &ProtocolError{"Protocol error: unauthenticated multibulk length"}
	ErrUnauthBulkLen       = &ProtocolError{"Protocol error: unauthenticated bulk length"}
)

// expectedDollar is the error for a bulk header that does not start with '$'.
// Redis prints the offending byte raw, so we do too.
func expectedDollar(c byte) *ProtocolError {
	return &ProtocolError{"Protocol error: expected '$', got '" + string([]byte{c}) + "'"}
}

// Limits for a client that must still authenticate (Redis's fix for
// CVE-2021-32675): a stranger cannot make the server buffer large requests.
const (
	UnauthMultibulkLen = 10
	UnauthBulkLen      = 16 << 10
)

// ParseCommand parses the request at the start of buf and appends its
// arguments to argv[:0]. The arguments are slices of buf, capped at their own
// length so that appending to one cannot overwrite the next; they are valid
// only until buf is reused. n is the number of bytes the request took.
//
// If buf does not yet hold a whole request, n is 0 and err is nil: read more
// and call again with the same start. A request with no arguments (an empty
// inline line, "*0", a negative count) is consumed with n > 0 and len(args)
// == 0, and the caller simply moves on. On error the connection is beyond
// repair: reply with err's Reply and close.
//
// Inline requests are decoded in place, so ParseCommand may rewrite the bytes
// of buf[:n]. ParseCommand keeps no state, so a request that arrives in k
// pieces is scanned k times; a connection uses a Parser instead.
//
// args has length 0 unless a request was parsed, but it is always argv grown
// as needed, so that passing args[:0] to the next call keeps its capacity.
func ParseCommand(buf []byte, argv [][]byte) (args [][]byte, n int, err error) {
	args = argv[:0]
	if len(buf) == 0 {
		return args, 0, nil
	}
	if buf[0] == '*' {
		return parseMultibulk(buf, args, false)
	}
	return parseInline(buf, args)
}

// Parser parses one connection's requests, as ParseCommand does, but
// remembers how far it got into a request that has not fully arrived, so
// that each byte is looked at a bounded number of times however the request
// is split: the arguments already parsed, as offsets from the request's start
// because the caller may move its buffer between calls; the header or data
// it waits for; and how much of an unfinished line it has searched.
//
// Between calls that return n == 0, the caller must pass the same request
// again, at the start of buf, with the bytes already passed unchanged and
// more after them; a request must stay under 4 GiB (the reactor closes a
// connection at MaxQueryBuffer). To parse something else instead, call Reset
// first. The zero Parser is ready.
type Parser struct {
	// Unauthenticated applies the limits for a client that must still
	// authenticate; set it before each call.
	Unauthenticated bool

	count int    // arguments still to parse; 0 outside a multibulk request
	pos   int    // offset from the request's start of the next header or data
	bulk  int    // length of the bulk whose header is read, -1 if none
	scan  int    // bytes after the line start already searched for its end
	args  []span // arguments parsed by earlier calls

	// scanned counts the bytes the resumable path searched for line ends,
	// the work per byte received that tests hold constant. (The one-pass
	// path runs at most once per request, on its first call.)
	scanned int
}

// span is an argument's place in the request, from the request's start.
type span struct{ start, end uint32 }

// spansKeep is the most argument offsets a Parser keeps between requests; a
// request with more leaves them to the collector when it is done.
const spansKeep = 1024

// Room for a request's arguments is made at once, rather than one append at
// a time, which for a thousand arguments leaves a trail of smaller copies
// behind and can end past what a caller keeps between requests. The room
// follows the bytes that arrived, not the count a client declared, which
// costs it a few bytes: an argument takes at least minArgBytes ("$0\r\n\r\n").
// Requests of up to argsGrowMin arguments grow as they go.
const (
	minArgBytes = 6
	argsGrowMin = 16
)

// aheadRoom is how many arguments of a request of count to make room for
// when n bytes of it have arrived.
func aheadRoom(count, n int) int {
	if count <= argsGrowMin {
		return 0
	}
	return min(count, n/minArgBytes)
}

// growExact makes room in s for n more elements, of exactly that size
// (slices.Grow rounds up to an allocation class, which can pass what a
// caller keeps between requests).
func growExact[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	grown := make([]T, len(s), len(s)+n)
	copy(grown, s)
	return grown
}

// Reset forgets the request in progress.
func (p *Parser) Reset() {
	p.count, p.pos, p.bulk, p.scan = 0, 0, 0, 0
	if cap(p.args) > spansKeep {
		p.args = nil
	}
	p.args = p.args[:0]
}

// Parse parses the request at the start of buf; see ParseCommand for the
// results and Parser for what must hold between calls.
func (p *Parser) Parse(buf []byte, argv [][]byte) (args [][]byte, n int, err error) {
	args = argv[:0]
	if len(buf) == 0 {
		return args, 0, nil
	}
	if p.count == 0 && p.scan == 0 {
		// A new request: most arrive whole, and are parsed in one pass that
		// keeps no state. Only one that has not yet fully arrived is parsed
		// again below, noting where it stops.
		if buf[0] == '*' {
			args, n, err = parseMultibulk(buf, args, p.Unauthenticated)
		} else {
			args, n, err = parseInline(buf, args)
		}
		if n > 0 || err != nil {
			return args, n, err
		}
	}
	if buf[0] == '*' {
		args, n, err = p.multibulk(buf, args)
	} else {
		args, n, err = p.inline(buf, args)
	}
	if err != nil {
		p.Reset()
	}
	return args, n, err
}

// find returns the index in buf of the first c at or after from, searching
// at most MaxInlineLen+1 bytes, or -1. It goes on where the last call for
// the same line stopped, so a line that trickles in is searched once.
func (p *Parser) find(buf []byte, from int, c byte) int {
	w := buf[from:]
	if len(w) > MaxInlineLen+1 {
		w = w[:MaxInlineLen+1]
	}
	i := bytes.IndexByte(w[p.scan:], c)
	if i < 0 {
		p.scanned += len(w) - p.scan
		p.scan = len(w)
		return -1
	}
	p.scanned += i + 1
	p.scan += i
	return from + p.scan
}

// multibulk parses a multibulk request that has not fully arrived, as
// parseMultibulk does, noting the offsets of the arguments in p.args and where
// it stopped, so that each call goes on from there.
func (p *Parser) multibulk(buf []byte, args [][]byte) ([][]byte, int, error) {
	if p.count == 0 {
		cr := p.find(buf, 0, '\r')
		if cr < 0 {
			if len(buf) > MaxInlineLen {
				return args, 0, ErrTooBigMbulkCount
			}
			return args, 0, nil
		}
		if cr+1 >= len(buf) {
			return args, 0, nil
		}
		count, err := multibulkLen(buf[1:cr], p.Unauthenticated)
		if err != nil {
			return args, 0, err
		}
		p.scan = 0
		if count <= 0 {
			return args, cr + 2, nil
		}
		p.count, p.pos, p.bulk = count, cr+2, -1
	}
	p.args = growExact(p.args, aheadRoom(p.count, len(buf)-p.pos))
	for p.count > 0 {
		if p.bulk < 0 {
			if p.pos >= len(buf) {
				return args, 0, nil
			}
			cr := p.find(buf, p.pos, '\r')
			if cr < 0 {
				if len(buf)-p.pos > MaxInlineLen {
					return args, 0, ErrTooBigBulkCount
				}
				return args, 0, nil
			}
			if cr+1 >= len(buf) {
				return args, 0, nil
			}
			size, err := bulkLen(buf[p.pos:], cr-p.pos, p.Unauthenticated)
			if err != nil {
				return args, 0, err
			}
			p.scan = 0
			p.pos, p.bulk = cr+2, size
		}
		if len(buf)-p.pos < p.bulk+2 {
			return args, 0, nil
		}
		end := p.pos + p.bulk
		p.args = append(p.args, span{uint32(p.pos), uint32(end)})
		p.pos, p.bulk = end+2, -1
		p.count--
	}
	args = growExact(args, len(p.args))
	for _, s := range p.args {
		args = append(args, buf[s.start:s.end:s.end])
	}
	n := p.pos
	p.Reset()
	return args, n, nil
}

// inline parses an inline request that has not fully arrived, as
// parseInline does: only the search for the line's end is remembered between
// calls, and the line is split once it is whole.
func (p *Parser) inline(buf []byte, args [][]byte) ([][]byte, int, error) {
	// A line is too long when its LF lies past MaxInlineLen, however the
	// bytes arrived; Redis only notices between reads, so this is what it
	// does when the line trickles in. Unlike Redis, which searches with
	// strchr and so stops at a NUL, the line is found and split byte-exactly.
	lf := p.find(buf, 0, '\n')
	if lf < 0 {
		if len(buf) > MaxInlineLen {
			return args, 0, ErrTooBigInline
		}
		return args, 0, nil
	}
	p.scan = 0
	return splitLine(buf, lf, args)
}

// multibulkLen checks the count of a "*<count>" line, in Redis's order.
// The count is checked before anything is sized by it; argv then grows only
// with arguments that have actually arrived.
func multibulkLen(digits []byte, unauth bool) (int, error) {
	count, ok := ParseInt(digits)
	if !ok || count > math.MaxInt32 {
		return 0, ErrInvalidMultibulkLen
	}
	if count > UnauthMultibulkLen && unauth {
		return 0, ErrUnauthMultibulkLen
	}
	if count > MaxMultibulkLen {
		return 0, ErrInvalidMultibulkLen
	}
	return int(count), nil
}

// bulkLen checks the "$<len>" line at the start of rest, which ends with
// the CR at rest[cr].
func bulkLen(rest []byte, cr int, unauth bool) (int, error) {
	if rest[0] != '$' {
		return 0, expectedDollar(rest[0])
	}
	size, ok := ParseInt(rest[1:cr])
	if !ok || size < 0 || size > MaxBulkLen {
		return 0, ErrInvalidBulkLen
	}
	if size > UnauthBulkLen && unauth {
		return 0, ErrUnauthBulkLen
	}
	return int(size), nil
}

// Results of countLine that are not the index of a CR.
const (
	needMore = -1
	tooLong  = -2
)

// countLine finds the CR that ends a "*<n>" or "$<n>" line starting at
// buf[0]. It returns the CR's index, needMore, or tooLong when the line has
// grown past where Redis stops waiting for its end. As in Redis the byte
// after CR is skipped without being looked at, and the search gives up after
// MaxInlineLen bytes.
func countLine(buf []byte) int {
	w := buf
	if len(w) > MaxInlineLen+1 {
		w = w[:MaxInlineLen+1]
	}
	cr := bytes.IndexByte(w, '\r')
	if cr < 0 {
		if len(buf) > MaxInlineLen {
			return tooLong
		}
		return needMore
	}
	if cr+1 >= len(buf) {
		return needMore
	}
	return cr
}

// shortHeader reads the common count or bulk header at the start of b
// without a search for its CR: kind ('*' or '$'), at most 8 digits with no
// leading zero, CR, and a byte after the CR. ok is false for anything else,
// which the general path then reads (and rejects, where it must) as before;
// when ok, n is what that path would read and hdr the header's length with
// its CRLF.
func shortHeader(b []byte, kind byte) (n, hdr int, ok bool) {
	if len(b) < 4 || b[0] != kind {
		return 0, 0, false
	}
	for i := 1; i < len(b) && i <= 9; i++ {
		c := b[i]
		if c == '\r' {
			if i == 1 || i+1 >= len(b) {
				return 0, 0, false
			}
			return n, i + 2, true
		}
		if c < '0' || c > '9' || (i > 1 && n == 0) {
			return 0, 0, false
		}
		n = n*10 + int(c-'0')
	}
	return 0, 0, false
}

// multibulkHeader reads the "*<count>" line at the start of buf: the count
// and the offset after its CRLF, or pos 0 when more must arrive or err.
func multibulkHeader(buf []byte, unauth bool) (count, pos int, err error) {
	cr := countLine(buf)
	switch cr {
	case needMore:
		return 0, 0, nil
	case tooLong:
		return 0, 0, ErrTooBigMbulkCount
	}
	if count, err = multibulkLen(buf[1:cr], unauth); err != nil {
		return 0, 0, err
	}
	return count, cr + 2, nil
}

// parseMultibulk parses a multibulk request in one pass, keeping no state:
// the path of a request that has arrived whole. As in Redis, the two bytes
// after a bulk's data are taken to be CRLF without checking.
func parseMultibulk(buf []byte, args [][]byte, unauth bool) ([][]byte, int, error) {
	count, pos, ok := shortHeader(buf, '*')
	if !ok || count > MaxMultibulkLen || (count > UnauthMultibulkLen && unauth) {
		var err error
		if count, pos, err = multibulkHeader(buf, unauth); pos == 0 {
			return args[:0], 0, err
		}
	}
	args = growExact(args, aheadRoom(count, len(buf)-pos))
	for ; count > 0; count-- {
		rest := buf[pos:]
		if len(rest) == 0 {
			return args[:0], 0, nil
		}
		if size, hdr, ok := shortHeader(rest, '$'); ok && (size <= UnauthBulkLen || !unauth) {
			start := pos + hdr
			if len(buf)-start < size+2 {
				return args[:0], 0, nil
			}
			end := start + size
			args = append(args, buf[start:end:end])
			pos = end + 2
			continue
		}
		cr := countLine(rest)
		switch cr {
		case needMore:
			return args[:0], 0, nil
		case tooLong:
			return args[:0], 0, ErrTooBigBulkCount
		}
		// bulkLen, by hand: this loop is the hot path.
		if rest[0] != '$' {
			return args[:0], 0, expectedDollar(rest[0])
		}
		size, ok := ParseInt(rest[1:cr])
		if !ok || size < 0 || size > MaxBulkLen {
			return args[:0], 0, ErrInvalidBulkLen
		}
		if size > UnauthBulkLen && unauth {
			return args[:0], 0, ErrUnauthBulkLen
		}
		start := pos + cr + 2
		end := start + int(size)
		if len(buf)-start < int(size)+2 {
			return args[:0], 0, nil
		}
		args = append(args, buf[start:end:end])
		pos = end + 2
	}
	return args, pos, nil
}

// parseInline parses an inline request line in one pass, keeping no state.
func parseInline(buf []byte, args [][]byte) ([][]byte, int, error) {
	w := buf
	if len(w) > MaxInlineLen+1 {
		w = w[:MaxInlineLen+1]
	}
	lf := bytes.IndexByte(w, '\n')
	if lf < 0 {
		if len(buf) > MaxInlineLen {
			return args, 0, ErrTooBigInline
		}
		return args, 0, nil
	}
	return splitLine(buf, lf, args)
}

// splitLine splits the inline request that ends with the LF at buf[lf].
func splitLine(buf []byte, lf int, args [][]byte) ([][]byte, int, error) {
	end := lf
	if end > 0 && buf[end-1] == '\r' {
		end--
	}
	args, ok := SplitArgs(buf[:end], args)
	if !ok {
		return args[:0], 0, ErrUnbalancedQuotes
	}
	return args, lf + 1, nil
}

// isSpace is C's isspace in the C locale, which Redis uses to skip blanks
// between inline arguments and to check what follows a closing quote.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// SplitWords is SplitArgs of a copy of s, the words as strings: for the
// lines Redis also reads with sdssplitargs (an AOF manifest's, a script's
// shebang).
func SplitWords(s string) ([]string, bool) {
	args, ok := SplitArgs([]byte(s), nil)
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = string(a)
	}
	return words, ok
}

// SplitArgs splits a line the way Redis's sdssplitargs does (an inline
// command) and appends the arguments; it reports false for an unbalanced
// quote or a closing quote that does not end its word. Quoted text is
// decoded in place: every escape or quote is longer than what it stands
// for, so the write index w never passes the read index i and each
// argument is still a slice of line.
func SplitArgs(line []byte, args [][]byte) ([][]byte, bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		start, w := i, i
		inDouble, inSingle := false, false
	token:
		for {
			if i == len(line) {
				if inDouble || inSingle {
					return args, false
				}
				break
			}
			c := line[i]
			switch {
			case inDouble:
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x':
					hi, ok1 := unhex(line[i+2])
					lo, ok2 := unhex(line[i+3])
					if ok1 && ok2 {
						line[w] = hi<<4 | lo
						w++
						i += 4
						continue
					}
					line[w] = 'x'
					w++
					i += 2
				case c == '\\' && i+1 < len(line):
					switch e := line[i+1]; e {
					case 'n':
						line[w] = '\n'
					case 'r':
						line[w] = '\r'
					case 't':
						line[w] = '\t'
					case 'b':
						line[w] = '\b'
					case 'a':
						line[w] = '\a'
					default:
						line[w] = e
					}
					w++
					i += 2
				case c == '"':
					// A closing quote must end the argument.
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return args, false
					}
					i++
					break token
				default:
					line[w] = c
					w++
					i++
				}
			case inSingle:
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					line[w] = '\''
					w++
					i += 2
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return args, false
					}
					i++
					break token
				default:
					line[w] = c
					w++
					i++
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t':
					i++
					break token
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					line[w] = c
					w++
				}
				i++
			}
		}
		args = append(args, line[start:w:w])
	}
}

// EqualFold reports whether b equals lower, ignoring ASCII case in b. lower
// must already be lower case; it is how option names ("ex", "nx") are
// matched without converting the client's bytes to a string.
func EqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// ParseInt parses b as a signed decimal int64 with Redis's string2ll rules:
// an optional '-', then digits with no leading zero (except "0" itself), no
// '+', no spaces, no "-0", and no overflow. Being this strict is what makes
// "007" and "1 " strings rather than integers, as they are in Redis.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	if b[0] == '-' {
		neg = true
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseFloat parses b as a float64 with the rules Redis applies to scores and
// increments (strtod, with the whole input consumed): an optional sign,
// decimal digits with an optional point and exponent ("1e3", ".5", "1."),
// "inf" or "infinity" in any case, or a hexadecimal float ("0x1p-2", "0x1A").
// Leading or trailing bytes, "nan", and values that overflow or underflow to
// zero are rejected. It allocates only when rejecting a value out of range.
func ParseFloat(b []byte) (float64, bool) {
	if neg, word := cutSign(b); EqualFold(word, "inf") || EqualFold(word, "infinity") {
		return signedInf(neg), true
	}
	end, hex, nonzero := scanNumber(b)
	if end == 0 || end != len(b) {
		return 0, false
	}
	f, err := numberValue(b, hex)
	if err != nil || (f == 0 && nonzero) {
		return 0, false
	}
	return f, true
}

// ParseFloatPrefix reads b as C's strtod does (how Redis reads DEBUG
// SLEEP's time): leading white space is skipped, the longest prefix that
// forms a number counts and the rest is ignored, text with no number reads
// as 0, "nan" and "inf" prefixes read as such, and a value past the range
// reads as ±Inf or 0.
func ParseFloatPrefix(b []byte) float64 {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	b = b[i:]
	neg, word := cutSign(b)
	switch {
	case len(word) >= 3 && EqualFold(word[:3], "nan"):
		return math.NaN()
	case len(word) >= 3 && EqualFold(word[:3], "inf"):
		return signedInf(neg)
	}
	end, hex, _ := scanNumber(b)
	if end == 0 {
		return 0
	}
	f, _ := numberValue(b[:end], hex)
	return f
}

// ParseIntPrefix reads a base-10 integer the way C's strtoll does (how Redis
// reads atoi-style arguments): leading white space and a sign, then digits,
// a value past int64 taken as the nearest end of it. end is the index after
// the number, or 0 when there is none.
func ParseIntPrefix(b []byte) (n int64, end int) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var u uint64
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if u < 1<<60 {
			u = u*10 + uint64(b[i]-'0')
		} else {
			u = 1<<63 + 1 // a digit more passes 2^63: past both ends
		}
	}
	if i == start {
		return 0, 0
	}
	switch {
	case neg && u >= 1<<63:
		return math.MinInt64, i
	case neg:
		return -int64(u), i
	case u > math.MaxInt64:
		return math.MaxInt64, i
	}
	return int64(u), i
}

// cutSign splits an optional leading sign off b.
func cutSign(b []byte) (neg bool, rest []byte) {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		return b[0] == '-', b[1:]
	}
	return false, b
}

func signedInf(neg bool) float64 {
	if neg {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

func isMantissaDigit(c byte, hex bool) bool {
	if hex {
		_, ok := unhex(c)
		return ok
	}
	return '0' <= c && c <= '9'
}

// scanNumber finds the longest prefix of b that strtod's grammar reads as a
// finite number (a sign, decimal or hexadecimal digits with an optional
// point, an optional exponent), so that strconv sees only text both agree
// on. It returns the prefix's end (0 when there is none), whether it is
// hexadecimal, and whether its mantissa has a nonzero digit (to tell
// underflow from a real zero).
func scanNumber(b []byte) (end int, hex, nonzero bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	rest := b[i:]
	if len(rest) > 2 && rest[0] == '0' && rest[1]|0x20 == 'x' {
		_, digit := unhex(rest[2])
		if digit || (rest[2] == '.' && len(rest) > 3 && isMantissaDigit(rest[3], true)) {
			hex = true
			i += 2
		}
	}
	mant := 0
	for ; i < len(b) && isMantissaDigit(b[i], hex); i++ {
		mant++
		nonzero = nonzero || b[i] != '0'
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && isMantissaDigit(b[i], hex); i++ {
			mant++
			nonzero = nonzero || b[i] != '0'
		}
	}
	if mant == 0 {
		return 0, false, false
	}
	end = i
	expChar := byte('e')
	if hex {
		expChar = 'p'
	}
	if i < len(b) && b[i]|0x20 == expChar {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		digits := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j > digits {
			end = j
		}
	}
	return end, hex, nonzero
}

// numberValue converts a number scanNumber accepted whole.
func numberValue(b []byte, hex bool) (float64, error) {
	if hex && bytes.IndexAny(b, "pP") < 0 {
		// Go insists on a 'p' exponent after a hexadecimal mantissa;
		// strtod does not, so supply "p0".
		var tmp [64]byte
		t := append(append(tmp[:0], b...), 'p', '0')
		return strconv.ParseFloat(unsafe.String(unsafe.SliceData(t), len(t)), 64)
	}
	return strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
}
