package shardowner

import (
	"bytes"
	"math"
	"sort"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// The geo commands (Redis's t_geo): a geo set is a sorted set whose scores
// are the geohashes of geohash.go, so that every sorted set command, DUMP
// and TYPE see it as the sorted set it is.

var (
	errGeoUnit       = resp.Error("ERR unsupported unit provided. please use M, KM, FT, MI")
	errGeoMember     = resp.Error("ERR could not decode requested zset member")
	errGeoRadius     = resp.Error("ERR need numeric radius")
	errGeoNegRadius  = resp.Error("ERR radius cannot be negative")
	errGeoWidth      = resp.Error("ERR need numeric width")
	errGeoHeight     = resp.Error("ERR need numeric height")
	errGeoNegBox     = resp.Error("ERR height or width cannot be negative")
	errGeoCount      = resp.Error("ERR COUNT must be > 0")
	errGeoAnyCount   = resp.Error("ERR the ANY argument requires COUNT argument")
	errGeoSearchWith = resp.Error("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
	errGeoRadiusWith = resp.Error("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
)

// geoWord reports whether argument a is the option lower, compared as C's
// strcasecmp compares it: up to a NUL byte.
func geoWord(a []byte, lower string) bool {
	if i := bytes.IndexByte(a, 0); i >= 0 {
		a = a[:i]
	}
	return resp.EqualFold(a, lower)
}

// geoLonLat reads a longitude and latitude; false once it has answered the
// error.
func geoLonLat(c *Ctx, lon, lat []byte) (x, y float64, ok bool) {
	if x, ok = resp.ParseFloat(lon); ok {
		y, ok = resp.ParseFloat(lat)
	}
	if !ok {
		c.W.Err(resp.ErrNotFloat)
		return 0, 0, false
	}
	if !geoValid(x, y) {
		b := append([]byte("ERR invalid longitude,latitude pair "), cFloat6(x)...)
		b = append(append(b, ','), cFloat6(y)...)
		c.W.Err(resp.Error(b))
		return 0, 0, false
	}
	return x, y, true
}

// cFloat6 writes f as C's "%f" does.
func cFloat6(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoUnit is the metres in a unit of distance; false once it has answered
// the error.
func geoUnit(c *Ctx, u []byte) (float64, bool) {
	switch {
	case geoWord(u, "m"):
		return 1, true
	case geoWord(u, "km"):
		return 1000, true
	case geoWord(u, "ft"):
		return 0.3048, true
	case geoWord(u, "mi"):
		return 1609.34, true
	}
	c.W.Err(errGeoUnit)
	return 0, false
}

// geoRadius reads a radius and its unit into s.
func geoRadius(c *Ctx, s *geoShape, r, unit []byte) bool {
	d, ok := resp.ParseFloat(r)
	switch {
	case !ok:
		c.W.Err(errGeoRadius)
		return false
	case d < 0:
		c.W.Err(errGeoNegRadius)
		return false
	}
	conv, ok := geoUnit(c, unit)
	if ok {
		s.box, s.radius, s.conv = false, d, conv
	}
	return ok
}

// geoBox reads a box's width, height and unit into s.
func geoBox(c *Ctx, s *geoShape, w, h, unit []byte) bool {
	width, ok := resp.ParseFloat(w)
	if !ok {
		c.W.Err(errGeoWidth)
		return false
	}
	height, ok := resp.ParseFloat(h)
	switch {
	case !ok:
		c.W.Err(errGeoHeight)
		return false
	case width < 0 || height < 0:
		c.W.Err(errGeoNegBox)
		return false
	}
	conv, ok := geoUnit(c, unit)
	if ok {
		s.box, s.width, s.height, s.conv = true, width, height, conv
	}
	return ok
}

// writeGeoCoord replies a coordinate as Redis prints a long double for
// people: 17 decimals without the trailing zeros, a bulk string in RESP2
// and a double in RESP3.
func writeGeoCoord(c *Ctx, f float64) {
	var tmp [48]byte
	b := strconv.AppendFloat(tmp[:0], f, 'f', 17, 64)
	if bytes.IndexByte(b, '.') >= 0 {
		b = bytes.TrimRight(b, "0")
		b = bytes.TrimSuffix(b, []byte("."))
	}
	if string(b) == "-0" {
		b = b[1:]
	}
	if c.W.RESP3() {
		c.W.B = append(c.W.B, ',')
		c.W.B = append(c.W.B, b...)
		c.W.B = append(c.W.B, '\r', '\n')
		return
	}
	c.W.Bulk(b)
}

// writeGeoDist replies a distance with four decimals, a bulk string in
// both protocols.
func writeGeoDist(c *Ctx, d float64) {
	var tmp [48]byte
	c.W.Bulk(strconv.AppendFloat(tmp[:0], d, 'f', 4, 64))
}

// GeoAdd: GEOADD key [NX|XX] [CH] longitude latitude member [...]. It is
// ZADD of the points' scores, and so its event is zadd.
func GeoAdd(c *Ctx, argv [][]byte) {
	var nx, xx, ch bool
	i := 2
options:
	for ; i < len(argv); i++ {
		switch a := argv[i]; {
		case geoWord(a, "nx"):
			nx = true
		case geoWord(a, "xx"):
			xx = true
		case geoWord(a, "ch"):
			ch = true
		default:
			break options
		}
	}
	points := argv[i:]
	if len(points) == 0 || len(points)%3 != 0 || (nx && xx) {
		c.W.Err(resp.ErrSyntax)
		return
	}
	pairs := make([][]byte, 0, len(points)/3*2)
	text := make([]byte, 0, len(points)/3*17)
	for j := 0; j < len(points); j += 3 {
		lon, lat, ok := geoLonLat(c, points[j], points[j+1])
		if !ok {
			return
		}
		start := len(text)
		text = strconv.AppendUint(text, geoPointScore(lon, lat), 10)
		pairs = append(pairs, text[start:len(text):len(text)], points[j+2])
	}
	zadd(c, argv[1], pairs, nx, xx, false, false, ch, false)
}

// GeoPos: GEOPOS key [member ...]. A missing member is a null array.
func GeoPos(c *Ctx, argv [][]byte) {
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	c.W.Array(len(argv) - 2)
	for _, m := range argv[2:] {
		if found {
			if s, ok := zviewOf(v).score(m); ok {
				lon, lat := geoPoint(s)
				c.W.Array(2)
				writeGeoCoord(c, lon)
				writeGeoCoord(c, lat)
				continue
			}
		}
		c.W.NullArray()
	}
}

// GeoDist: GEODIST key member1 member2 [M|KM|FT|MI].
func GeoDist(c *Ctx, argv [][]byte) {
	conv := 1.0
	switch {
	case len(argv) == 5:
		var ok bool
		if conv, ok = geoUnit(c, argv[4]); !ok {
			return
		}
	case len(argv) > 5:
		c.W.Err(resp.ErrSyntax)
		return
	}
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	z := zviewOf(v)
	s1, ok1 := z.score(argv[2])
	s2, ok2 := z.score(argv[3])
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	lon1, lat1 := geoPoint(s1)
	lon2, lat2 := geoPoint(s2)
	writeGeoDist(c, geoDistance(lon1, lat1, lon2, lat2)/conv)
}

// GeoHash: GEOHASH key [member ...]: each member's standard 11-character
// geohash, or null.
func GeoHash(c *Ctx, argv [][]byte) {
	v, found, ok := readKind(c, argv[1], KindZSet)
	if !ok {
		return
	}
	c.W.Array(len(argv) - 2)
	var tmp [11]byte
	for _, m := range argv[2:] {
		if found {
			if s, ok := zviewOf(v).score(m); ok {
				c.W.Bulk(geoHashText(tmp[:0], s))
				continue
			}
		}
		c.W.Null()
	}
}

// The forms of the search, as flags of geoSearch.
const (
	geoFromLonLat = 1 << iota // GEORADIUS: key longitude latitude radius unit
	geoFromMember             // GEORADIUSBYMEMBER: key member radius unit
	geoSearchForm             // GEOSEARCH: key, then FROM… and BY… among the options
	geoStoreForm              // GEOSEARCHSTORE: destination first
	geoReadOnly               // the _RO forms: no STORE
)

const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

// geoHit is a point found by a search.
type geoHit struct {
	member         []byte
	lon, lat, dist float64
	score          float64
}

// GeoSearch: GEOSEARCH key FROMMEMBER member|FROMLONLAT lon lat BYRADIUS r
// unit|BYBOX w h unit [ASC|DESC] [COUNT n [ANY]] [WITHCOORD] [WITHDIST]
// [WITHHASH].
func GeoSearch(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoSearchForm) }

// GeoSearchStore: GEOSEARCHSTORE destination source … [STOREDIST], the
// options of GEOSEARCH but the WITH ones.
func GeoSearchStore(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoSearchForm|geoStoreForm) }

// GeoRadius: GEORADIUS key longitude latitude radius unit [WITHCOORD]
// [WITHDIST] [WITHHASH] [COUNT n [ANY]] [ASC|DESC] [STORE key|STOREDIST
// key].
func GeoRadius(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoFromLonLat) }

// GeoRadiusRO: GEORADIUS_RO, GEORADIUS without STORE.
func GeoRadiusRO(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoFromLonLat|geoReadOnly) }

