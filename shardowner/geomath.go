package shardowner

import "math"

// Sine, cosine and arcsine rounded correctly, for the geo distances.
// Redis takes them from the C library, whose results are the correctly
// rounded ones but in rare hard cases; Go's math package is within an ulp,
// and a distance an ulp off shows in a STOREDIST score. These compute in
// double-double arithmetic (about 106 bits) and round once.

// dd is an unevaluated sum hi + lo with |lo| at most half an ulp of hi.
type dd struct{ hi, lo float64 }

func ddTwoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func ddQuickSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := ddTwoSum(a.hi, b.hi)
	t := ddTwoSum(a.lo, b.lo)
	s = ddQuickSum(s.hi, s.lo+t.hi)
	return ddQuickSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return ddQuickSum(p, e)
}

func ddScale(a dd, f float64) dd { return ddMul(a, dd{f, 0}) }

// ddRecip is 1/m for an integer m.
func ddRecip(m float64) dd {
	q := 1 / m
	return dd{q, math.FMA(-q, m, 1) / m}
}
func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

// ddPiHalf is pi/2 to about 160 bits, in three parts.
var ddPiHalf = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}

// ddSinCosKernel is sin r and cos r for |r| <= pi/4, by their series.
func ddSinCosKernel(r dd) (sin, cos dd) {
	r2 := ddMul(r, r)
	// sin: r - r^3/3! + ...; cos: 1 - r^2/2! + ...
	term := r
	sin = r
	for n := 2; n < 40; n += 2 {
		term = ddNeg(ddMul(ddMul(term, r2), ddRecip(float64(n*(n+1)))))
		sin = ddAdd(sin, term)
		if math.Abs(term.hi) < 1e-36*math.Abs(sin.hi) {
			break
		}
	}
	term = dd{1, 0}
	cos = term
	for n := 1; n < 40; n += 2 {
		term = ddNeg(ddMul(ddMul(term, r2), ddRecip(float64(n*(n+1)))))
		cos = ddAdd(cos, term)
		if math.Abs(term.hi) < 1e-36 {
			break
		}
	}
	return sin, cos
}

// ddSinCos is sin x and cos x for |x| within a few turns; false past that.
func ddSinCos(x float64) (sin, cos dd, ok bool) {
	if math.IsNaN(x) || math.Abs(x) > 64 {
		return dd{}, dd{}, false
	}
	k := math.Round(x / ddPiHalf[0])
	r := dd{x, 0}
	for _, p := range ddPiHalf {
		hi := k * p
		r = ddAdd(r, ddNeg(dd{hi, math.FMA(k, p, -hi)}))
	}
	s, c := ddSinCosKernel(r)
	switch int64(k) & 3 {
	case 1:
		s, c = c, ddNeg(s)
	case 2:
		s, c = ddNeg(s), ddNeg(c)
	case 3:
		s, c = ddNeg(c), s
	}
	return s, c, true
}

// geoSin is sin x rounded correctly.
func geoSin(x float64) float64 {
	if x == 0 {
		return x
	}
	s, _, ok := ddSinCos(x)
	if !ok {
		return math.Sin(x)
	}
	return s.hi + s.lo
}

// geoCos is cos x rounded correctly.
func geoCos(x float64) float64 {
	_, c, ok := ddSinCos(x)
	if !ok {
		return math.Cos(x)
	}
	return c.hi + c.lo
}

// ddAsin is asin y for 0 <= y <= 1/2: a Newton step on sin from Go's
// value, which doubles its precision.
func ddAsin(y dd) dd {
	t := math.Asin(y.hi)
	s, c, _ := ddSinCos(t)
	// t - (sin t - y) / cos t
	d := ddAdd(s, ddNeg(y))
	return ddAdd(dd{t, 0}, dd{-(d.hi + d.lo) / c.hi, 0})
}

// ddSqrt is the square root of a non-negative v.
func ddSqrt(v dd) dd {
	s := math.Sqrt(v.hi)
	if s == 0 {
		return dd{}
	}
	// s + (v - s*s) / 2s
	e := ddAdd(v, ddNeg(dd{s * s, math.FMA(s, s, -s*s)}))
	return ddQuickSum(s, (e.hi+e.lo)/(2*s))
}

// geoAsin is asin y rounded correctly, for 0 <= y <= 1 (a haversine's
// square root); near 1, asin y = pi/2 - 2 asin sqrt((1-y)/2).
func geoAsin(y float64) float64 {
	if !(y >= 0 && y <= 1) {
		return math.Asin(y)
	}
	if y == 0 {
		return y
	}
	if y <= 0.5 {
		r := ddAsin(dd{y, 0})
		return r.hi + r.lo
	}
	h := ddSqrt(dd{(1 - y) / 2, 0}) // 1-y is exact for y in [1/2, 1]
	a := ddScale(ddAsin(h), -2)
	r := ddAdd(dd{ddPiHalf[0], ddPiHalf[1]}, a)
	return r.hi + r.lo
}
