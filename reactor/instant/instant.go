// Package instant owns the instantaneous rates INFO shows (commands, network
// bytes in and out per second), sampled by each core's timer.
package instant

// Rates are the per-second rates INFO calls instantaneous (commands,
// network bytes in and out) of one core. The timer samples the core's
// counters every period ms, and a rate is the mean of the last nSamples
// samples, as Redis computes its own, so it follows the load
// over about 1.6 s and falls to 0 as long after the load stops.
type Rates struct {
	at      int64 // Unix ms of the last sample; 0 before the first
	last    [Count]uint64
	samples [Count][nSamples]uint64
	next    int // the sample the next one replaces
}

const (
	period   = 100 // ms
	nSamples = 16
)

// The counters Rates follows.
const (
	Commands = iota
	NetIn
	NetOut
	Count
)

// Sample takes the counters' values v at now (Unix ms), once period
// has passed since the last sample.
func (r *Rates) Sample(now int64, v [Count]uint64) {
	if r.at != 0 {
		t := now - r.at
		if t < period {
			return
		}
		for i := range v {
			r.samples[i][r.next] = (v[i] - r.last[i]) * 1000 / uint64(t)
		}
		r.next = (r.next + 1) % nSamples
	}
	r.at, r.last = now, v
}

// Rate is counter i's mean rate per second over the last samples.
func (r *Rates) Rate(i int) uint64 {
	var sum uint64
	for _, s := range r.samples[i] {
		sum += s
	}
	return sum / nSamples
}
