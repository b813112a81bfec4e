package shardowner

import (
	"math/bits"
	"sync/atomic"
)

// CmdStats are one command's counters on one shard, as INFO commandstats and
// latencystats report them once summed over shards.
type CmdStats struct {
	Calls    uint64 // runs counted as calls of the command
	Nanos    uint64 // time spent running it
	Failed   uint64 // runs that replied an error
	Rejected uint64 // refused before running (arity, NOAUTH)
	Lat      *Histogram
}

// CmdStat returns the counters of command id, growing the table on first
// use of an id; id -1 has counters that are never reported.
func (s *Shard) CmdStat(id int) *CmdStats {
	if id < 0 {
		return &s.noStats
	}
	if id >= len(s.Cmds) {
		s.Cmds = append(s.Cmds, make([]CmdStats, id+1-len(s.Cmds))...)
	}
	return &s.Cmds[id]
}

// Record counts one run of command id that took d nanoseconds; call is false
// for a part of a multi-shard command whose call is counted elsewhere.
func (s *Shard) Record(id int, d uint64, call, failed bool) { s.RecordN(id, d, 1, call, failed) }

// MoveStats adds the counters s keeps, but command skip's, into to's and
// zeroes s's; with to nil they are dropped. A scratch keyspace's counters
// are those of a script's inner calls, the shard's once its run stands.
func (s *Shard) MoveStats(to *Shard, skip int) {
	for id := range s.Cmds {
		st := &s.Cmds[id]
		if to != nil && id != skip && (st.Calls|st.Nanos|st.Failed|st.Rejected != 0) {
			to.CmdStat(id).Add(st)
		}
		lat := st.Lat
		if lat != nil {
			clear(lat[:])
		}
		*st = CmdStats{Lat: lat}
	}
}

// RecordN counts n runs of command id that took d nanoseconds each, as
// Record counts one.
func (s *Shard) RecordN(id int, d, n uint64, call, failed bool) {
	st := s.CmdStat(id)
	if call {
		st.Calls += n
	}
	if failed {
		st.Failed += n
	}
	st.Nanos += d * n
	if cfg := s.Slowlog; cfg != nil && cfg.NoLatency.Load() {
		return
	}
	if st.Lat == nil {
		st.Lat = new(Histogram)
	}
	st.Lat[histIndex(d)] += n
}

// Histogram counts durations in log-linear buckets: below 16 ns one bucket
// per nanosecond, above that 16 buckets per power of two, so a bucket is
// within 1/16 of its values and adding one costs a few instructions.
type Histogram [histBuckets]uint64

const (
	histSub     = 16
	histMaxBits = 41 // durations from 2^41 ns (about 36 minutes) share the last buckets
	histBuckets = (histMaxBits - 3) * histSub
)

// histIndex is the bucket of v nanoseconds.
func histIndex(v uint64) int {
	if v < histSub {
		return int(v)
	}
	e := bits.Len64(v)
	if e > histMaxBits {
		return histBuckets - 1
	}
	return (e-4)*histSub + int((v>>(e-5))&(histSub-1))
}

// histHigh is the largest value of bucket i.
func histHigh(i int) uint64 {
	if i < histSub {
		return uint64(i)
	}
	e := i/histSub + 4
	low := uint64(histSub+i%histSub) << (e - 5)
	return low + 1<<(e-5) - 1
}

// Add counts one duration of d nanoseconds.
func (h *Histogram) Add(d uint64) { h[histIndex(d)]++ }

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, n := range o {
		h[i] += n
	}
}

// Unmerge takes o's counts away from h, o having been merged into h.
func (h *Histogram) Unmerge(o *Histogram) {
	for i, n := range o {
		h[i] -= n
	}
}

// Add adds o's counts to s.
func (s *CmdStats) Add(o *CmdStats) {
	s.Calls += o.Calls
	s.Nanos += o.Nanos
	s.Failed += o.Failed
	s.Rejected += o.Rejected
	if o.Lat != nil {
		if s.Lat == nil {
			s.Lat = new(Histogram)
		}
		s.Lat.Merge(o.Lat)
	}
}

// Sub takes o's counts away from s, o having been added to s.
func (s *CmdStats) Sub(o *CmdStats) {
	s.Calls -= o.Calls
	s.Nanos -= o.Nanos
	s.Failed -= o.Failed
	s.Rejected -= o.Rejected
	if o.Lat != nil && s.Lat != nil {
		s.Lat.Unmerge(o.Lat)
		if s.Lat.Empty() {
			s.Lat = nil
		}
	}
}

// Total is the number of durations h has counted.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h {
		n += c
	}
	return n
}

// CountTo is the number of durations h has counted in the buckets whose
// values are all at most v nanoseconds.
func (h *Histogram) CountTo(v uint64) uint64 {
	var n uint64
	for i, c := range h {
		if histHigh(i) > v {
			break
		}
		n += c
	}
	return n
}

// Empty reports whether h has counted nothing.
func (h *Histogram) Empty() bool {
	for _, n := range h {
		if n != 0 {
			return false
		}
	}
	return true
}

// Percentile is the duration, in nanoseconds, that p percent of the counted
// durations do not exceed (the top of the bucket where they end), 0 when
// nothing was counted.
func (h *Histogram) Percentile(p float64) uint64 {
	var total uint64
	for _, n := range h {
		total += n
	}
	if total == 0 {
		return 0
	}
	want := uint64(p / 100 * float64(total))
	if float64(want) < p/100*float64(total) || want == 0 {
		want++
	}
	var seen uint64
	for i, n := range h {
		if seen += n; seen >= want {
			return histHigh(i)
		}
	}
	return histHigh(histBuckets - 1)
}

// SlowlogConfig is shared by the shards of a server: the settings of the slow
// log and of latency tracking, and the counter the slow log's entries take
// their IDs from, touched only when an entry is logged.
type SlowlogConfig struct {
	SlowerThan atomic.Int64 // µs; negative: log nothing
	MaxLen     atomic.Int64
	// NoLatency is latency-tracking no: run times go into no histogram.
	NoLatency atomic.Bool
	nextID    atomic.Int64
	// Client resolves a connection ID to its address and name when an entry
	// is logged; nil leaves them empty.
	Client func(id int64) (addr, name string)
}

// NewSlowlogConfig returns Redis's defaults.
func NewSlowlogConfig() *SlowlogConfig {
	c := new(SlowlogConfig)
	c.SlowerThan.Store(10000)
	c.MaxLen.Store(128)
	return c
}

// StatsPublisher is the core that runs a shard, as the parts of INFO and
// CONFIG RESETSTAT reach it: they go to every shard in order with the
// client's earlier commands, so that what the client ran before shows in
// (or is cleared by) what it runs next, and nothing it runs after does.
type StatsPublisher interface {
	// SnapshotStats keeps the core's and its shard's figures of now for
	// the INFO request named id.
	SnapshotStats(id []byte)
	// ResetStats makes what the core and its shard counted so far the zero
	// that later figures count from.
	ResetStats()
}

// InternalInfo: corekv.info <request>, the part of INFO and LATENCY HISTOGRAM on every
// shard.
func InternalInfo(c *Ctx, argv [][]byte) {
	if p := c.Shard.Publisher; p != nil {
		p.SnapshotStats(argv[1])
	}
	c.W.OK()
}

// InternalResetStats: corekv.resetstat, CONFIG RESETSTAT's part on every
// shard.
func InternalResetStats(c *Ctx, argv [][]byte) {
	if p := c.Shard.Publisher; p != nil {
		p.ResetStats()
	}
	c.W.OK()
}
