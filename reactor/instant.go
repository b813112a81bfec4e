package reactor

// instantRates are the per-second rates INFO calls instantaneous (commands,
// network bytes in and out) of one core. The timer samples the core's
// counters every instantPeriod ms, and a rate is the mean of the last
// instantSamples samples, as Redis computes its own, so it follows the load
// over about 1.6 s and falls to 0 as long after the load stops.
type instantRates struct {
	at      int64 // Unix ms of the last sample; 0 before the first
	last    [instantCount]uint64
	samples [instantCount][instantSamples]uint64
	next    int // the sample the next one replaces
}

const (
	instantPeriod  = 100 // ms
	instantSamples = 16
)

// The counters instantRates follows.
const (
	instantCommands = iota
	instantNetIn
	instantNetOut
	instantCount
)

// sample takes the counters' values v at now (Unix ms), once instantPeriod
// has passed since the last sample.
func (r *instantRates) sample(now int64, v [instantCount]uint64) {
	if r.at != 0 {
		t := now - r.at
		if t < instantPeriod {
			return
		}
		for i := range v {
			r.samples[i][r.next] = (v[i] - r.last[i]) * 1000 / uint64(t)
		}
		r.next = (r.next + 1) % instantSamples
	}
	r.at, r.last = now, v
}

// rate is counter i's mean rate per second over the last samples.
func (r *instantRates) rate(i int) uint64 {
	var sum uint64
	for _, s := range r.samples[i] {
		sum += s
	}
	return sum / instantSamples
}
