package servercmd

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// Latency is LATENCY: HISTOGRAM, from the same per-command histograms as
// INFO latencystats, and HELP. The latency monitor (LATEST, HISTORY, GRAPH,
// DOCTOR, RESET) is not implemented.
func Latency(c Core, cn Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "histogram"):
		names := make([]string, 0, len(argv)-2)
		for _, a := range argv[2:] {
			names = append(names, string(a))
		}
		if cn.InExec() {
			w := cn.Begin()
			writeLatencyHistogram(w, totals(c.Figures(AllParts)).Cmds, names)
			cn.End()
			return
		}
		// Like INFO, it sees every shard once its earlier commands have run.
		c.Gather(cn, &Request{want: map[string]bool{"latencystats": true}, histogram: true, names: names})
	case resp.EqualFold(sub, "help") && len(argv) == 2:
		cn.Help(latencyHelp)
	default:
		cn.Error(resp.ErrUnknownSubcommand("latency", sub))
	}
}

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"HISTOGRAM [<command> ...]",
	"    Return the cumulative distribution of the run times of the named commands,",
	"    or of every command that has run when none is named.",
	"HELP",
	"    Print this help.",
}

// writeLatencyHistogram writes LATENCY HISTOGRAM's reply: for each command
// named (all, when none is) that has a histogram, a container's subcommands
// after it, its count of timed runs and the cumulative counts at Redis's
// reporting levels (see histogramLevels).
func writeLatencyHistogram(w *resp.Writer, cmds []shardowner.CmdStats, names []string) {
	var ids []int
	addOne := func(c *router.Command) {
		if id := c.ID; id < len(cmds) && cmds[id].Lat != nil && cmds[id].Lat.Total() > 0 {
			ids = append(ids, id)
		}
	}
	add := func(cmd *router.Command) {
		addOne(cmd)
		for i := range cmd.Subcommands {
			addOne(&cmd.Subcommands[i])
		}
	}
	if len(names) == 0 {
		for _, cmd := range publicCommands() {
			add(cmd)
		}
	}
	for _, n := range names {
		if cmd := lookupPublic([]byte(n)); cmd != nil {
			add(cmd)
		}
	}
	statNames := router.StatNames()
	w.Map(len(ids))
	for _, id := range ids {
		h := cmds[id].Lat
		w.BulkString(statNames[id])
		w.Map(2)
		w.BulkString("calls")
		total := h.Total()
		w.Int(int64(total))
		w.BulkString("histogram_usec")
		levels := cumulativeLevels(h, total)
		w.Map(len(levels) / 2)
		for _, v := range levels {
			w.Int(int64(v))
		}
	}
}

// cumulativeLevels returns, as level (µs), count pairs, the count of h's
// total durations at each reporting level where it grows, up to the level
// that counts them all.
func cumulativeLevels(h *shardowner.Histogram, total uint64) []uint64 {
	var levels []uint64
	var prev uint64
	for _, top := range histogramLevels {
		n := h.CountTo(top)
		if n > prev {
			levels = append(levels, top/1000, n)
		}
		if prev = n; n == total {
			break
		}
	}
	return levels
}

// histogramLevels are the tops, in nanoseconds, of the levels where Redis's
// LATENCY HISTOGRAM reports cumulative counts: 1024 ns and each power of two
// after, each widened to the top of the range Redis's histogram, which has
// 128 sub-buckets per power of two past 256, files that value under (32768
// ns reads as 33 µs).
var histogramLevels = func() []uint64 {
	var levels []uint64
	for v := uint64(1024); v < 1<<41; v <<= 1 {
		levels = append(levels, v+v>>7-1)
	}
	return append(levels, 1<<64-1)
}()