// GeoRadiusByMember: GEORADIUSBYMEMBER key member radius unit and the
// options of GEORADIUS.
func GeoRadiusByMember(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoFromMember) }

// GeoRadiusByMemberRO: GEORADIUSBYMEMBER_RO, GEORADIUSBYMEMBER without
// STORE.
func GeoRadiusByMemberRO(c *Ctx, argv [][]byte) { geoSearch(c, argv, geoFromMember|geoReadOnly) }

// geoSearch runs every form of the search: GEOSEARCH, GEOSEARCHSTORE,
// GEORADIUS, GEORADIUSBYMEMBER and their _RO forms. It checks its
// arguments in Redis's order, so that the same error comes first: a
// missing key still has its options read, and answers an empty array (or
// 0, deleting the destination) only once they are valid.
func geoSearch(c *Ctx, argv [][]byte, form int) {
	src := 1
	var store []byte
	if form&geoStoreForm != 0 {
		src, store = 2, argv[1]
	}
	v, found, ok := readKind(c, argv[src], KindZSet)
	if !ok {
		return
	}
	var z zview
	if found {
		z = zviewOf(v)
	}
	var s geoShape
	base := 2
	switch {
	case form&geoFromLonLat != 0:
		base = 6
		var ok bool
		if s.lon, s.lat, ok = geoLonLat(c, argv[2], argv[3]); !ok || !geoRadius(c, &s, argv[4], argv[5]) {
			return
		}
	case form&geoFromMember != 0:
		base = 5
		if found {
			if !geoCentre(c, z, &s, argv[2]) || !geoRadius(c, &s, argv[3], argv[4]) {
				return
			}
		}
	case form&geoStoreForm != 0:
		base = 3
	}
	var withDist, withHash, withCoord, any, storeDist bool
	var fromMember, fromLonLat, byRadius, byBox bool
	order := geoSortNone
	var count int64
	opts := argv[base:]
	search := form&geoSearchForm != 0
	for i := 0; i < len(opts); i++ {
		a, left := opts[i], len(opts)-1-i
		switch {
		case geoWord(a, "withdist"):
			withDist = true
		case geoWord(a, "withhash"):
			withHash = true
		case geoWord(a, "withcoord"):
			withCoord = true
		case geoWord(a, "any"):
			any = true
		case geoWord(a, "asc"):
			order = geoSortAsc
		case geoWord(a, "desc"):
			order = geoSortDesc
		case geoWord(a, "count") && left >= 1:
			n, ok := resp.ParseInt(opts[i+1])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if n <= 0 {
				c.W.Err(errGeoCount)
				return
			}
			count = n
			i++
		case !search && form&geoReadOnly == 0 && left >= 1 && (geoWord(a, "store") || geoWord(a, "storedist")):
			store, storeDist = opts[i+1], geoWord(a, "storedist")
			i++
		case search && form&geoStoreForm != 0 && geoWord(a, "storedist"):
			storeDist = true
		case search && !fromLonLat && left >= 1 && geoWord(a, "frommember"):
			if found && !geoCentre(c, z, &s, opts[i+1]) {
				return
			}
			fromMember = true
			i++
		case search && !fromMember && left >= 2 && geoWord(a, "fromlonlat"):
			var ok bool
			if s.lon, s.lat, ok = geoLonLat(c, opts[i+1], opts[i+2]); !ok {
				return
			}
			fromLonLat = true
			i += 2
		case search && !byBox && left >= 2 && geoWord(a, "byradius"):
			if !geoRadius(c, &s, opts[i+1], opts[i+2]) {
				return
			}
			byRadius = true
			i += 2
		case search && !byRadius && left >= 3 && geoWord(a, "bybox"):
			if !geoBox(c, &s, opts[i+1], opts[i+2], opts[i+3]) {
				return
			}
			byBox = true
			i += 3
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	name := argv[0]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	switch {
	case store != nil && (withDist || withHash || withCoord):
		if form&geoStoreForm != 0 {
			c.W.Err(errGeoSearchWith)
		} else {
			c.W.Err(errGeoRadiusWith)
		}
		return
	case search && !fromMember && !fromLonLat:
		c.W.Err(resp.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(name)))
		return
	case search && !byRadius && !byBox:
		c.W.Err(resp.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(name)))
		return
	case any && count == 0:
		c.W.Err(errGeoAnyCount)
		return
	}
	if !found {
		if store != nil {
			storeZSet(c, store, nil, 0, "")
			c.W.Int(0)
		} else {
			c.W.Array(0)
		}
		return
	}
	if count != 0 && order == geoSortNone && !any {
		order = geoSortAsc
	}
	limit := int64(0)
	if any {
		limit = count
	}
	hits := geoScan(z, &s, limit)
	if len(hits) == 0 && store == nil {
		c.W.Array(0)
		return
	}
	switch order {
	case geoSortAsc:
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].dist < hits[j].dist })
	case geoSortDesc:
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].dist > hits[j].dist })
	}
	if count != 0 && int64(len(hits)) > count {
		hits = hits[:count]
	}
	if store != nil {
		geoStore(c, store, hits, s.conv, storeDist, form&geoSearchForm != 0)
		return
	}
	extra := 0
	for _, w := range [...]bool{withDist, withHash, withCoord} {
		if w {
			extra++
		}
	}
	c.W.Array(len(hits))
	for _, h := range hits {
		if extra > 0 {
			c.W.Array(extra + 1)
		}
		c.W.Bulk(h.member)
		if withDist {
			writeGeoDist(c, h.dist/s.conv)
		}
		if withHash {
			c.W.Int(int64(h.score))
		}
		if withCoord {
			c.W.Array(2)
			writeGeoCoord(c, h.lon)
			writeGeoCoord(c, h.lat)
		}
	}
}

