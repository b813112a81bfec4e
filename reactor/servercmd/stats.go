package servercmd

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

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
