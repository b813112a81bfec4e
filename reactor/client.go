package reactor

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are: ID, ADDR, LADDR, USER, SKIPME, MAXAGE, TYPE.",
	"LIST [options ...]",
	"    Return information about client connections. Options: TYPE, ID.",
	"NO-EVICT (ON|OFF)",
	"    Protect the current client connection from eviction.",
	"NO-TOUCH (ON|OFF)",
	"    Will not touch LRU/LFU stats when this mode is on.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"SETINFO <option> <value>",
	"    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
	"HELP",
	"    Print this help.",
}

func (c *Core) client(cn *Conn, argv [][]byte) {
	if !subcommandArityOK(cn, "client", argv) {
		return
	}
	sub := argv[1]
	n := len(argv)
	switch {
	case resp.EqualFold(sub, "id") && n == 2:
		w := cn.begin()
		w.Int(cn.id)
		cn.end()
	case resp.EqualFold(sub, "setname") && n == 3:
		if !validClientName(argv[2]) {
			cn.errorReply(errClientName)
			return
		}
		setName(cn, argv[2])
		cn.okReply()
	case resp.EqualFold(sub, "getname") && n == 2:
		w := cn.begin()
		if p := cn.info.name.Load(); p != nil {
			w.BulkString(*p)
		} else {
			w.Null()
		}
		cn.end()
	case resp.EqualFold(sub, "setinfo") && n == 4:
		v := argv[3]
		for _, ch := range v {
			if ch < '!' || ch > '~' {
				cn.errorReply(resp.Error("ERR " + strings.ToUpper(string(argv[2])) + " cannot contain spaces, newlines or special characters."))
				return
			}
		}
		s := string(v)
		switch {
		case resp.EqualFold(argv[2], "lib-name"):
			cn.info.libName.Store(&s)
		case resp.EqualFold(argv[2], "lib-ver"):
			cn.info.libVer.Store(&s)
		default:
			cn.errorReply(resp.Error("ERR Unrecognized option '" + string(argv[2]) + "'"))
			return
		}
		cn.okReply()
	case (resp.EqualFold(sub, "no-evict") || resp.EqualFold(sub, "no-touch")) && n == 3:
		on := resp.EqualFold(argv[2], "on")
		if !on && !resp.EqualFold(argv[2], "off") {
			cn.errorReply(resp.ErrSyntax)
			return
		}
		if resp.EqualFold(sub, "no-evict") {
			cn.info.flagsNoE.Store(on)
		} else {
			cn.info.flagsNoT.Store(on)
		}
		cn.okReply()
	case resp.EqualFold(sub, "reply") && n == 3:
		switch {
		case resp.EqualFold(argv[2], "on"):
			cn.replyMode = replyOn
			cn.okReply()
		case resp.EqualFold(argv[2], "off"):
			cn.replyMode = replyOff
		case resp.EqualFold(argv[2], "skip"):
			if cn.replyMode != replyOff {
				cn.replyMode = replySkipNext
			}
		default:
			cn.errorReply(resp.ErrSyntax)
		}
	case resp.EqualFold(sub, "info") && n == 2:
		line := c.srv.clientLine(cn, c.shard.Clock.Ms)
		w := cn.begin()
		w.Verbatim("txt", []byte(line))
		cn.end()
	case resp.EqualFold(sub, "list"):
		c.clientList(cn, argv)
	case resp.EqualFold(sub, "kill"):
		c.clientKill(cn, argv)
	case resp.EqualFold(sub, "help") && n == 2:
		cn.helpReply(clientHelp)
	default:
		cn.errorReply(errUnknownSub(sub, "client"))
	}
}

// clientLine formats one CLIENT LIST line. It reads only the atomics of the
// connection's info, so any core may call it.
func (s *Server) clientLine(cn *Conn, now int64) string {
	in := &cn.info
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	cmd := str(in.lastCmd.Load())
	if cmd == "" {
		cmd = "NULL"
	}
	flags := "N"
	var b strings.Builder
	b.WriteString("id=" + strconv.FormatInt(in.id, 10))
	b.WriteString(" addr=" + in.addr)
	b.WriteString(" laddr=" + in.laddr)
	b.WriteString(" fd=" + strconv.Itoa(cn.fd))
	b.WriteString(" name=" + str(in.name.Load()))
	b.WriteString(" age=" + strconv.FormatInt((now-in.created)/1000, 10))
	b.WriteString(" idle=" + strconv.FormatInt((now-in.lastMs.Load())/1000, 10))
	b.WriteString(" flags=" + flags)
	b.WriteString(" db=" + strconv.Itoa(int(in.db.Load())))
	b.WriteString(" sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 omem=0 tot-mem=0 events=r")
	b.WriteString(" cmd=" + cmd)
	b.WriteString(" user=default redir=-1 resp=" + strconv.Itoa(int(in.proto.Load())))
	b.WriteString(" lib-name=" + str(in.libName.Load()))
	b.WriteString(" lib-ver=" + str(in.libVer.Load()))
	b.WriteString("\n")
	return b.String()
}

