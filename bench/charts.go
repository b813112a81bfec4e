package main

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const barWidth = 7 * vg.Millimeter / 2 // one bar of a grouped bar chart

// writeCharts draws throughput and p99 per cell (one bar per server) and, for --scaling, req/s against the
// shard count. It returns the files written.
func writeCharts(rep *report, dir, base string) ([]string, error) {
	if len(rep.Results) == 0 {
		return nil, nil
	}
	var (
		files []string
		errs  []error
	)
	var groups []string
	var cellsInOrder []cell
	seen := map[cell]bool{}
	for _, r := range rep.Results {
		if !seen[r.Cell] {
			seen[r.Cell] = true
			cellsInOrder = append(cellsInOrder, r.Cell)
			groups = append(groups, r.Cell.String())
		}
	}
	values := func(pick func(summary) float64) ([]string, [][]float64) {
		var names []string
		var vals [][]float64
		for _, t := range rep.Targets {
			row := make([]float64, len(cellsInOrder))
			for _, r := range rep.Results {
				if r.Target == t {
					for i, c := range cellsInOrder {
						if r.Cell == c {
							row[i] = pick(r.Median)
						}
					}
				}
			}
			names = append(names, t.label())
			vals = append(vals, row)
		}
		return names, vals
	}
	suffix := ""
	if rep.Config.OnlyRedis {
		suffix = " (--only-redis: corekv is redis-server)"
	}

	names, vals := values(func(s summary) float64 { return s.RPS })
	path := filepath.Join(dir, base+"-throughput.svg")
	if err := barChart("Throughput per cell"+suffix, "requests per second (median)", groups, names, vals, path); err != nil {
		errs = append(errs, err)
	} else {
		files = append(files, path)
	}

	names, vals = values(func(s summary) float64 { return s.P99Ms })
	path = filepath.Join(dir, base+"-p99.svg")
	if err := barChart("p99 latency per cell"+suffix, "p99 latency, ms (median)", groups, names, vals, path); err != nil {
		errs = append(errs, err)
	} else {
		files = append(files, path)
	}

	if rep.Config.Scaling {
		path = filepath.Join(dir, base+"-curve.svg")
		if err := scalingChart(rep, cellsInOrder, path); err != nil {
			errs = append(errs, err)
		} else {
			files = append(files, path)
		}
	}
	return files, errors.Join(errs...)
}

// barChart draws horizontal bars: one group per cell, one bar per series. The first group is on top.
func barChart(title, xLabel string, groups, series []string, vals [][]float64, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.X.Min = 0
	p.Legend.Top = true
	n := len(groups)
	labels := make([]string, n)
	for i, g := range groups {
		labels[n-1-i] = g
	}
	for s, name := range series {
		v := make(plotter.Values, n)
		for i := range groups {
			v[n-1-i] = vals[s][i]
		}
		bc, err := plotter.NewBarChart(v, barWidth)
		if err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
		bc.Horizontal = true
		// Series go top to bottom inside a group, in legend order.
		bc.Offset = barWidth * vg.Length(float64(len(series)-1)/2-float64(s))
		bc.Color = plotutil.Color(s)
		bc.LineStyle.Width = 0
		p.Add(bc)
		p.Legend.Add(name, bc)
	}
	p.NominalY(labels...)
	// Room on the right for the legend, which sits at the top right inside the plot.
	top := 0.0
	for _, row := range vals {
		for _, v := range row {
			top = max(top, v)
		}
	}
	if top > 0 {
		p.X.Max = top * 1.25
	}
	p.X.Tick.Marker = shortTicks{}
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	height := vg.Length(n*len(series))*barWidth + vg.Length(n)*3*vg.Millimeter + 3*vg.Centimeter
	return p.Save(18*vg.Centimeter, max(height, 6*vg.Centimeter), path)
}

// scalingChart draws corekv's req/s against its shard count, one line per cell, with redis as a dashed
// level line of the same colour.
func scalingChart(rep *report, cs []cell, path string) error {
	p := plot.New()
	p.Title.Text = "corekv scaling (dashed: redis)"
	p.X.Label.Text = "corekv shards (= server cores)"
	p.Y.Label.Text = "requests per second (median)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	maxShards := 1
	for _, t := range rep.Targets {
		maxShards = max(maxShards, t.Shards)
	}
	for i, c := range cs {
		var pts plotter.XYs
		redis := 0.0
		for _, r := range rep.Results {
			if r.Cell != c || r.Median.RPS == 0 {
				continue
			}
			if r.Target.Server == "redis" {
				redis = r.Median.RPS
				continue
			}
			pts = append(pts, plotter.XY{X: float64(r.Target.Shards), Y: r.Median.RPS})
		}
		col := plotutil.Color(i)
		if len(pts) > 0 {
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return fmt.Errorf("chart %s: %w", path, err)
			}
			l.Color, s.Color = col, col
			s.Shape = draw.CircleGlyph{}
			p.Add(l, s)
			p.Legend.Add(c.String(), l, s)
		}
		if redis > 0 {
			l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: redis}, {X: float64(maxShards), Y: redis}})
			if err != nil {
				return fmt.Errorf("chart %s: %w", path, err)
			}
			l.Color = withAlpha(col, 0xb0)
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
		}
	}
	p.Y.Max *= 1.2 // room for the legend
	p.Y.Tick.Marker = shortTicks{}
	p.X.Min, p.X.Max = 0.5, float64(maxShards)+0.5
	p.X.Tick.Marker = plot.TickerFunc(func(_, _ float64) []plot.Tick {
		var ticks []plot.Tick
		for k := 1; k <= maxShards; k++ {
			ticks = append(ticks, plot.Tick{Value: float64(k), Label: fmt.Sprint(k)})
		}
		return ticks
	})
	return p.Save(18*vg.Centimeter, 12*vg.Centimeter, path)
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// shortTicks labels gonum's default ticks as 250k or 1.5M instead of 250000 or 1.5e+06.
type shortTicks struct{}

func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = shortNumber(ticks[i].Value)
		}
	}
	return ticks
}

func shortNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
