package shardowner

import "math"

// The geohash of the geo commands. A point is kept as a sorted set score:
// its longitude and latitude each cut into 2^26 steps of the Web Mercator
// range (longitude -180..180, latitude ±85.05112878), the two cell indexes
// interleaved bit by bit with the latitude's in the even bits, 52 bits in
// all, so that nearby points have nearby scores and a cell of any coarser
// step is one score range. A point reads back as the centre of its cell.
//
// The arithmetic is done in the order Redis does it, each product rounded
// to a float64 before it is added (no fused multiply-add), so that scores,
// decoded coordinates and the cells a search visits are Redis's bit for bit.

const (
	geoStepMax  = 26 // steps per coordinate of a stored score
	geoLatLimit = 85.05112878
	// geoEarthRadius is the earth's radius in metres as Redis's distances
	// take it.
	geoEarthRadius = 6372797.560856
	// geoMercatorMax is half the circumference the step estimate starts
	// from, in metres.
	geoMercatorMax = 20037726.37
)

// geoRange is the extent of one coordinate.
type geoRange struct{ min, max float64 }

var (
	geoLonRange = geoRange{-180, 180}
	geoLatRange = geoRange{-geoLatLimit, geoLatLimit}
	// geoStdLatRange is the latitude of a standard geohash (GEOHASH's).
	geoStdLatRange = geoRange{-90, 90}
)

// geoPi and geoDegRad are variables so that the degree factor is the
// float64 quotient of float64 pi, as C computes M_PI / 180.0, rather than
// the constant rounded once from the exact value.
var (
	geoPi     = math.Pi
	geoDegRad = geoPi / 180
)

func degRad(deg float64) float64 { return deg * geoDegRad }
func radDeg(rad float64) float64 { return rad / geoDegRad }

// geoCell is a cell of a geohash grid: step bits per coordinate,
// interleaved.
type geoCell struct {
	bits uint64
	step uint
}

// none reports a cell cleared from a search (step 0).
func (c geoCell) none() bool { return c.bits == 0 && c.step == 0 }

// score is the cell's first score at full precision; the cell covers
// [score, next cell's score).
func (c geoCell) score() uint64 { return c.bits << (2*geoStepMax - 2*c.step) }

// geoArea is the extent of a cell.
type geoArea struct{ lon, lat geoRange }

