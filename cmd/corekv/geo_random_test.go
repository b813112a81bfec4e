package main

import "strconv"

// diffGeoCommands are TestRandomDiff's geo commands. Their keys are the
// sorted-set commands' keys, so that the geo and sorted set commands read
// each other's sets; a STORE destination may be on another shard (the
// keys are gathered).
func diffGeoCommands() []diffCommand {
	return []diffCommand{
		{20, func(g *diffGen) *diffStep {
			args := diffJ([]string{"GEOADD", g.zsetKey()}, g.opts([]string{g.pick("NX", "XX", "nx")}, []string{"CH"}))
			for n := 1 + g.r.Intn(4); n > 0; n-- {
				lon, lat := g.geoPoint()
				args = append(args, lon, lat, g.zmember())
			}
			if g.chance(12) {
				args = args[:len(args)-1]
			}
			return diffS(args...)
		}, false},
		{8, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{g.pick("GEOPOS", "GEOHASH"), g.zsetKey()}, g.geoMembers())...)
		}, false},
		{6, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"GEODIST", g.zsetKey(), g.zmember(), g.zmember()}, g.opts([]string{g.geoUnit()}, []string{"x"}))...)
		}, false},
		{14, func(g *diffGen) *diffStep {
			name := g.pick("GEOSEARCH", "GEOSEARCHSTORE", "geosearch")
			args := []string{name}
			if name == "GEOSEARCHSTORE" {
				args = append(args, g.zsetKey())
			}
			args = append(args, g.zsetKey())
			var opts []string
			if g.chance(2) {
				opts = append(opts, "FROMMEMBER", g.zmember())
			} else {
				lon, lat := g.geoPoint()
				opts = append(opts, g.pick("FROMLONLAT", "fromlonlat"), lon, lat)
			}
			if g.chance(2) {
				opts = append(opts, "BYRADIUS", g.geoRadius(), g.geoUnit())
			} else {
				opts = append(opts, "BYBOX", g.geoRadius(), g.geoRadius(), g.geoUnit())
			}
			if g.chance(15) {
				opts = opts[:g.r.Intn(len(opts))] // a FROM or BY missing
			}
			store := []string{g.pick("STOREDIST", "WITHDIST")}
			if name != "GEOSEARCHSTORE" {
				store = []string{g.pick("WITHDIST", "WITHCOORD", "WITHHASH")}
			}
			args = diffJ(args, opts, g.opts([]string{g.pick("ASC", "DESC")}, g.geoCount(), store,
				[]string{g.pick("WITHCOORD", "WITHHASH", "STOREDIST", "FOO")}))
			return diffS(args...)
		}, true},
		{12, func(g *diffGen) *diffStep {
			name := g.pick("GEORADIUS", "GEORADIUS_RO", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO")
			args := []string{name, g.zsetKey()}
			if name == "GEORADIUS" || name == "GEORADIUS_RO" {
				lon, lat := g.geoPoint()
				args = append(args, lon, lat)
			} else {
				args = append(args, g.zmember())
			}
			args = append(args, g.geoRadius(), g.geoUnit())
			args = diffJ(args, g.opts([]string{"WITHCOORD"}, []string{"WITHDIST"}, []string{"WITHHASH"}, g.geoCount(),
				[]string{g.pick("ASC", "DESC")}, []string{g.pick("STORE", "STOREDIST"), g.zsetKey()}))
			return diffS(args...)
		}, true},
	}
}

// geoPoint is a longitude and latitude: near a few places often, so that
// searches find points and points share cells, sometimes at the limits or
// past them, or not numbers.
func (g *diffGen) geoPoint() (string, string) {
	switch g.r.Intn(10) {
	case 0:
		return g.pick("180", "-180", "0", "181", "inf", "x", "179.9999999"), g.pick("85.05112878", "-85.05112878", "0", "85.06", "-90", "1e400")
	case 1, 2:
		return strconv.FormatFloat(g.r.Float64()*360-180, 'f', 6, 64), strconv.FormatFloat(g.r.Float64()*170-85, 'f', 6, 64)
	}
	places := [][2]float64{{13.361389, 38.115556}, {15.087269, 37.502669}, {-122.4194, 37.7749}, {0, 0}, {179.99, 84.9}, {-179.99, -70}}
	p := places[g.r.Intn(len(places))]
	j := func(f float64) string { return strconv.FormatFloat(f+(g.r.Float64()-0.5)*2, 'f', 5, 64) }
	return j(p[0]), j(p[1])
}

func (g *diffGen) geoUnit() string { return g.pick("m", "km", "KM", "mi", "ft", "yd") }

func (g *diffGen) geoRadius() string {
	return g.pick("0", "1", "50", "200", "1000", "5000", "20000", "1e7", "-1", "x", "0.5", "inf")
}

func (g *diffGen) geoCount() []string {
	args := []string{"COUNT", g.pick("1", "2", "3", "10", "0", "-1", "x")}
	if g.chance(2) {
		args = append(args, g.pick("ANY", "any"))
	}
	return args
}

func (g *diffGen) geoMembers() []string {
	var ms []string
	for n := g.r.Intn(4); n > 0; n-- {
		ms = append(ms, g.zmember())
	}
	return ms
}
