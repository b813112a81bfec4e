package reactor

import (
	"sort"
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
	"    Kill connections. Options are: ID, ADDR, LADDR, USER, SKIPME, TYPE.",
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
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"SETINFO <option> <value>",
	"    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
	"HELP",
	"    Print this help.",
}

func (c *Core) client(cn *Conn, argv [][]byte) {
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
	case resp.EqualFold(sub, "unblock") && (n == 3 || n == 4):
		c.clientUnblock(cn, argv)
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
	// Redis's letters, in its order; N when none applies.
	flags := ""
	sub, psub, ssub := in.subs[subChannel].Load(), in.subs[subPattern].Load(), in.subs[subShard].Load()
	if in.monitor.Load() {
		flags += "O"
	}
	if sub+psub+ssub > 0 {
		flags += "P"
	}
	if in.blocked.Load() {
		flags += "b"
	}
	if flags == "" {
		flags = "N"
	}
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
	b.WriteString(" sub=" + strconv.Itoa(int(sub)) + " psub=" + strconv.Itoa(int(psub)) + " ssub=" + strconv.Itoa(int(ssub)))
	b.WriteString(" multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 omem=0 tot-mem=0 events=r")
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

// clientList takes, as Redis 7.0 does, either TYPE <type> or ID <id>...,
// not both. IDs are listed in the order asked, each time asked; one that is
// no client's lists nothing.
func (c *Core) clientList(cn *Conn, argv [][]byte) {
	var (
		ids    []int64
		byID   bool
		noneOf bool // a type none of corekv's clients has
	)
	switch {
	case len(argv) == 2:
	case len(argv) == 4 && resp.EqualFold(argv[2], "type"):
		t := argv[3]
		if !resp.EqualFold(t, "normal") && !resp.EqualFold(t, "master") && !resp.EqualFold(t, "replica") &&
			!resp.EqualFold(t, "slave") && !resp.EqualFold(t, "pubsub") {
			cn.errorReply(resp.Error("ERR Unknown client type '" + string(t) + "'"))
			return
		}
		noneOf = !resp.EqualFold(t, "normal")
	case len(argv) > 3 && resp.EqualFold(argv[2], "id"):
		byID = true
		for _, a := range argv[3:] {
			id, ok := resp.ParseInt(a)
			if !ok {
				cn.errorReply(resp.Error("ERR Invalid client ID"))
				return
			}
			ids = append(ids, id)
		}
	default:
		cn.errorReply(resp.ErrSyntax)
		return
	}
	var b strings.Builder
	now := c.shard.Clock.Ms
	conns := c.srv.connections()
	switch {
	case byID:
		for _, id := range ids {
			if other := findConn(conns, id); other != nil {
				b.WriteString(c.srv.clientLine(other, now))
			}
		}
	case !noneOf:
		for _, other := range conns {
			if !other.info.killed.Load() {
				b.WriteString(c.srv.clientLine(other, now))
			}
		}
	}
	w := cn.begin()
	w.Verbatim("txt", []byte(b.String()))
	cn.end()
}

// findConn returns the live connection with that id from conns, which is
// ordered by id, or nil.
func findConn(conns []*Conn, id int64) *Conn {
	i := sort.Search(len(conns), func(i int) bool { return conns[i].id >= id })
	if i < len(conns) && conns[i].id == id && !conns[i].info.killed.Load() {
		return conns[i]
	}
	return nil
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
	// Like Redis, each filter is checked as it is read, so the first bad
	// one (or a name without its value) decides the error.
	var (
		id          int64
		addr, laddr string
		typ         string
		skipMe      = true
	)
	for i := 2; i < len(argv); i += 2 {
		k := argv[i]
		if i+1 == len(argv) {
			cn.errorReply(resp.ErrSyntax)
			return
		}
		v := argv[i+1]
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
			// default is the only user; every client is authenticated as it.
			if string(v) != "default" {
				cn.errorReply(resp.Error("ERR No such user '" + string(v) + "'"))
				return
			}
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
		default:
			cn.errorReply(resp.ErrSyntax)
			return
		}
	}
	var victims []*Conn
	for _, other := range c.srv.connections() {
		switch {
		case id != 0 && other.id != id,
			addr != "" && other.info.addr != addr,
			laddr != "" && other.info.laddr != laddr,
			typ != "" && typ != "normal",
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
