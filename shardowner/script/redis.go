package script

import (
	"crypto/sha1"
	"encoding/hex"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Repl is where the effects of the commands a script calls are propagated,
// as redis.set_repl sets it: Redis's PROPAGATE_AOF and PROPAGATE_REPL bits.
type Repl int

// The values of redis.REPL_*.
const (
	ReplNone    Repl = 0
	ReplAOF     Repl = 1
	ReplReplica Repl = 2
	ReplAll     Repl = ReplAOF | ReplReplica
)

// CallContext is what a Host needs to know of the script, beside the
// command, to run it.
type CallContext struct {
	// Resp is the protocol the reply must be written in: 2 until the script
	// calls redis.setresp(3).
	Resp int
	// Repl is where the command's effects go: ReplAll until the script
	// calls redis.set_repl.
	Repl Repl
	// SHA is the running script's.
	SHA string
}

// Host runs the commands a script calls. The server gives one to each run;
// it sees each command as redis.call or redis.pcall passed it.
type Host interface {
	// Call runs argv and appends its reply, in RESP version ctx.Resp, to
	// dst, returning the extended slice. argv[0] is the command name as the
	// script wrote it. argv and its elements are valid only during the
	// call and must not be modified.
	//
	// A command the host refuses is answered as any failed command is, with
	// an error reply ("-ERR This Redis command is not allowed from
	// script\r\n"): Guard says which to refuse and with which texts. The
	// reply must be one whole RESP value.
	//
	// Errors the host replies with are the host's to count in the error
	// statistics: when a script passes such an error on as its own reply,
	// Run says so (Result.Counted) so that the server does not count it
	// twice, as Redis does not.
	Call(ctx CallContext, argv [][]byte, dst []byte) []byte
}

// ACLHost is an optional interface of a Host: redis.acl_check_cmd asks it
// whether the script's user may run argv. Without it every command is
// allowed.
type ACLHost interface {
	// ACLCheck reports whether argv names a command (known) and whether the
	// user running the script may run it with those arguments (allowed).
	ACLCheck(argv [][]byte) (known, allowed bool)
}

// openRedis builds the redis table of scriptingInit and luaRegisterRedisAPI.
func (e *Engine) openRedis() *lua.LTable {
	L := e.vm
	t := L.CreateTable(0, 32)
	set := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	set("call", func(L *lua.LState) int { return e.redisCall(L, true) })
	set("pcall", func(L *lua.LState) int { return e.redisCall(L, false) })
	set("log", e.redisLog)
	t.RawSetString("LOG_DEBUG", lua.LNumber(LogDebug))
	t.RawSetString("LOG_VERBOSE", lua.LNumber(LogVerbose))
	t.RawSetString("LOG_NOTICE", lua.LNumber(LogNotice))
	t.RawSetString("LOG_WARNING", lua.LNumber(LogWarning))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(e.opts.Version)))
	t.RawSetString("REDIS_VERSION", lua.LString(e.opts.Version))
	set("setresp", e.redisSetResp)
	set("sha1hex", redisSha1hex)
	set("error_reply", redisErrorReply)
	set("status_reply", redisStatusReply)
	set("set_repl", e.redisSetRepl)
	t.RawSetString("REPL_NONE", lua.LNumber(ReplNone))
	t.RawSetString("REPL_AOF", lua.LNumber(ReplAOF))
	t.RawSetString("REPL_SLAVE", lua.LNumber(ReplReplica))
	t.RawSetString("REPL_REPLICA", lua.LNumber(ReplReplica))
	t.RawSetString("REPL_ALL", lua.LNumber(ReplAll))
	set("acl_check_cmd", e.redisACLCheck)
	// The debugger is not there: breakpoint answers that it is off, debug
	// does nothing, as in Redis when no SCRIPT DEBUG session runs.
	set("breakpoint", func(L *lua.LState) int {
		L.Push(lua.LFalse)
		return 1
	})
	set("debug", func(L *lua.LState) int { return 0 })
	// Effects replication is the only one since 7.0.
	set("replicate_commands", func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	})
	return t
}

