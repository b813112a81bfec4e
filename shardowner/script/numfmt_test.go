package script

import (
	"math"
	"testing"
)

// The expectations are glibc's printf("%.14g") and printf("%.17g").
func TestAppendG(t *testing.T) {
	for _, c := range []struct {
		f        float64
		g14, g17 string
	}{
		{0, "0", "0"},
		{math.Copysign(0, -1), "-0", "-0"},
		{1, "1", "1"},
		{0.1, "0.1", "0.10000000000000001"},
		{1.0 / 3, "0.33333333333333", "0.33333333333333331"},
		{100.5, "100.5", "100.5"},
		{1e14, "1e+14", "100000000000000"},
		{1e15, "1e+15", "1000000000000000"},
		{123456789012345678, "1.2345678901235e+17", "1.2345678901234568e+17"},
		{1e-5, "1e-05", "1.0000000000000001e-05"},
		{0.0001, "0.0001", "0.0001"},
		{1e100, "1e+100", "1e+100"},
		{9007199254740991, "9.007199254741e+15", "9007199254740991"},
		{3.141, "3.141", "3.141"},
		{-2.5e-7, "-2.5e-07", "-2.4999999999999999e-07"},
		{1e21, "1e+21", "1e+21"},
		{5e-324, "4.9406564584125e-324", "4.9406564584124654e-324"},
		{math.MaxFloat64, "1.7976931348623e+308", "1.7976931348623157e+308"},
		{0.30000000000000004, "0.3", "0.30000000000000004"},
		{12345678901234.5, "12345678901234", "12345678901234.5"},
		{99999999999999.99, "1e+14", "99999999999999.984"},
		{0.000123456789012345, "0.00012345678901234", "0.00012345678901234499"},
		{math.Inf(1), "inf", "inf"},
		{math.Inf(-1), "-inf", "-inf"},
		{math.NaN(), "nan", "nan"},
		{math.Copysign(math.NaN(), -1), "-nan", "-nan"},
	} {
		if got := string(appendG(nil, c.f, 14)); got != c.g14 {
			t.Errorf("%%.14g of %v = %q, want %q", c.f, got, c.g14)
		}
		if got := string(appendG(nil, c.f, 17)); got != c.g17 {
			t.Errorf("%%.17g of %v = %q, want %q", c.f, got, c.g17)
		}
		if got := formatLuaNumber(c.f); got != c.g14 {
			t.Errorf("formatLuaNumber(%v) = %q, want %q", c.f, got, c.g14)
		}
	}
}

func TestLuaInt(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want int64
	}{
		{100.5, 100}, {-100.5, -100}, {0.9, 0}, {-0.9, 0},
		{9007199254740993, 9007199254740992},
		{1e300, math.MinInt64}, {-1e300, math.MinInt64},
		{math.NaN(), math.MinInt64}, {math.Inf(1), math.MinInt64},
		{-9223372036854775808, math.MinInt64},
	} {
		if got := luaInt(c.f); got != c.want {
			t.Errorf("luaInt(%v) = %d, want %d", c.f, got, c.want)
		}
	}
}

// The sequences are glibc's lrand48 after seed48 with the default state,
// and after srand48(10) and srand48(-5).
func TestRand48(t *testing.T) {
	r := rand48{x: rand48Init}
	for _, want := range []int32{851401618, 1804928587, 758783491} {
		if got := r.next(); got != want {
			t.Fatalf("lrand48 = %d, want %d", got, want)
		}
	}
	r.seed(10)
	for _, want := range []int32{1887318415, 1708981709, 1032568723} {
		if got := r.next(); got != want {
			t.Fatalf("after srand48(10): %d, want %d", got, want)
		}
	}
	r.seed(-5)
	if got := r.next(); got != 1754100061 {
		t.Fatalf("after srand48(-5): %d", got)
	}
}
