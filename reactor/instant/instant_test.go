package instant

import "testing"

// TestInstantRates: a rate is the mean of the last 16 samples, each the
// counter's growth per second since the sample before, and samples closer
// than 100 ms to the last are skipped.
func TestInstantRates(t *testing.T) {
	var r Rates
	at := int64(1_000_000)
	var v [Count]uint64
	r.Sample(at, v) // the first sample only sets the start
	for i := 0; i < 8; i++ {
		at += 100
		v[Commands] += 500 // 5000/s
		v[NetIn] += 1024   // 10240 B/s
		r.Sample(at, v)
		r.Sample(at+50, [Count]uint64{1 << 40}) // too soon: ignored
	}
	if got := r.Rate(Commands); got != 5000*8/16 {
		t.Fatalf("after 8 samples of 5000/s: %d, want %d", got, 5000*8/16)
	}
	for i := 0; i < 16; i++ {
		at += 200
		v[Commands] += 2000 // 10000/s over 200 ms
		r.Sample(at, v)
	}
	if got, in := r.Rate(Commands), r.Rate(NetIn); got != 10000 || in != 0 {
		t.Fatalf("after 16 samples of 10000/s: %d commands/s, %d bytes in/s; want 10000, 0", got, in)
	}
	for i := 0; i < 16; i++ {
		at += 100
		r.Sample(at, v)
	}
	if got := r.Rate(Commands); got != 0 {
		t.Fatalf("after 16 idle samples: %d/s", got)
	}
}