// errorTable is luaPushErrorBuff: the {err=...} table of a failed command.
// text is "-CODE message" (a reply line) or a bare message, which gets the
// ERR code; the message's trailing CR and LF go, and it ends at a NUL as a
// C string does.
func errorTable(L *lua.LState, text string) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(errorText(text)))
	return t
}

// errorText is the err field luaPushErrorBuff builds from text.
func errorText(text string) string {
	code, msg := "ERR", text
	if len(text) > 0 && text[0] == '-' {
		rest := text[1:]
		if i := indexByte(rest, ' '); i >= 0 {
			code, msg = rest[:i], rest[i+1:]
		} else {
			msg = rest
		}
	}
	msg = trimCRLF(msg)
	s := code + " " + msg
	if i := indexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// trimCRLF is sdstrim(s, "\r\n"): CR and LF off both ends.
func trimCRLF(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	for j > i && (s[j-1] == '\r' || s[j-1] == '\n') {
		j--
	}
	return s[i:j]
}

// raiseError raises the error table of text, as redis.call raises a failed
// command.
func raiseError(L *lua.LState, text string) {
	L.Error(errorTable(L, text), 0)
}

// redisCall is redis.call (raise) and redis.pcall (!raise):
// luaRedisGenericCommand.
func (e *Engine) redisCall(L *lua.LState, raise bool) int {
	r := e.cur
	if r == nil {
		raiseError(L, "redis.call/pcall can only be called inside a script invocation")
	}
	argv, ok := e.luaArgs(L)
	if !ok {
		if raise {
			L.Error(L.Get(-1), 0)
		}
		return 1
	}
	if r.inCall {
		// Only a host calling back into the script could get here.
		t := errorTable(L, "luaRedisGenericCommand() recursive call detected. Are you doing funny stuff with Lua debug hooks?")
		L.Push(t)
		return 1
	}
	r.inCall = true
	ctx := CallContext{Resp: r.resp, Repl: r.repl, SHA: r.sha}
	e.reply = r.host.Call(ctx, argv, e.reply[:0])
	r.inCall = false
	// The arguments point into Lua strings and the number buffer; drop them.
	for i := range argv {
		argv[i] = nil
	}
	v, isErr := e.parser.toLua(L, e.reply)
	if len(e.reply) > 64<<10 {
		e.reply = nil // a big reply's buffer is not kept
	}
	if isErr && raise {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// luaArgs is luaArgsToRedisArgv: the call's arguments as a command line, or
// false with the error table pushed. Numbers become text with %.17g, as
// Redis writes them (not Lua's %.14g); strings are passed without a copy.
func (e *Engine) luaArgs(L *lua.LState) ([][]byte, bool) {
	n := L.GetTop()
	if n == 0 {
		L.Push(errorTable(L, "Please specify at least one argument for this redis lib call"))
		return nil, false
	}
	if cap(e.argv) < n {
		e.argv = make([][]byte, n)
	}
	argv := e.argv[:n]
	// Numbers are formatted into numBuf first: its array may move while it
	// grows, so they are sliced once all are written.
	nb := e.numBuf[:0]
	var numEnds [16]int
	numbers := 0
	for i := 1; i <= n; i++ {
		if x, ok := L.Get(i).(lua.LNumber); ok {
			nb = appendG(nb, float64(x), 17)
			if numbers < len(numEnds) {
				numEnds[numbers] = len(nb)
			}
			numbers++
		}
	}
	if numbers > len(numEnds) {
		// Many numbers: slice them as they come, from a buffer that is not
		// going to grow.
		nb = make([]byte, 0, len(nb))
	}
	at, k := 0, 0
	for i := 1; i <= n; i++ {
		switch x := L.Get(i).(type) {
		case lua.LNumber:
			if numbers > len(numEnds) {
				start := len(nb)
				nb = appendG(nb, float64(x), 17)
				argv[i-1] = nb[start:len(nb):len(nb)]
			} else {
				end := numEnds[k]
				argv[i-1] = nb[at:end:end]
				at = end
				k++
			}
		case lua.LString:
			argv[i-1] = stringBytes(string(x))
		default:
			for j := range argv {
				argv[j] = nil
			}
			L.Pop(n)
			L.Push(errorTable(L, "Lua redis lib command arguments must be strings or integers"))
			return nil, false
		}
	}
	if numbers <= len(numEnds) {
		e.numBuf = nb
	}
	L.Pop(n)
	return argv, true
}

// stringBytes is s's bytes without a copy: the host must not write them.
func stringBytes(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// redisSha1hex is redis.sha1hex(s): the SHA1 of s in lower-case hex.
func redisSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		raiseError(L, "wrong number of arguments")
	}
	s := luaToString(L.Get(1))
	sum := sha1.Sum(stringBytes(s))
	L.Push(lua.LString(hex.EncodeToString(sum[:])))
	return 1
}

// redisErrorReply is redis.error_reply(s): the table {err=s} a script
// returns to reply with an error, the code ERR if s has none. A wrong
// argument gives an error table back rather than raising, as in Redis.
func redisErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	text := string(s)
	if text == "" || text[0] != '-' {
		text = "-" + text
	}
	L.Push(errorTable(L, text))
	return 1
}

// redisStatusReply is redis.status_reply(s): the table {ok=s}.
func redisStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

// redisLog is redis.log(level, ...): the arguments that are strings or
// numbers, joined by spaces, to Options.Log.
func (e *Engine) redisLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		raiseError(L, "redis.log() requires two arguments or more.")
	}
	lv, ok := luaToNumber(L.Get(1))
	if !ok {
		raiseError(L, "First argument must be a number (log level).")
	}
	level := int(int32(luaInt(lv)))
	if level < int(LogDebug) || level > int(LogWarning) {
		raiseError(L, "Invalid debug level.")
	}
	if e.opts.Log == nil {
		return 0
	}
	var msg []byte
	for i := 2; i <= n; i++ {
		switch L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			if i != 2 {
				msg = append(msg, ' ')
			}
			msg = append(msg, luaToString(L.Get(i))...)
		}
	}
	e.opts.Log(LogLevel(level), msg)
	return 0
}

