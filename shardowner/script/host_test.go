package script

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

// fakeHost is a tiny keyspace with the commands the tests call, written
// the way the server would: replies in the protocol the script chose, and
// Guard's refusals.
type fakeHost struct {
	kv    map[string]string
	calls [][]string
	ctxs  []CallContext
	guard Guard
	state ServerState
}

func newHost() *fakeHost { return &fakeHost{kv: map[string]string{}} }

var fakeTable = map[string]struct {
	arity int
	cmd   Command
}{
	"get":     {2, Command{Known: true}},
	"set":     {-3, Command{Known: true, Write: true, DenyOOM: true}},
	"incr":    {2, Command{Known: true, Write: true, DenyOOM: true}},
	"del":     {-2, Command{Known: true, Write: true}},
	"ping":    {-1, Command{Known: true, Stale: true}},
	"echo":    {2, Command{Known: true, Stale: true}},
	"hgetall": {2, Command{Known: true}},
	"blpop":   {-3, Command{Known: true, NoScript: true, Write: true}},
	"debug":   {-2, Command{Known: true}},
	"lrange":  {4, Command{Known: true}},
}

func (h *fakeHost) Call(ctx CallContext, argv [][]byte, dst []byte) []byte {
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = string(a)
	}
	h.calls = append(h.calls, args)
	h.ctxs = append(h.ctxs, ctx)
	w := resp.Writer{B: dst, Proto: ctx.Resp}
	name := strings.ToLower(args[0])
	info, ok := fakeTable[name]
	c := info.cmd
	c.ArityOK = ok && (info.arity > 0 && len(args) == info.arity || info.arity < 0 && len(args) >= -info.arity)
	if err := h.guard.Check(c, h.state); err != "" {
		w.Err(err)
		return w.B
	}
	switch name {
	case "get":
		if v, ok := h.kv[args[1]]; ok {
			w.BulkString(v)
		} else {
			w.Null()
		}
	case "set":
		h.kv[args[1]] = args[2]
		w.OK()
	case "del":
		n := 0
		for _, k := range args[1:] {
			if _, ok := h.kv[k]; ok {
				delete(h.kv, k)
				n++
			}
		}
		w.Int(int64(n))
	case "incr":
		n, err := strconv.ParseInt(h.kv[args[1]]+"0", 10, 64)
		if _, ok := h.kv[args[1]]; !ok {
			n, err = 0, nil
		} else {
			n, err = strconv.ParseInt(h.kv[args[1]], 10, 64)
		}
		if err != nil {
			w.Err(resp.ErrNotInteger)
			return w.B
		}
		n++
		h.kv[args[1]] = strconv.FormatInt(n, 10)
		w.Int(n)
	case "ping":
		if len(args) > 1 {
			w.BulkString(args[1])
		} else {
			w.Simple("PONG")
		}
	case "echo":
		w.BulkString(args[1])
	case "hgetall":
		w.Map(1)
		w.BulkString("field")
		w.BulkString("value")
	case "lrange":
		w.Array(3)
		w.BulkString("a")
		w.BulkString("b")
		w.BulkString("c")
	case "debug":
		// DEBUG PROTOCOL <type>, as Redis answers it.
		w.DebugProtocol([]byte(args[2]))
	}
	return w.B
}
