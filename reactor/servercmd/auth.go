package servercmd

import (
	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
)

// Errors of HELLO, with Redis 7's wording.
const (
	errNoProto     resp.Error = "NOPROTO unsupported protocol version"
	errProtoNotInt resp.Error = "ERR Protocol version is not an integer or out of range"
	errHelloNoAuth resp.Error = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
)

// Auth is AUTH [user] password.
func Auth(c Core, cn Conn, argv [][]byte) {
	var user, pass []byte
	switch len(argv) {
	case 2:
		pass = argv[1]
	case 3:
		user, pass = argv[1], argv[2]
	default:
		cn.Error(resp.ErrSyntax)
		return
	}
	e := c.CheckPass(user, pass)
	redact(argv[1:])
	if e != "" {
		cn.Error(e)
		return
	}
	cn.SetAuthed()
	cn.OK()
}

// redact replaces args, in the request's own argument vector, with
// Redacted once the command has read them, so that the slow log never
// holds them.
func redact(args [][]byte) {
	for i := range args {
		args[i] = Redacted
	}
}

// Hello is HELLO [protover [AUTH user pass] [SETNAME name]].
func Hello(c Core, cn Conn, argv [][]byte) {
	proto := cn.Proto()
	if len(argv) >= 2 {
		v, ok := resp.ParseInt(argv[1])
		if !ok {
			cn.Error(errProtoNotInt)
			return
		}
		if v != 2 && v != 3 {
			cn.Error(errNoProto)
			return
		}
		proto = int(v)
	}
	// Like Redis, each option takes effect as it is read: an AUTH or a
	// SETNAME before a bad option holds even though HELLO fails.
	for i := 2; i < len(argv); i++ {
		more := len(argv) - i - 1
		switch {
		case resp.EqualFold(argv[i], "auth") && more >= 2:
			e := c.CheckPass(argv[i+1], argv[i+2])
			redact(argv[i+1 : i+3])
			if e != "" {
				cn.Error(e)
				return
			}
			cn.SetAuthed()
			i += 2
		case resp.EqualFold(argv[i], "setname") && more >= 1:
			if !ValidClientName(argv[i+1]) {
				cn.Error(ErrClientName)
				return
			}
			cn.SetName(argv[i+1])
			i++
		default:
			cn.Error(resp.Error("ERR Syntax error in HELLO option '" + string(argv[i]) + "'"))
			return
		}
	}
	if !cn.Authed() {
		cn.Error(errHelloNoAuth)
		return
	}
	cn.SetProto(proto)
	w := cn.Begin()
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(settings.RedisVersion)
	w.BulkString("proto")
	w.Int(int64(proto))
	w.BulkString("id")
	w.Int(cn.ID())
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	w.BulkString("master")
	w.BulkString("modules")
	w.Array(0)
	cn.End()
}