// redisSetResp is redis.setresp(2|3): the protocol of later replies to
// redis.call.
func (e *Engine) redisSetResp(L *lua.LState) int {
	if e.cur == nil {
		raiseError(L, "redis.setresp can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raiseError(L, "redis.setresp() requires one argument.")
	}
	n, _ := luaToNumber(L.Get(1))
	v := int(int32(luaInt(n)))
	if v != 2 && v != 3 {
		raiseError(L, "RESP version must be 2 or 3.")
	}
	e.cur.resp = v
	return 0
}

// redisSetRepl is redis.set_repl(flags).
func (e *Engine) redisSetRepl(L *lua.LState) int {
	if e.cur == nil {
		raiseError(L, "redis.set_repl can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raiseError(L, "redis.set_repl() requires two arguments.")
	}
	n, _ := luaToNumber(L.Get(1))
	v := int(int32(luaInt(n)))
	if v&^int(ReplAll) != 0 {
		raiseError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	e.cur.repl = Repl(v)
	return 0
}

// redisACLCheck is redis.acl_check_cmd(cmd, ...).
func (e *Engine) redisACLCheck(L *lua.LState) int {
	if e.cur == nil {
		raiseError(L, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	argv, ok := e.luaArgs(L)
	if !ok {
		L.Error(L.Get(-1), 0)
	}
	allowed := true
	if h, ok := e.cur.host.(ACLHost); ok {
		known, yes := h.ACLCheck(argv)
		if !known {
			raiseError(L, "Invalid command passed to redis.acl_check_cmd()")
		}
		allowed = yes
	}
	for i := range argv {
		argv[i] = nil
	}
	L.Push(lua.LBool(allowed))
	return 1
}
