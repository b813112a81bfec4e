package reactor

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// cmdStatsCopy is a core's command and error statistics as INFO reads them:
// the shard's and the core's counters, copied under mu at every timer tick
// and when a part of INFO runs here, so that they count without atomics.
type cmdStatsCopy struct {
	mu   sync.Mutex
	cmds []shardowner.CmdStats
	errs map[string]uint64
}

// errorCodesMax bounds how many error codes a core counts apart; errors of
// further codes are counted in total_error_replies only.
const errorCodesMax = 128

// countError counts reply, one reply on its way to a client, in INFO
// errorstats when it is an error: under its code, the word before the first
// space within its first 32 bytes, else ERR, as Redis counts them.
func (c *Core) countError(reply []byte) {
	if len(reply) == 0 || reply[0] != '-' {
		return
	}
	text := reply[1:min(len(reply), 33)]
	code := "ERR"
	if i := bytes.IndexByte(text, ' '); i >= 0 {
		code = string(text[:i])
	}
	c.stats.errorReplies++
	if n, ok := c.stats.errs[code]; ok || len(c.stats.errs) < errorCodesMax {
		c.stats.errs[code] = n + 1
	}
	c.stats.errsChanged = true
}

// publishCmdStats copies the command statistics that changed since the
// last tick.
func (c *Core) publishCmdStats() {
	p := &c.cmdPub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.stats.errsChanged {
		c.stats.errsChanged = false
		p.errs = maps.Clone(c.stats.errs)
	}
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

// publishedCmds copies the error statistics core c last published, and
// those of what parts names of its command statistics.
func (c *Core) publishedCmds(parts figureParts) ([]shardowner.CmdStats, map[string]uint64) {
	p := &c.cmdPub
	p.mu.Lock()
	defer p.mu.Unlock()
	var t []shardowner.CmdStats
	if parts.cmds {
		t = make([]shardowner.CmdStats, len(p.cmds))
		for i := range p.cmds {
			if parts.lat {
				t[i].Add(&p.cmds[i])
			} else {
				t[i] = p.cmds[i]
				t[i].Lat = nil
			}
		}
	}
	return t, maps.Clone(p.errs)
}

// writeErrorStats appends INFO's errorstats lines, by error code.
func writeErrorStats(b *strings.Builder, errs map[string]uint64) {
	for _, code := range slices.Sorted(maps.Keys(errs)) {
		if n := errs[code]; n > 0 {
			fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", code, n)
		}
	}
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

// writeLatencyStats appends INFO's latencystats lines: the percentiles of
// each command's run time (latency-tracking-info-percentiles), in
// microseconds.
func writeLatencyStats(b *strings.Builder, cmds []shardowner.CmdStats, percentiles []float64) {
	names := router.StatNames()
	for i := range cmds {
		st := &cmds[i]
		if st.Calls == 0 || st.Lat == nil {
			continue
		}
		b.WriteString("latency_percentiles_usec_" + names[i] + ":")
		for j, p := range percentiles {
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
