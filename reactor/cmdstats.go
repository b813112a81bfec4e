package reactor

import (
	"bytes"
	"maps"
	"sync"

	"github.com/corekv/corekv/reactor/servercmd"
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
func (c *Core) publishedCmds(parts servercmd.Parts) ([]shardowner.CmdStats, map[string]uint64) {
	p := &c.cmdPub
	p.mu.Lock()
	defer p.mu.Unlock()
	var t []shardowner.CmdStats
	if parts.Cmds {
		t = make([]shardowner.CmdStats, len(p.cmds))
		for i := range p.cmds {
			if parts.Lat {
				t[i].Add(&p.cmds[i])
			} else {
				t[i] = p.cmds[i]
				t[i].Lat = nil
			}
		}
	}
	return t, maps.Clone(p.errs)
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
