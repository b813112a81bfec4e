package shardowner

import (
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
)

func coordText(f float64) string {
	c := newTestCtx()
	writeGeoCoord(c, f)
	b := c.W.B
	// $<len>\r\n<text>\r\n
	i := 0
	for b[i] != '\n' {
		i++
	}
	return string(b[i+1 : len(b)-2])
}

// TestGeoKnownPoints: GEOPOS's text of the known points.
func TestGeoKnownPoints(t *testing.T) {
	for _, k := range geoKnown {
		lon, lat := geoPoint(float64(k.score))
		if g1, g2 := coordText(lon), coordText(lat); g1 != k.plon || g2 != k.plat {
			t.Errorf("%d: position %s,%s, want %s,%s", k.score, g1, g2, k.plon, k.plat)
		}
	}
}

func init() {
	for name, h := range map[string]Handler{
		"geoadd": GeoAdd, "geopos": GeoPos, "geodist": GeoDist, "geohash": GeoHash,
		"geosearch": GeoSearch, "geosearchstore": GeoSearchStore, "georadius": GeoRadius,
		"georadius_ro": GeoRadiusRO, "georadiusbymember": GeoRadiusByMember,
		"georadiusbymember_ro": GeoRadiusByMemberRO,
	} {
		handlers[name] = h
	}
}

func TestGeoCommands(t *testing.T) {
	pal := bulk("Palermo")
	cat := bulk("Catania")
	sicily := "geoadd s 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"
	runCases(t, []scriptCase{
		{"add", []step{
			{sicily, num(2)},
			{"geoadd s nx 0 0 Palermo 1 1 x", num(1)},
			{"geoadd s xx ch 2 2 x 3 3 y", num(1)},
			{"zscore s Palermo", bulk("3479099956230698")},
			{"geoadd s 200 100 z", errr("ERR invalid longitude,latitude pair 200.000000,100.000000")},
			{"geoadd s inf 0 z", errr("ERR invalid longitude,latitude pair inf,0.000000")},
			{"geoadd s a 0 z", errr(resp.ErrNotFloat)},
			{"geoadd s nx xx 1 2 z", errr(resp.ErrSyntax)},
			{"geoadd s ch ch ch", errr(resp.ErrSyntax)},
			{"geoadd s 1 2 z 3", errr(resp.ErrSyntax)},
			{"set str v", ok},
			{"geoadd str 1 2 z", errr(resp.ErrWrongType)},
		}},
		{"read", []step{
			{sicily, num(2)},
			{"geopos s Palermo nosuch", "*2\r\n*2\r\n" + bulk("13.36138933897018433") + bulk("38.11555639549629859") + nullA},
			{"geopos nokey a", "*1\r\n" + nullA},
			{"geodist s Palermo Catania", bulk("166274.1516")},
			{"geodist s Palermo Catania km", bulk("166.2742")},
			{"geodist s Palermo Catania MI", bulk("103.3182")},
			{"geodist s Palermo nosuch", null},
			{"geodist s Palermo Catania yd", errr(errGeoUnit)},
			{"geodist s Palermo Catania km x", errr(resp.ErrSyntax)},
			{"geohash s Palermo nosuch", "*2\r\n" + bulk("sqc8b49rny0") + null},
			{"@resp 3", ""},
			{"geopos s Palermo nosuch", "*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n" + null3},
			{"geohash s nosuch", "*1\r\n" + null3},
		}},
		{"search", []step{
			{sicily, num(2)},
			{"georadius s 15 37 200 km asc", "*2\r\n" + cat + pal},
			{"georadius s 15 37 200 km desc", "*2\r\n" + pal + cat},
			{"georadius s 15 37 100 km", "*1\r\n" + cat},
			{"georadius s 15 37 200 km withdist withhash withcoord count 1", "*1\r\n*4\r\n" + cat + bulk("56.4413") +
				num(3479447370796909) + "*2\r\n" + bulk("15.08726745843887329") + bulk("37.50266842333162032")},
			{"geosearch s fromlonlat 15 37 bybox 400 400 km asc withdist", "*2\r\n*2\r\n" + cat + bulk("56.4413") + "*2\r\n" + pal + bulk("190.4424")},
			{"geosearch s frommember Palermo byradius 1 km", "*1\r\n" + pal},
			{"georadiusbymember s Palermo 200 km asc", "*2\r\n" + pal + cat},
			{"geosearch s frommember nosuch byradius 1 km", errr(errGeoMember)},
			{"geosearch nokey frommember nosuch byradius 1 km", "*0\r\n"},
			{"geosearch s fromlonlat 1 2 withdist", errr("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch")},
			{"GeoSearch s byradius 1 km asc", errr("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch")},
			{"geosearch s fromlonlat 1 2 byradius 1 km any", errr(errGeoAnyCount)},
			{"geosearch s fromlonlat 1 2 byradius 1 km count 0", errr(errGeoCount)},
			{"geosearch s fromlonlat 1 2 byradius -1 km", errr(errGeoNegRadius)},
			{"geosearch s fromlonlat 1 2 bybox 1 -1 km", errr(errGeoNegBox)},
			{"geosearch s fromlonlat 1 2 byradius 1 km bybox 1 1 km", errr(resp.ErrSyntax)},
			{"georadius_ro s 15 37 200 km store d", errr(resp.ErrSyntax)},
			{"georadius s 15 37 200 km store d withdist", errr(errGeoRadiusWith)},
		}},
		{"store", []step{
			{sicily, num(2)},
			{"georadius s 15 37 200 km store d", num(2)},
			{"zrange d 0 -1 withscores", "*4\r\n" + pal + bulk("3479099956230698") + cat + bulk("3479447370796909")},
			{"georadius s 15 37 200 km storedist d count 1", num(1)},
			{"zrange d 0 -1 withscores", "*2\r\n" + cat + bulk("56.441257870158204")},
			{"geosearchstore d s fromlonlat 15 37 byradius 1 m", num(0)},
			{"exists d", num(0)},
			{"geosearchstore d s fromlonlat 15 37 byradius 300 km storedist", num(2)},
			{"geosearchstore d s fromlonlat 15 37 byradius 300 km withdist", errr(errGeoSearchWith)},
			{"geosearchstore d nokey fromlonlat 15 37 byradius 300 km", num(0)},
			{"exists d", num(0)},
		}},
	})
}

// TestGeoSearchAnyStops: COUNT … ANY stops at the first points found, and
// the search keeps no more than it finds.
func TestGeoSearchAnyStops(t *testing.T) {
	c := newTestCtx()
	args := []string{"geoadd", "g"}
	for i := 0; i < 2000; i++ {
		args = append(args, strconv.FormatFloat(float64(i%50)/100, 'f', 2, 64),
			strconv.FormatFloat(float64(i/50)/100, 'f', 2, 64), "m"+strconv.Itoa(i))
	}
	if got := do(c, args...); got != num(2000) {
		t.Fatalf("geoadd: %q", got)
	}
	got := do(c, "geosearch", "g", "fromlonlat", "0.2", "0.2", "byradius", "5000", "km", "count", "3", "any")
	if got[:4] != "*3\r\n" {
		t.Fatalf("count 3 any: %q", got)
	}
	got = do(c, "geosearch", "g", "fromlonlat", "0", "0", "byradius", "1", "m", "count", "5", "withdist")
	if got != "*1\r\n*2\r\n"+bulk("m0")+bulk("0.3300") {
		t.Fatalf("count 5 near m0: %q", got)
	}
}