// geoCentre sets the shape's centre to member's point; false once it has
// answered that there is no such member.
func geoCentre(c *Ctx, z zview, s *geoShape, member []byte) bool {
	score, ok := z.score(member)
	if !ok {
		c.W.Err(errGeoMember)
		return false
	}
	s.lon, s.lat = geoPoint(score)
	return true
}

// geoScan finds the points of z in shape, in the order of the cells it
// reads and of the scores within each, stopping at limit points when
// limit is not 0. What it keeps is bounded by the size of z: a point is in
// one cell, and a cell that repeats the one before is skipped.
func geoScan(z zview, s *geoShape, limit int64) []geoHit {
	var hits []geoHit
	cells := s.cells()
	last := 0
	for i, cell := range cells {
		if cell.none() || (last != 0 && cell == cells[last]) {
			continue
		}
		if limit > 0 && int64(len(hits)) >= limit {
			break
		}
		hits = geoScanCell(z, cell, s, limit, hits)
		last = i
	}
	return hits
}

// geoScanCell appends the points of z in cell that are in shape s.
func geoScanCell(z zview, cell geoCell, s *geoShape, limit int64, hits []geoHit) []geoHit {
	lo := float64(cell.score())
	hi := float64(geoCell{cell.bits + 1, cell.step}.score())
	sp := scoreSpan(z, scoreBound{s: lo}, scoreBound{s: hi, excl: true})
	if sp.to <= sp.from {
		return hits
	}
	var it ziter
	it.start(z, sp.from)
	defer it.release()
	for r := sp.from; r < sp.to; r++ {
		if r > sp.from {
			it.next()
		}
		m, score := it.at()
		lon, lat := geoPoint(score)
		d, in := s.contains(lon, lat)
		if !in {
			continue
		}
		hits = append(hits, geoHit{member: m, lon: lon, lat: lat, dist: d, score: score})
		if limit > 0 && int64(len(hits)) >= limit {
			break
		}
	}
	return hits
}

// geoStore stores the hits under key as a sorted set, scored by their
// geohash or, for STOREDIST, by their distance in the search's unit; none
// deletes key. The event is geosearchstore or georadiusstore.
func geoStore(c *Ctx, key []byte, hits []geoHit, conv float64, byDist, search bool) {
	for i := range hits {
		if byDist {
			hits[i].score = hits[i].dist / conv
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		return zLess(hits[i].score, hits[i].member, hits[j].score, hits[j].member)
	})
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	buf.B = append(buf.B[:0], room[:]...)
	n := 0
	for i, h := range hits {
		if i > 0 && bytes.Equal(h.member, hits[i-1].member) {
			continue
		}
		buf.B = appendZElem(buf.B, h.member, h.score)
		n++
	}
	event := "georadiusstore"
	if search {
		event = "geosearchstore"
	}
	if storeZSet(c, key, buf.B, n, event) {
		c.W.Int(int64(n))
	}
}
