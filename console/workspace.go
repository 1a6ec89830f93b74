package console

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/bridge"
)

// Size of each of the workspace drawing's two panels.
const wsPanel, wsMargin = 160.0, 14.0

// workspaceSVG draws an arm preview's tool path and workspace limits to
// scale, in two panels of the base link frame: side (x right, z up) and
// top (x right, y up). Both share one scale, the one that fits everything
// drawn; the workspace box is dashed, forbidden boxes filled, the path a
// line from its start dot to its end dot.
func workspaceSVG(p bridge.ToolPlot) string {
	if len(p.Path) == 0 {
		return ""
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	grow := func(v [3]float64) {
		for a := range 3 {
			lo[a], hi[a] = math.Min(lo[a], v[a]), math.Max(hi[a], v[a])
		}
	}
	for _, v := range p.Path {
		grow(v)
	}
	if p.Box != nil {
		grow(p.Box.Min)
		grow(p.Box.Max)
	}
	for _, z := range p.Forbidden {
		grow(z.Box.Min)
		grow(z.Box.Max)
	}
	span := 0.1
	for a := range 3 {
		span = math.Max(span, hi[a]-lo[a])
	}
	scale := (wsPanel - 2*wsMargin) / span // px per metre, both panels
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	var b strings.Builder
	label := fmt.Sprintf("%s path in %s, side and top view, to scale", p.Link, p.Frame)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="plot workspace" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		f(2*wsPanel), f(wsPanel), f(2*wsPanel), f(wsPanel), html.EscapeString(label))
	for panel, ax := range [2][2]int{{0, 2}, {0, 1}} {
		x0 := float64(panel) * wsPanel
		px := func(v float64) float64 { return x0 + wsMargin + (v-lo[ax[0]])*scale }
		py := func(v float64) float64 { return wsPanel - wsMargin - (v-lo[ax[1]])*scale }
		rect := func(class string, bx [2][3]float64) {
			fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class,
				f(px(bx[0][ax[0]])), f(py(bx[1][ax[1]])), f((bx[1][ax[0]]-bx[0][ax[0]])*scale), f((bx[1][ax[1]]-bx[0][ax[1]])*scale))
		}
		fmt.Fprintf(&b, `<rect class="plot-area" x="%s" y="0" width="%s" height="%s"/>`, f(x0), f(wsPanel), f(wsPanel))
		for _, z := range p.Forbidden {
			rect("forbidden", [2][3]float64{z.Box.Min, z.Box.Max})
		}
		if p.Box != nil {
			rect("limit", [2][3]float64{p.Box.Min, p.Box.Max})
		}
		pts := make([]string, len(p.Path))
		for i, v := range p.Path {
			pts[i] = f(px(v[ax[0]])) + "," + f(py(v[ax[1]]))
		}
		fmt.Fprintf(&b, `<polyline class="trajectory" points="%s"/>`, strings.Join(pts, " "))
		s, e := p.Path[0], p.Path[len(p.Path)-1]
		fmt.Fprintf(&b, `<circle class="start" cx="%s" cy="%s" r="3"/><circle class="end" cx="%s" cy="%s" r="3"/>`,
			f(px(s[ax[0]])), f(py(s[ax[1]])), f(px(e[ax[0]])), f(py(e[ax[1]])))
		fmt.Fprintf(&b, `<text class="axis" x="%s" y="10">%s (x → , %s ↑)</text>`, f(x0+4), []string{"side", "top"}[panel], []string{"z", "y"}[panel])
	}
	fmt.Fprintf(&b, `<text class="axis" x="4" y="%s">%s cm</text>`, f(wsPanel-3), strconv.FormatFloat(math.Round(span*100), 'f', 0, 64))
	b.WriteString(`</svg>`)
	return b.String()
}