// connections returns the registered connections, ordered by id.
func (s *Server) connections() []*Conn {
	s.mu.Lock()
	out := make([]*Conn, 0, len(s.registry))
	for _, cn := range s.registry {
		out = append(out, cn)
	}
	s.mu.Unlock()
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (c *Core) clientList(cn *Conn, argv [][]byte) {
	var ids map[int64]bool
	for i := 2; i < len(argv); i++ {
		switch {
		case resp.EqualFold(argv[i], "type") && i+1 < len(argv):
			t := argv[i+1]
			if !resp.EqualFold(t, "normal") && !resp.EqualFold(t, "master") && !resp.EqualFold(t, "replica") && !resp.EqualFold(t, "pubsub") {
				cn.errorReply(resp.Error("ERR Unknown client type '" + string(t) + "'"))
				return
			}
			if !resp.EqualFold(t, "normal") {
				ids = map[int64]bool{}
			}
			i++
		case resp.EqualFold(argv[i], "id") && i+1 < len(argv):
			if ids == nil {
				ids = map[int64]bool{}
			}
			for i++; i < len(argv); i++ {
				id, ok := resp.ParseInt(argv[i])
				if !ok || id <= 0 {
					cn.errorReply(resp.Error("ERR Invalid client ID"))
					return
				}
				ids[id] = true
			}
		default:
			cn.errorReply(resp.ErrSyntax)
			return
		}
	}
	var b strings.Builder
	now := c.shard.Clock.Ms
	for _, other := range c.srv.connections() {
		if (ids != nil && !ids[other.id]) || other.info.killed.Load() {
			continue
		}
		b.WriteString(c.srv.clientLine(other, now))
	}
	w := cn.begin()
	w.Verbatim("txt", []byte(b.String()))
	cn.end()
}

// clientKill marks the matching connections; each one's core closes it on
// its next turn.
func (c *Core) clientKill(cn *Conn, argv [][]byte) {
	if len(argv) == 3 {
		// Old form: CLIENT KILL addr:port, answered with +OK or an error.
		for _, other := range c.srv.connections() {
			if other.info.addr == string(argv[2]) && !other.info.killed.Load() {
				cn.okReply()
				c.srv.kill(cn, other)
				return
			}
		}
		cn.errorReply(errNoSuchClient)
		return
	}
	if len(argv) < 4 || len(argv)%2 != 0 {
		cn.errorReply(resp.ErrSyntax)
		return
	}
	var (
		id                int64
		addr, laddr, user string
		typ               string
		maxAge            int64 = -1
		skipMe                  = true
	)
	for i := 2; i < len(argv); i += 2 {
		k, v := argv[i], argv[i+1]
		switch {
		case resp.EqualFold(k, "id"):
			n, ok := resp.ParseInt(v)
			if !ok || n <= 0 {
				cn.errorReply(resp.Error("ERR client-id should be greater than 0"))
				return
			}
			id = n
		case resp.EqualFold(k, "addr"):
			addr = string(v)
		case resp.EqualFold(k, "laddr"):
			laddr = string(v)
		case resp.EqualFold(k, "user"):
			user = string(v)
		case resp.EqualFold(k, "type"):
			typ = strings.ToLower(string(v))
			if typ != "normal" && typ != "master" && typ != "replica" && typ != "slave" && typ != "pubsub" {
				cn.errorReply(resp.Error("ERR Unknown client type '" + string(v) + "'"))
				return
			}
		case resp.EqualFold(k, "skipme"):
			switch {
			case resp.EqualFold(v, "yes"):
				skipMe = true
			case resp.EqualFold(v, "no"):
				skipMe = false
			default:
				cn.errorReply(resp.ErrSyntax)
				return
			}
		case resp.EqualFold(k, "maxage"):
			n, ok := resp.ParseInt(v)
			if !ok {
				cn.errorReply(resp.ErrNotInteger)
				return
			}
			maxAge = n
		default:
			cn.errorReply(resp.ErrSyntax)
			return
		}
	}
	var victims []*Conn
	now := c.shard.Clock.Ms
	for _, other := range c.srv.connections() {
		switch {
		case id != 0 && other.id != id,
			addr != "" && other.info.addr != addr,
			laddr != "" && other.info.laddr != laddr,
			user != "" && user != "default",
			typ != "" && typ != "normal",
			maxAge >= 0 && (now-other.info.created)/1000 < maxAge,
			skipMe && other == cn,
			other.info.killed.Load():
			continue
		}
		victims = append(victims, other)
	}
	w := cn.begin()
	w.Int(int64(len(victims)))
	cn.end()
	for _, other := range victims {
		c.srv.kill(cn, other)
	}
}

// kill closes victim for CLIENT KILL sent by cn. Another client is closed
// at once by its core, whatever output waits for it (a client that stopped
// reading would never drain it); from then on CLIENT LIST and CLIENT KILL
// skip it. A client that kills itself gets its reply first, as in Redis.
func (s *Server) kill(cn, victim *Conn) {
	if victim == cn {
		cn.closing = true
		return
	}
	victim.info.killed.Store(true)
	core := s.cores[victim.info.core]
	core.kill.Store(true)
	core.forceWake()
}
