package reactor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// cmdStatsCopy is a core's command statistics as INFO reads them: the
// shard's counters, copied under mu at every timer tick, so that the shard
// itself counts without atomics.
type cmdStatsCopy struct {
	mu   sync.Mutex
	cmds []shardowner.CmdStats
}

// publishCmdStats copies the command statistics that changed since the
// last tick.
func (c *Core) publishCmdStats() {
	p := &c.cmdPub
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range c.shard.Cmds {
		st := &c.shard.Cmds[i]
		if i >= len(p.cmds) {
			p.cmds = append(p.cmds, make([]shardowner.CmdStats, i+1-len(p.cmds))...)
		}
		d := &p.cmds[i]
		if d.Calls == st.Calls && d.Nanos == st.Nanos && d.Failed == st.Failed && d.Rejected == st.Rejected {
			continue
		}
		lat := d.Lat
		*d = *st
		d.Lat = lat
		if st.Lat != nil {
			if d.Lat == nil {
				d.Lat = new(shardowner.Histogram)
			}
			*d.Lat = *st.Lat
		}
	}
}

// publishedCmds copies the command statistics core c last published.
func (c *Core) publishedCmds() []shardowner.CmdStats {
	p := &c.cmdPub
	p.mu.Lock()
	defer p.mu.Unlock()
	t := make([]shardowner.CmdStats, len(p.cmds))
	for i := range p.cmds {
		t[i].Add(&p.cmds[i])
	}
	return t
}

// writeCommandStats appends INFO's commandstats lines, as Redis 7 writes
// them.
func writeCommandStats(b *strings.Builder, cmds []shardowner.CmdStats) {
	names := router.StatNames()
	for i := range cmds {
		st := &cmds[i]
		if st.Calls == 0 && st.Failed == 0 && st.Rejected == 0 {
			continue
		}
		usec := st.Nanos / 1000
		perCall := 0.0
		if st.Calls > 0 {
			perCall = float64(usec) / float64(st.Calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			names[i], st.Calls, usec, perCall, st.Rejected, st.Failed)
	}
}

// writeLatencyStats appends INFO's latencystats lines: the 50th, 99th and
// 99.9th percentiles of each command's run time, in microseconds.
func writeLatencyStats(b *strings.Builder, cmds []shardowner.CmdStats) {
	names := router.StatNames()
	for i := range cmds {
		st := &cmds[i]
		if st.Calls == 0 || st.Lat == nil {
			continue
		}
		b.WriteString("latency_percentiles_usec_" + names[i] + ":")
		for j, p := range [...]float64{50, 99, 99.9} {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("p" + strconv.FormatFloat(p, 'f', -1, 64) + "=")
			b.WriteString(strconv.FormatFloat(float64(st.Lat.Percentile(p))/1000, 'f', 3, 64))
		}
		b.WriteString("\r\n")
	}
}

// clientOf is the slow log's view of connection id: its address and name,
// empty when it has gone.
func (s *Server) clientOf(id int64) (addr, name string) {
	s.mu.Lock()
	cn := s.registry[id]
	s.mu.Unlock()
	if cn == nil {
		return "", ""
	}
	if p := cn.info.name.Load(); p != nil {
		name = *p
	}
	return cn.info.addr, name
}
