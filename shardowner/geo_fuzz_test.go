package shardowner

import (
	"bytes"
	"math"
	"testing"
)

// FuzzGeoDecode: any score a sorted set can hold reads as a point within
// the limits, and its geohash is 11 characters of the alphabet ending in
// '0'.
func FuzzGeoDecode(f *testing.F) {
	for _, s := range []float64{0, 3479099956230698, 1 << 52, 13510798882111488, -1, math.Inf(1), math.Inf(-1), 1e30, -1e19} {
		f.Add(math.Float64bits(s))
	}
	f.Fuzz(func(t *testing.T, u uint64) {
		s := math.Float64frombits(u)
		if math.IsNaN(s) {
			return
		}
		lon, lat := geoPoint(s)
		if !geoValid(lon, lat) {
			t.Fatalf("%v decodes to %v,%v", s, lon, lat)
		}
		h := geoHashText(nil, s)
		if len(h) != 11 || h[10] != '0' {
			t.Fatalf("%v: geohash %q", s, h)
		}
		for _, c := range h {
			if !bytes.ContainsRune([]byte(geoAlphabet), rune(c)) {
				t.Fatalf("%v: geohash %q", s, h)
			}
		}
	})
}

var geoArity = map[string]int{"geoadd": 5, "geodist": 4, "geohash": 2, "geopos": 2, "geosearch": 7,
	"geosearchstore": 8, "georadius": 6, "georadius_ro": 6, "georadiusbymember": 5, "georadiusbymember_ro": 5}

// FuzzGeoSearchArgs runs the search commands with arbitrary options over a
// small geo set: no panic, a reply of some kind, and a STORE leaves a
// sorted set the commands read back.
func FuzzGeoSearchArgs(f *testing.F) {
	for _, s := range []string{
		"geosearch g fromlonlat 15 37 byradius 200 km withdist withcoord withhash count 2 asc",
		"geosearch g frommember a bybox 1e9 1 m count 1 any desc",
		"georadius g 0 0 inf km store d",
		"georadiusbymember g a 0 m storedist d count 1",
		"geosearchstore d g fromlonlat -180 85.05112878 bybox 0 0 mi storedist",
		"georadius_ro g 180 -85.05112878 1e-300 ft count 9223372036854775807",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		argv := bytes.Fields(line)
		if len(argv) < 2 || len(argv) > 24 {
			return
		}
		name := string(bytes.ToLower(argv[0]))
		// The router checks the arity (Redis's, at least this many)
		// before a handler runs.
		if n, ok := geoArity[name]; !ok || len(argv) < n {
			return
		}
		h := handlers[name]
		c := newTestCtx()
		do(c, "geoadd", "g", "15", "37", "a", "13.3", "38.1", "b", "-180", "-85.05112878", "c", "180", "85.05112878", "e", "0", "0", "f")
		do(c, "zadd", "g", "-1", "w", "1e30", "x")
		c.W.B = c.W.B[:0]
		h(c, argv)
		if len(c.W.B) == 0 {
			t.Fatalf("%q: no reply", line)
		}
		if got := do(c, "zrange", "d", "0", "-1", "withscores"); got[0] != '*' {
			t.Fatalf("%q: stored %q", line, got)
		}
	})
}
