package console

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Plot geometry, in SVG user units.
const (
	plotW, plotH        = 300.0, 100.0
	plotLeft, plotRight = 46.0, 8.0
	plotTop, plotBottom = 8.0, 18.0
	plotMinSpan         = 0.1 // a motion smaller than this is not stretched to fill the plot
)

// plotSVG draws a joint's planned position over time from (t, position)
// samples, with its position limits as dashed lines (nil: no limit), as a
// small self-contained SVG. Every text in it is escaped.
func plotSVG(joint, unit string, samples [][2]float64, lo, hi *float64) string {
	if len(samples) == 0 {
		return ""
	}
	tMax := samples[len(samples)-1][0]
	if tMax <= 0 {
		tMax = 1
	}
	yMin, yMax := math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		yMin, yMax = math.Min(yMin, s[1]), math.Max(yMax, s[1])
	}
	for _, l := range []*float64{lo, hi} {
		if l != nil {
			yMin, yMax = math.Min(yMin, *l), math.Max(yMax, *l)
		}
	}
	if span := yMax - yMin; span < plotMinSpan {
		mid := (yMax + yMin) / 2
		yMin, yMax = mid-plotMinSpan/2, mid+plotMinSpan/2
	}
	pad := (yMax - yMin) * 0.08
	yMin, yMax = yMin-pad, yMax+pad
	x := func(t float64) float64 { return plotLeft + (plotW-plotLeft-plotRight)*t/tMax }
	y := func(v float64) float64 { return plotTop + (plotH-plotTop-plotBottom)*(yMax-v)/(yMax-yMin) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

	var b strings.Builder
	label := fmt.Sprintf("%s: planned position over %.1f s", joint, tMax)
	if lo != nil && hi != nil {
		label += fmt.Sprintf(", limits %.3g to %.3g %s", *lo, *hi, unit)
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		f(plotW), f(plotH), f(plotW), f(plotH), html.EscapeString(label))
	fmt.Fprintf(&b, `<rect class="plot-area" x="%s" y="%s" width="%s" height="%s"/>`,
		f(plotLeft), f(plotTop), f(plotW-plotLeft-plotRight), f(plotH-plotTop-plotBottom))
	for _, l := range []struct {
		v    *float64
		name string
	}{{hi, "max"}, {lo, "min"}} {
		if l.v == nil {
			continue
		}
		ly := y(*l.v)
		fmt.Fprintf(&b, `<line class="limit limit-%s" x1="%s" x2="%s" y1="%s" y2="%s"/>`, l.name, f(plotLeft), f(plotW-plotRight), f(ly), f(ly))
		fmt.Fprintf(&b, `<text class="limit-label" x="%s" y="%s" text-anchor="end">%s</text>`,
			f(plotLeft-3), f(ly+3), html.EscapeString(fmt.Sprintf("%s %.3g", l.name, *l.v)))
	}
	pts := make([]string, len(samples))
	for i, s := range samples {
		pts[i] = f(x(s[0])) + "," + f(y(s[1]))
	}
	fmt.Fprintf(&b, `<polyline class="trajectory" points="%s"/>`, strings.Join(pts, " "))
	first, last := samples[0], samples[len(samples)-1]
	fmt.Fprintf(&b, `<circle class="start" cx="%s" cy="%s" r="2.5"/><circle class="end" cx="%s" cy="%s" r="2.5"/>`,
		f(x(first[0])), f(y(first[1])), f(x(last[0])), f(y(last[1])))
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s">0 s</text><text class="axis" x="%s" y="%s" text-anchor="end">%s s</text>`,
		f(plotLeft), f(plotH-4), f(plotW-plotRight), f(plotH-4), strconv.FormatFloat(tMax, 'f', 1, 64))
	b.WriteString(`</svg>`)
	return b.String()
}
