package servercmd

import "github.com/corekv/corekv/resp"

// Tracking is a connection's CLIENT TRACKING state, as CLIENT TRACKING
// sets it and CLIENT TRACKINGINFO, GETREDIR and LIST show it.
type Tracking struct {
	On                   bool
	BCast, OptIn, OptOut bool
	NoLoop               bool
	Redirect             int64 // the client invalidations go to; 0: the connection itself
	BrokenRedirect       bool  // the client it redirects to has gone
	Caching              int8  // CLIENT CACHING's answer for the next command: CachingYes, CachingNo, or 0
	Prefixes             [][]byte
}

// CLIENT CACHING's answers.
const (
	CachingYes int8 = 1
	CachingNo  int8 = 2
)

// The refusals of CLIENT TRACKING and CLIENT CACHING, with Redis 7.0's
// wording.
const (
	errTrackingOneRedirect  resp.Error = "ERR A client can only redirect to a single other client"
	errTrackingRedirectGone resp.Error = "ERR The client ID you want redirect to does not exist"
	errTrackingPrefixBCast  resp.Error = "ERR PREFIX option requires BCAST mode to be enabled"
	errTrackingSwitchBCast  resp.Error = "ERR You can't switch BCAST mode on/off before disabling tracking for " +
		"this client, and then re-enabling it with a different mode."
	errTrackingOptBCast  resp.Error = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	errTrackingOptBoth   resp.Error = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	errTrackingSwitchOpt resp.Error = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for " +
		"this client, and then re-enabling it with a different mode."
	errCachingOff resp.Error = "ERR CLIENT CACHING can be called only when the client is in tracking mode " +
		"with OPTIN or OPTOUT mode enabled"
	errCachingYes resp.Error = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	errCachingNo  resp.Error = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
)

// clientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...]
// [BCAST] [OPTIN] [OPTOUT] [NOLOOP].
func clientTracking(c Core, cn Conn, argv [][]byte) {
	var t Tracking
	for j := 3; j < len(argv); j++ {
		more := j < len(argv)-1
		switch a := argv[j]; {
		case resp.EqualFold(a, "redirect") && more:
			j++
			if t.Redirect != 0 {
				cn.Error(errTrackingOneRedirect)
				return
			}
			id, ok := resp.ParseInt(argv[j])
			if !ok {
				cn.Error(resp.ErrNotInteger)
				return
			}
			if !c.ClientExists(id) {
				cn.Error(errTrackingRedirectGone)
				return
			}
			t.Redirect = id
		case resp.EqualFold(a, "bcast"):
			t.BCast = true
		case resp.EqualFold(a, "optin"):
			t.OptIn = true
		case resp.EqualFold(a, "optout"):
			t.OptOut = true
		case resp.EqualFold(a, "noloop"):
			t.NoLoop = true
		case resp.EqualFold(a, "prefix") && more:
			j++
			t.Prefixes = append(t.Prefixes, argv[j])
		default:
			cn.Error(resp.ErrSyntax)
			return
		}
	}
	old := cn.Tracking()
	switch {
	case resp.EqualFold(argv[2], "on"):
		switch {
		case !t.BCast && len(t.Prefixes) > 0:
			cn.Error(errTrackingPrefixBCast)
		case old.On && old.BCast != t.BCast:
			cn.Error(errTrackingSwitchBCast)
		case t.BCast && (t.OptIn || t.OptOut):
			cn.Error(errTrackingOptBCast)
		case t.OptIn && t.OptOut:
			cn.Error(errTrackingOptBoth)
		case t.OptIn && old.OptOut || t.OptOut && old.OptIn:
			cn.Error(errTrackingSwitchOpt)
		default:
			if t.BCast {
				if e := prefixCollision(old.Prefixes, t.Prefixes); e != "" {
					cn.Error(e)
					return
				}
			}
			t.On = true
			if !cn.SetTracking(t) {
				cn.OK()
			}
		}
	case resp.EqualFold(argv[2], "off"):
		if !cn.SetTracking(Tracking{}) {
			cn.OK()
		}
	default:
		cn.Error(resp.ErrSyntax)
	}
}

// prefixCollision is the refusal of BCAST prefixes of which one starts
// another, among those the connection has (old) or with another of the
// new ones, as Redis words it; "" when none does.
func prefixCollision(old, prefixes [][]byte) resp.Error {
	overlap := func(a, b []byte) bool {
		n := min(len(a), len(b))
		return string(a[:n]) == string(b[:n])
	}
	for i, p := range prefixes {
		for _, o := range old {
			if overlap(o, p) {
				return resp.Error("ERR Prefix '" + string(p) + "' overlaps with an existing prefix '" + string(o) +
					"'. Prefixes for a single client must not overlap.")
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				return resp.Error("ERR Prefix '" + string(p) + "' overlaps with another provided prefix '" + string(q) +
					"'. Prefixes for a single client must not overlap.")
			}
		}
	}
	return ""
}

// clientCaching is CLIENT CACHING YES|NO: whether the next command's keys
// are tracked, in OPTIN or OPTOUT mode.
func clientCaching(cn Conn, arg []byte) {
	t := cn.Tracking()
	switch {
	case !t.On:
		cn.Error(errCachingOff)
	case resp.EqualFold(arg, "yes") && !t.OptIn:
		cn.Error(errCachingYes)
	case resp.EqualFold(arg, "yes"):
		cn.SetCaching(CachingYes)
		cn.OK()
	case resp.EqualFold(arg, "no") && !t.OptOut:
		cn.Error(errCachingNo)
	case resp.EqualFold(arg, "no"):
		cn.SetCaching(CachingNo)
		cn.OK()
	default:
		cn.Error(resp.ErrSyntax)
	}
}

// clientTrackingInfo is CLIENT TRACKINGINFO.
func clientTrackingInfo(cn Conn) {
	t := cn.Tracking()
	flags := []string{"off"}
	if t.On {
		flags[0] = "on"
	}
	if t.BCast {
		flags = append(flags, "bcast")
	}
	if t.OptIn {
		flags = append(flags, "optin")
		if t.Caching == CachingYes {
			flags = append(flags, "caching-yes")
		}
	}
	if t.OptOut {
		flags = append(flags, "optout")
		if t.Caching == CachingNo {
			flags = append(flags, "caching-no")
		}
	}
	if t.NoLoop {
		flags = append(flags, "noloop")
	}
	if t.BrokenRedirect {
		flags = append(flags, "broken_redirect")
	}
	w := cn.Begin()
	w.Map(3)
	w.BulkString("flags")
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	w.Int(trackingRedirect(t))
	w.BulkString("prefixes")
	w.Array(len(t.Prefixes))
	for _, p := range t.Prefixes {
		w.Bulk(p)
	}
	cn.End()
}

// trackingRedirect is what CLIENT GETREDIR, TRACKINGINFO and LIST show as
// the redirection: -1 when the connection does not track.
func trackingRedirect(t Tracking) int64 {
	if !t.On {
		return -1
	}
	return t.Redirect
}

// trackingFlags are CLIENT LIST's letters for tracking, in Redis's order.
func trackingFlags(on, broken, bcast bool) string {
	s := ""
	if on {
		s += "t"
	}
	if broken {
		s += "R"
	}
	if bcast {
		s += "B"
	}
	return s
}
