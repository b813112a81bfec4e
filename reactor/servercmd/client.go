package servercmd

import (
	"sort"
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
)

var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
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
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"SETINFO <option> <value>",
	"    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
	"HELP",
	"    Print this help.",
}

// Client is CLIENT, of the connection that sends it and of any other.
func Client(c Core, cn Conn, argv [][]byte) {
	sub := argv[1]
	n := len(argv)
	switch {
	case resp.EqualFold(sub, "id") && n == 2:
		w := cn.Begin()
		w.Int(cn.ClientFields().ID)
		cn.End()
	case resp.EqualFold(sub, "setname") && n == 3:
		if !ValidClientName(argv[2]) {
			cn.Error(ErrClientName)
			return
		}
		cn.SetName(argv[2])
		cn.OK()
	case resp.EqualFold(sub, "getname") && n == 2:
		w := cn.Begin()
		if name := cn.ClientFields().Name; name != "" {
			w.BulkString(name)
		} else {
			w.Null()
		}
		cn.End()
	case resp.EqualFold(sub, "setinfo") && n == 4:
		v := argv[3]
		for _, ch := range v {
			if ch < '!' || ch > '~' {
				cn.Error(resp.Error("ERR " + strings.ToUpper(string(argv[2])) + " cannot contain spaces, newlines or special characters."))
				return
			}
		}
		s := string(v)
		switch {
		case resp.EqualFold(argv[2], "lib-name"):
			cn.SetLib(&s, nil)
		case resp.EqualFold(argv[2], "lib-ver"):
			cn.SetLib(nil, &s)
		default:
			cn.Error(resp.Error("ERR Unrecognized option '" + string(argv[2]) + "'"))
			return
		}
		cn.OK()
	case (resp.EqualFold(sub, "no-evict") || resp.EqualFold(sub, "no-touch")) && n == 3:
		on := resp.EqualFold(argv[2], "on")
		if !on && !resp.EqualFold(argv[2], "off") {
			cn.Error(resp.ErrSyntax)
			return
		}
		if resp.EqualFold(sub, "no-evict") {
			cn.SetNoEvict(on)
		} else {
			cn.SetNoTouch(on)
		}
		cn.OK()
	case resp.EqualFold(sub, "reply") && n == 3:
		switch {
		case resp.EqualFold(argv[2], "on"):
			cn.SetReplyMode(ReplyOn)
			cn.OK()
		case resp.EqualFold(argv[2], "off"):
			cn.SetReplyMode(ReplyOff)
		case resp.EqualFold(argv[2], "skip"):
			if cn.ReplyMode() != ReplyOff {
				cn.SetReplyMode(ReplySkipNext)
			}
		default:
			cn.Error(resp.ErrSyntax)
		}
	case resp.EqualFold(sub, "info") && n == 2:
		line := clientLine(cn.ClientFields(), c.NowMs())
		w := cn.Begin()
		w.Verbatim("txt", []byte(line))
		cn.End()
	case resp.EqualFold(sub, "list"):
		clientList(c, cn, argv)
	case resp.EqualFold(sub, "kill"):
		clientKill(c, cn, argv)
	case resp.EqualFold(sub, "unblock") && (n == 3 || n == 4):
		c.Unblock(cn, argv)
	case resp.EqualFold(sub, "pause") && (n == 3 || n == 4):
		clientPause(c, cn, argv)
	case resp.EqualFold(sub, "unpause") && n == 2:
		c.Unpause()
		cn.OK()
	case resp.EqualFold(sub, "tracking") && n >= 3:
		clientTracking(c, cn, argv)
	case resp.EqualFold(sub, "caching") && n == 3:
		clientCaching(cn, argv[2])
	case resp.EqualFold(sub, "getredir") && n == 2:
		w := cn.Begin()
		w.Int(trackingRedirect(cn.Tracking()))
		cn.End()
	case resp.EqualFold(sub, "trackinginfo") && n == 2:
		clientTrackingInfo(cn)
	case resp.EqualFold(sub, "help") && n == 2:
		cn.Help(clientHelp)
	default:
		cn.Error(resp.ErrUnknownSubcommand("client", sub))
	}
}