// spreadBits places the bits of x at the even positions of the result.
func spreadBits(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f0f0f0f0f
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// gatherBits is spreadBits undone: the even bits of v, packed.
func gatherBits(v uint64) uint32 {
	v &= 0x5555555555555555
	v = (v | v>>1) & 0x3333333333333333
	v = (v | v>>2) & 0x0f0f0f0f0f0f0f0f
	v = (v | v>>4) & 0x00ff00ff00ff00ff
	v = (v | v>>8) & 0x0000ffff0000ffff
	v = (v | v>>16) & 0x00000000ffffffff
	return uint32(v)
}

// geoInterleave makes a cell's bits from its latitude and longitude
// indexes.
func geoInterleave(lat, lon uint32) uint64 { return spreadBits(lat) | spreadBits(lon)<<1 }

// geoEncode finds the cell of step that holds lon, lat within the ranges;
// false outside them or outside the limits of a stored point.
func geoEncode(lonR, latR geoRange, lon, lat float64, step uint) (geoCell, bool) {
	if step == 0 || step > 32 ||
		lon > 180 || lon < -180 || lat > geoLatLimit || lat < -geoLatLimit ||
		lon < lonR.min || lon > lonR.max || lat < latR.min || lat > latR.max {
		return geoCell{}, false
	}
	latOff := (lat - latR.min) / (latR.max - latR.min)
	lonOff := (lon - lonR.min) / (lonR.max - lonR.min)
	n := float64(uint64(1) << step)
	latOff *= n
	lonOff *= n
	// A coordinate at the top of its range makes index 2^step, which
	// spills into the next bits as it does in Redis.
	return geoCell{geoInterleave(uint32(latOff), uint32(lonOff)), step}, true
}

// geoDecode is the extent of cell c in the ranges.
func geoDecode(lonR, latR geoRange, c geoCell) geoArea {
	lat, lon := gatherBits(c.bits), gatherBits(c.bits>>1)
	n := float64(uint64(1) << c.step)
	latScale, lonScale := latR.max-latR.min, lonR.max-lonR.min
	var a geoArea
	// lat+1 wraps as C's unsigned arithmetic does.
	a.lat.min = latR.min + float64(float64(lat)/n*latScale)
	a.lat.max = latR.min + float64(float64(lat+1)/n*latScale)
	a.lon.min = lonR.min + float64(float64(lon)/n*lonScale)
	a.lon.max = lonR.min + float64(float64(lon+1)/n*lonScale)
	return a
}

// centre is the middle of the area, held to the limits of a stored point.
func (a geoArea) centre() (lon, lat float64) {
	lon = (a.lon.min + a.lon.max) / 2
	lon = math.Max(-180, math.Min(180, lon))
	lat = (a.lat.min + a.lat.max) / 2
	lat = math.Max(-geoLatLimit, math.Min(geoLatLimit, lat))
	return lon, lat
}

// geoScoreBits is the cell a score names, converted as C converts a double
// to uint64 on x86-64: truncated, a negative score as its two's
// complement, and the values no uint64 holds as the processor's answer.
func geoScoreBits(s float64) uint64 {
	const two63 = 1 << 63
	switch {
	case s != s: // NaN, which no sorted set holds
		return 0
	case s < two63:
		if s < -two63 {
			return 1 << 63
		}
		return uint64(int64(s))
	case s-two63 < two63:
		return uint64(int64(s-two63)) ^ 1<<63
	}
	return 0
}

// geoPoint decodes a stored score to the centre of its cell.
func geoPoint(score float64) (lon, lat float64) {
	c := geoCell{geoScoreBits(score), geoStepMax}
	return geoDecode(geoLonRange, geoLatRange, c).centre()
}

// geoPointScore is the score of the point lon, lat, which the caller has
// checked against the limits.
func geoPointScore(lon, lat float64) uint64 {
	c, _ := geoEncode(geoLonRange, geoLatRange, lon, lat, geoStepMax)
	return c.score()
}

// geoValid reports whether lon, lat may be stored.
func geoValid(lon, lat float64) bool {
	return lon >= -180 && lon <= 180 && lat >= -geoLatLimit && lat <= geoLatLimit
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// geoHashText is the 11-character standard geohash of a stored score: its
// point encoded again over latitude -90..90, five bits a character; the
// eleventh character, past the 52 bits, is always '0'.
func geoHashText(dst []byte, score float64) []byte {
	lon, lat := geoPoint(score)
	c, _ := geoEncode(geoLonRange, geoStdLatRange, lon, lat, geoStepMax)
	for i := 1; i <= 10; i++ {
		dst = append(dst, geoAlphabet[(c.bits>>(52-5*i))&0x1f])
	}
	return append(dst, '0')
}

// geoLatDistance is the distance in metres along a meridian.
func geoLatDistance(lat1, lat2 float64) float64 {
	return geoEarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// geoDistance is the haversine distance in metres between two points.
func geoDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := geoSin((lon2r - lon1r) / 2)
	if v == 0 {
		return geoLatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := geoSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(geoCos(lat1r)*geoCos(lat2r))*v*v)
	return 2.0 * geoEarthRadius * geoAsin(math.Sqrt(a))
}

// geoShape is a search area: a circle of radius, or a box of width by
// height, in units of conv metres, around lon, lat.
type geoShape struct {
	lon, lat      float64
	box           bool
	radius        float64
	width, height float64
	conv          float64
}

// contains reports whether the point lon, lat is in the shape, and its
// distance from the centre in metres.
func (s *geoShape) contains(lon, lat float64) (float64, bool) {
	if !s.box {
		d := geoDistance(s.lon, s.lat, lon, lat)
		return d, d <= s.radius*s.conv
	}
	if geoLatDistance(lat, s.lat) > s.height*s.conv/2 {
		return 0, false
	}
	if geoDistance(lon, lat, s.lon, lat) > s.width*s.conv/2 {
		return 0, false
	}
	return geoDistance(s.lon, s.lat, lon, lat), true
}

// bounds is the shape's bounding box: min lon, min lat, max lon, max lat.
func (s *geoShape) bounds() [4]float64 {
	h, w := s.conv*s.radius, s.conv*s.radius
	if s.box {
		h, w = s.conv*(s.height/2), s.conv*(s.width/2)
	}
	latDelta := radDeg(h / geoEarthRadius)
	top := radDeg(w / geoEarthRadius / geoCos(degRad(s.lat+latDelta)))
	bottom := radDeg(w / geoEarthRadius / geoCos(degRad(s.lat-latDelta)))
	// Away from the equator the box is widest at the side nearer it.
	d := top
	if s.lat < 0 {
		d = bottom
	}
	return [4]float64{s.lon - d, s.lat - latDelta, s.lon + d, s.lat + latDelta}
}

// geoSteps estimates the coarsest step whose cells are about as wide as
// rangeM metres at latitude lat.
func geoSteps(rangeM, lat float64) uint {
	if rangeM == 0 {
		return geoStepMax
	}
	step := 1
	for rangeM < geoMercatorMax {
		rangeM *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(max(1, min(geoStepMax, step)))
}

// geoMove is c moved dlon cells east and dlat north, wrapping round the
// grid. Only a coordinate that moves is held to the grid: a centre at the
// top of a range keeps its spilled bit in the other one, as in Redis.
func geoMove(c geoCell, dlon, dlat int) geoCell {
	mask := uint32(1)<<c.step - 1
	bits := c.bits
	if dlon != 0 {
		lon := (gatherBits(bits>>1) + uint32(dlon)) & mask
		bits = bits&0x5555555555555555 | spreadBits(lon)<<1
	}
	if dlat != 0 {
		lat := (gatherBits(bits) + uint32(dlat)) & mask
		bits = bits&^0x5555555555555555 | spreadBits(lat)
	}
	return geoCell{bits, c.step}
}

// geoCells are the cells a search of shape reads, in the order it reads
// them: the centre's cell, then north, south, east, west, north-east,
// north-west, south-east and south-west of it. The step is the coarsest
// whose nine cells cover the shape's bounding box; a neighbour wholly
// outside the box is cleared (none).
func (s *geoShape) cells() [9]geoCell {
	b := s.bounds()
	r := s.radius
	if s.box {
		r = math.Sqrt(float64((s.width/2)*(s.width/2)) + float64((s.height/2)*(s.height/2)))
	}
	r *= s.conv
	step := geoSteps(r, s.lat)
	around := func(step uint) (geoCell, geoArea, [9]geoCell) {
		c, _ := geoEncode(geoLonRange, geoLatRange, s.lon, s.lat, step)
		n := [9]geoCell{c,
			geoMove(c, 0, 1), geoMove(c, 0, -1), geoMove(c, 1, 0), geoMove(c, -1, 0),
			geoMove(c, 1, 1), geoMove(c, -1, 1), geoMove(c, 1, -1), geoMove(c, -1, -1)}
		return c, geoDecode(geoLonRange, geoLatRange, c), n
	}
	_, area, n := around(step)
	north := geoDecode(geoLonRange, geoLatRange, n[1])
	south := geoDecode(geoLonRange, geoLatRange, n[2])
	east := geoDecode(geoLonRange, geoLatRange, n[3])
	west := geoDecode(geoLonRange, geoLatRange, n[4])
	if step > 1 && (north.lat.max < b[3] || south.lat.min > b[1] || east.lon.max < b[2] || west.lon.min > b[0]) {
		step--
		_, area, n = around(step)
	}
	if step >= 2 {
		const (
			nN, nS, nE, nW, nNE, nNW, nSE, nSW = 1, 2, 3, 4, 5, 6, 7, 8
		)
		drop := func(is ...int) {
			for _, i := range is {
				n[i] = geoCell{}
			}
		}
		if area.lat.min < b[1] {
			drop(nS, nSW, nSE)
		}
		if area.lat.max > b[3] {
			drop(nN, nNE, nNW)
		}
		if area.lon.min < b[0] {
			drop(nW, nSW, nNW)
		}
		if area.lon.max > b[2] {
			drop(nE, nSE, nNE)
		}
	}
	return n
}
