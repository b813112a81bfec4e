package shardowner

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Scores, positions and geohashes as redis-server 7.0 gives them.
var geoKnown = []struct {
	lon, lat float64
	score    uint64
	plon     string // GEOPOS
	plat     string
	hash     string // GEOHASH
}{
	{13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
	{15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
	{0, 0, 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
	{-180, -geoLatLimit, 0, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
	// The top of both ranges spills past 52 bits, as in Redis, and reads
	// back held to the limits.
	{180, geoLatLimit, 13510798882111488, "180", "85.0511287799999991", "bp05b5048p0"},
}

func TestGeoKnownScores(t *testing.T) {
	for _, k := range geoKnown {
		if got := geoPointScore(k.lon, k.lat); got != k.score {
			t.Errorf("%v,%v: score %d, want %d", k.lon, k.lat, got, k.score)
		}
		if got := string(geoHashText(nil, float64(k.score))); got != k.hash {
			t.Errorf("%d: geohash %s, want %s", k.score, got, k.hash)
		}
	}
}

// TestGeoRoundTrip: a point decodes to the centre of its cell, within half
// a cell of where it was, and the centre encodes to the same score.
func TestGeoRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	halfLon := 360.0 / (1 << geoStepMax) / 2
	halfLat := 2 * geoLatLimit / (1 << geoStepMax) / 2
	for i := 0; i < 100000; i++ {
		lon := r.Float64()*360 - 180
		lat := r.Float64()*2*geoLatLimit - geoLatLimit
		s := geoPointScore(lon, lat)
		if s >= 1<<52 {
			t.Fatalf("%v,%v: score %d past 52 bits", lon, lat, s)
		}
		dlon, dlat := geoPoint(float64(s))
		if math.Abs(dlon-lon) > halfLon*1.0001 || math.Abs(dlat-lat) > halfLat*1.0001 {
			t.Fatalf("%v,%v reads back as %v,%v", lon, lat, dlon, dlat)
		}
		if again := geoPointScore(dlon, dlat); again != s {
			t.Fatalf("%v,%v: centre %v,%v scores %d, not %d", lon, lat, dlon, dlat, again, s)
		}
	}
}

// TestGeoScoreBits: scores that no GEOADD writes read as C's conversion
// to uint64 reads them on x86-64 (redis-server's GEOPOS of such scores).
func TestGeoScoreBits(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want uint64
	}{
		{0, 0}, {1.9, 1}, {-1, math.MaxUint64}, {-2.5, math.MaxUint64 - 1},
		{math.Inf(1), 0}, {math.Inf(-1), 1 << 63}, {1e30, 0}, {-1e19, 1 << 63},
		{1e19, 10000000000000000000}, {1 << 63, 1 << 63},
	} {
		if got := geoScoreBits(tc.s); got != tc.want {
			t.Errorf("geoScoreBits(%v) = %#x, want %#x", tc.s, got, tc.want)
		}
	}
}

func TestGeoDistance(t *testing.T) {
	// The points as given, then as stored (GEODIST's answer).
	d := geoDistance(13.361389, 38.115556, 15.087269, 37.502669)
	if got := strconv.FormatFloat(d, 'f', 4, 64); got != "166274.2578" {
		t.Errorf("Palermo-Catania %s, want 166274.2578", got)
	}
	plon, plat := geoPoint(3479099956230698)
	clon, clat := geoPoint(3479447370796909)
	if got := strconv.FormatFloat(geoDistance(plon, plat, clon, clat), 'f', 4, 64); got != "166274.1516" {
		t.Errorf("stored Palermo-Catania %s, want 166274.1516", got)
	}
	if d := geoDistance(10, 20, 10, 20); d != 0 {
		t.Errorf("same point %v", d)
	}
	// Along a meridian the distance is the arc.
	if d, want := geoDistance(5, 0, 5, 1), geoEarthRadius*degRad(1); math.Abs(d-want) > 1e-6 {
		t.Errorf("one degree of latitude %v, want %v", d, want)
	}
	// Half way round the equator.
	if d, want := geoDistance(0, 0, 180, 0), geoEarthRadius*math.Pi; math.Abs(d-want) > 1e-3 {
		t.Errorf("antipode %v, want %v", d, want)
	}
}

// TestGeoCellsCover: every point of a shape lies in one of the cells its
// search reads.
func TestGeoCellsCover(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		s := geoShape{lon: r.Float64()*360 - 180, lat: r.Float64()*160 - 80, conv: 1000}
		if r.IntN(2) == 0 {
			s.radius = math.Pow(10, r.Float64()*4-1)
		} else {
			s.box, s.width, s.height = true, math.Pow(10, r.Float64()*4-1), math.Pow(10, r.Float64()*4-1)
		}
		cells := s.cells()
		for j := 0; j < 50; j++ {
			// a point near the centre, within the shape's reach
			reach := s.radius
			if s.box {
				reach = math.Max(s.width, s.height)
			}
			deg := reach * 1000 / geoEarthRadius * 180 / math.Pi
			lon := s.lon + (r.Float64()*2-1)*deg*2
			lat := s.lat + (r.Float64()*2-1)*deg
			if !geoValid(lon, lat) {
				continue
			}
			score := geoPointScore(lon, lat)
			plon, plat := geoPoint(float64(score))
			if _, in := s.contains(plon, plat); !in {
				continue
			}
			found := false
			for _, c := range cells {
				if !c.none() && score >= c.score() && score < (geoCell{c.bits + 1, c.step}).score() {
					found = true
				}
			}
			if !found {
				t.Fatalf("shape %+v: point %v,%v (score %d) in no cell of %v", s, plon, plat, score, cells)
			}
		}
	}
}

func TestGeoMove(t *testing.T) {
	c, _ := geoEncode(geoLonRange, geoLatRange, 179.9, 0, 4)
	e := geoMove(c, 1, 0)
	if a := geoDecode(geoLonRange, geoLatRange, e); a.lon.min != -180 {
		t.Errorf("east of the last column is %+v, want the first", a)
	}
	if back := geoMove(e, -1, 0); back != c {
		t.Errorf("east then west: %+v, want %+v", back, c)
	}
	n := geoMove(geoMove(c, 0, 1), 0, -1)
	if n != c {
		t.Errorf("north then south: %+v, want %+v", n, c)
	}
}