// clientLine formats one CLIENT LIST line.
func clientLine(in ClientFields, now int64) string {
	cmd := in.LastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	// Redis's letters, in its order; N when none applies.
	flags := ""
	sub, psub, ssub := in.Subs, in.PSubs, in.SSubs
	if in.Monitor {
		flags += "O"
	}
	if sub+psub+ssub > 0 {
		flags += "P"
	}
	if in.Blocked {
		flags += "b"
	}
	flags += trackingFlags(in.Tracking, in.TrackingBroken, in.TrackingBCast)
	if flags == "" {
		flags = "N"
	}
	var b strings.Builder
	b.WriteString("id=" + strconv.FormatInt(in.ID, 10))
	b.WriteString(" addr=" + in.Addr)
	b.WriteString(" laddr=" + in.LAddr)
	b.WriteString(" fd=" + strconv.Itoa(in.FD))
	b.WriteString(" name=" + in.Name)
	b.WriteString(" age=" + strconv.FormatInt((now-in.Created)/1000, 10))
	b.WriteString(" idle=" + strconv.FormatInt((now-in.LastMs)/1000, 10))
	b.WriteString(" flags=" + flags)
	b.WriteString(" db=" + strconv.Itoa(int(in.DB)))
	b.WriteString(" sub=" + strconv.Itoa(int(sub)) + " psub=" + strconv.Itoa(int(psub)) + " ssub=" + strconv.Itoa(int(ssub)))
	b.WriteString(" multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 omem=0 tot-mem=0 events=r")
	b.WriteString(" cmd=" + cmd)
	b.WriteString(" user=default redir=" + strconv.FormatInt(in.Redir, 10) + " resp=" + strconv.Itoa(int(in.Proto)))
	b.WriteString(" lib-name=" + in.LibName)
	b.WriteString(" lib-ver=" + in.LibVer)
	b.WriteString("\n")
	return b.String()
}

// clientList takes, as Redis 7.0 does, either TYPE <type> or ID <id>...,
// not both. IDs are listed in the order asked, each time asked; one that is
// no client's lists nothing.
func clientList(c Core, cn Conn, argv [][]byte) {
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
			cn.Error(errClientType(t))
			return
		}
		noneOf = !resp.EqualFold(t, "normal")
	case len(argv) > 3 && resp.EqualFold(argv[2], "id"):
		byID = true
		for _, a := range argv[3:] {
			id, ok := resp.ParseInt(a)
			if !ok {
				cn.Error(resp.Error("ERR Invalid client ID"))
				return
			}
			ids = append(ids, id)
		}
	default:
		cn.Error(resp.ErrSyntax)
		return
	}
	var b strings.Builder
	now := c.NowMs()
	var live []ClientFields
	for _, other := range c.Clients() {
		if f := other.ClientFields(); !f.Killed {
			live = append(live, f)
		}
	}
	switch {
	case byID:
		for _, id := range ids {
			i := sort.Search(len(live), func(i int) bool { return live[i].ID >= id })
			if i < len(live) && live[i].ID == id {
				b.WriteString(clientLine(live[i], now))
			}
		}
	case !noneOf:
		for _, f := range live {
			b.WriteString(clientLine(f, now))
		}
	}
	w := cn.Begin()
	w.Verbatim("txt", []byte(b.String()))
	cn.End()
}

// clientKill marks the matching connections; each one's core closes it on
// its next turn.
func clientKill(c Core, cn Conn, argv [][]byte) {
	if len(argv) == 3 {
		// Old form: CLIENT KILL addr:port, answered with +OK or an error.
		for _, other := range c.Clients() {
			if f := other.ClientFields(); f.Addr == string(argv[2]) && !f.Killed {
				cn.OK()
				c.Kill(cn, other)
				return
			}
		}
		cn.Error(errNoSuchClient)
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
			cn.Error(resp.ErrSyntax)
			return
		}
		v := argv[i+1]
		switch {
		case resp.EqualFold(k, "id"):
			n, ok := resp.ParseInt(v)
			if !ok || n <= 0 {
				cn.Error(resp.Error("ERR client-id should be greater than 0"))
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
				cn.Error(resp.Error("ERR No such user '" + string(v) + "'"))
				return
			}
		case resp.EqualFold(k, "type"):
			typ = strings.ToLower(string(v))
			if typ != "normal" && typ != "master" && typ != "replica" && typ != "slave" && typ != "pubsub" {
				cn.Error(errClientType(v))
				return
			}
		case resp.EqualFold(k, "skipme"):
			switch {
			case resp.EqualFold(v, "yes"):
				skipMe = true
			case resp.EqualFold(v, "no"):
				skipMe = false
			default:
				cn.Error(resp.ErrSyntax)
				return
			}
		default:
			cn.Error(resp.ErrSyntax)
			return
		}
	}
	var victims []Listed
	for _, other := range c.Clients() {
		f := other.ClientFields()
		switch {
		case id != 0 && f.ID != id,
			addr != "" && f.Addr != addr,
			laddr != "" && f.LAddr != laddr,
			typ != "" && typ != "normal",
			skipMe && other == Listed(cn),
			f.Killed:
			continue
		}
		victims = append(victims, other)
	}
	w := cn.Begin()
	w.Int(int64(len(victims)))
	cn.End()
	for _, other := range victims {
		c.Kill(cn, other)
	}
}

// clientPause is CLIENT PAUSE timeout [WRITE|ALL].
func clientPause(c Core, cn Conn, argv [][]byte) {
	writes := false
	if len(argv) == 4 {
		switch {
		case resp.EqualFold(argv[3], "write"):
			writes = true
		case resp.EqualFold(argv[3], "all"):
		default:
			cn.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := resp.ParseInt(argv[2])
	switch {
	case !ok:
		cn.Error("ERR timeout is not an integer or out of range")
	case ms < 0:
		cn.Error("ERR timeout is negative")
	default:
		c.Pause(writes, c.NowMs()+ms)
		cn.OK()
	}
}
