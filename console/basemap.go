package console

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/actuators"
)

// Map geometry, in SVG user units.
const (
	mapW, mapH  = 360.0, 300.0
	mapMargin   = 14.0
	mapArcSteps = 48  // samples of a drive's arc
	mapPad      = 0.6 // m of floor shown around the fence and the path
)

// fence is the base's geofence as robot_describe lists it.
type fence struct {
	Frame string  `json:"frame"`
	MinX  float64 `json:"min_x"`
	MaxX  float64 `json:"max_x"`
	MinY  float64 `json:"min_y"`
	MaxY  float64 `json:"max_y"`
}

// clearance is how far (x, y) is inside the fence: the distance to its
// nearest edge, negative outside.
func (f fence) clearance(x, y float64) float64 {
	in := math.Min(math.Min(x-f.MinX, f.MaxX-x), math.Min(y-f.MinY, f.MaxY-y))
	if in >= 0 {
		return in
	}
	dx := math.Max(0, math.Max(f.MinX-x, x-f.MaxX))
	dy := math.Max(0, math.Max(f.MinY-y, y-f.MaxY))
	return -math.Hypot(dx, dy)
}

// nearestEdge is the point of the fence's boundary nearest (x, y).
func (f fence) nearestEdge(x, y float64) (float64, float64) {
	cx, cy := math.Min(math.Max(x, f.MinX), f.MaxX), math.Min(math.Max(y, f.MinY), f.MaxY)
	if cx != x || cy != y {
		return cx, cy // outside: the clamp is on the boundary
	}
	best, ex, ey := math.Inf(1), x, y
	for _, c := range []struct{ d, x, y float64 }{{x - f.MinX, f.MinX, y}, {f.MaxX - x, f.MaxX, y}, {y - f.MinY, x, f.MinY}, {f.MaxY - y, x, f.MaxY}} {
		if c.d < best {
			best, ex, ey = c.d, c.x, c.y
		}
	}
	return ex, ey
}

// arcPath samples the path of a drive at linear and angular speed for d
// seconds from p, integrated as a unicycle (as the safety check predicts).
func arcPath(p actuators.Pose2D, linear, angular, d float64) [][2]float64 {
	pts := make([][2]float64, 0, mapArcSteps+1)
	for k := 0; k <= mapArcSteps; k++ {
		t := d * float64(k) / mapArcSteps
		th := p.Yaw + angular*t
		if math.Abs(angular) < 1e-9 {
			pts = append(pts, [2]float64{p.X + linear*t*math.Cos(p.Yaw), p.Y + linear*t*math.Sin(p.Yaw)})
			continue
		}
		r := linear / angular
		pts = append(pts, [2]float64{p.X + r*(math.Sin(th)-math.Sin(p.Yaw)), p.Y - r*(math.Cos(th)-math.Cos(p.Yaw))})
	}
	return pts
}

// baseMap is a base preview drawn from above: the fence, the path, the
// robot's pose and the goal pose, to scale, and the closest the path comes
// to the fence.
type baseMap struct {
	From, To  actuators.Pose2D
	Path      [][2]float64 // from From to To; at least two points
	Straight  bool         // Path is the straight line, not the route (navigation plans its own)
	Fence     *fence       // nil: unknown, or in another frame
	Clearance float64      // along the path, m; valid when Fence is set
	At        [2]float64   // where the path comes closest to the fence
}

// cleanFrame is a frame name as the bridge compares them: no spaces, no
// leading slashes.
func cleanFrame(f string) string { return strings.TrimLeft(strings.TrimSpace(f), "/") }

// inFramePath carries a path's points by the rigid transform (x, y, yaw):
// their frame's origin in the other.
func inFramePath(path [][2]float64, x, y, yaw float64) [][2]float64 {
	s, c := math.Sincos(yaw)
	out := make([][2]float64, len(path))
	for i, p := range path {
		out[i] = [2]float64{x + c*p[0] - s*p[1], y + s*p[0] + c*p[1]}
	}
	return out
}

// newBaseMap computes the closest approach of path to f (nil: none).
func newBaseMap(from, to actuators.Pose2D, path [][2]float64, straight bool, f *fence) baseMap {
	m := baseMap{From: from, To: to, Path: path, Straight: straight}
	if f == nil || cleanFrame(f.Frame) != cleanFrame(from.Frame) {
		return m
	}
	m.Fence, m.Clearance = f, math.Inf(1)
	for _, p := range path {
		if c := f.clearance(p[0], p[1]); c < m.Clearance {
			m.Clearance, m.At = c, p
		}
	}
	return m
}

// svg draws the map, x to the right and y up as on a ROS map, with a 1 m
// grid (or coarser) and a scale bar. Every text in it is escaped.
func (m baseMap) svg() string {
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	grow := func(x, y float64) {
		minX, maxX, minY, maxY = math.Min(minX, x), math.Max(maxX, x), math.Min(minY, y), math.Max(maxY, y)
	}
	for _, p := range m.Path {
		grow(p[0], p[1])
	}
	grow(m.From.X, m.From.Y)
	grow(m.To.X, m.To.Y)
	if m.Fence != nil {
		grow(m.Fence.MinX, m.Fence.MinY)
		grow(m.Fence.MaxX, m.Fence.MaxY)
	}
	minX, maxX, minY, maxY = minX-mapPad, maxX+mapPad, minY-mapPad, maxY+mapPad
	scale := math.Min((mapW-2*mapMargin)/(maxX-minX), (mapH-2*mapMargin-14)/(maxY-minY)) // px per m, the same on both axes
	offX := mapMargin + ((mapW-2*mapMargin)-scale*(maxX-minX))/2
	offY := mapMargin + ((mapH-2*mapMargin-14)-scale*(maxY-minY))/2
	X := func(x float64) float64 { return offX + (x-minX)*scale }
	Y := func(y float64) float64 { return offY + (maxY-y)*scale }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

	label := fmt.Sprintf("Top-down map: the base from x %.2f, y %.2f to x %.2f, y %.2f m", m.From.X, m.From.Y, m.To.X, m.To.Y)
	if m.Fence != nil {
		label += fmt.Sprintf("; closest to the geofence %.2f m", m.Clearance)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="map" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		f(mapW), f(mapH), f(mapW), f(mapH), html.EscapeString(label))
	// A grid of at most 16 lines a side, 1 m or a power of two of metres
	// apart; none when odometry reports poses too far apart to draw.
	step := 1.0
	if span := math.Max(maxX-minX, maxY-minY); span > 16 {
		step = math.Exp2(math.Ceil(math.Log2(span / 16)))
	}
	for k, gx := 0, math.Ceil(minX/step)*step; k <= 16 && gx <= maxX; k, gx = k+1, gx+step {
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(X(gx)), f(X(gx)), f(Y(minY)), f(Y(maxY)))
	}
	for k, gy := 0, math.Ceil(minY/step)*step; k <= 16 && gy <= maxY; k, gy = k+1, gy+step {
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(X(minX)), f(X(maxX)), f(Y(gy)), f(Y(gy)))
	}
	if m.Fence != nil {
		fz := m.Fence
		fmt.Fprintf(&b, `<rect class="fence" x="%s" y="%s" width="%s" height="%s"/>`, f(X(fz.MinX)), f(Y(fz.MaxY)), f((fz.MaxX-fz.MinX)*scale), f((fz.MaxY-fz.MinY)*scale))
		fmt.Fprintf(&b, `<text class="fence-label" x="%s" y="%s">geofence (%s)</text>`, f(X(fz.MinX)+3), f(Y(fz.MaxY)+11), html.EscapeString(fz.Frame))
		ex, ey := fz.nearestEdge(m.At[0], m.At[1])
		fmt.Fprintf(&b, `<line class="clearance" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f(X(m.At[0])), f(Y(m.At[1])), f(X(ex)), f(Y(ey)))
		fmt.Fprintf(&b, `<text class="clearance-label" x="%s" y="%s">%s</text>`, f((X(m.At[0])+X(ex))/2+4), f((Y(m.At[1])+Y(ey))/2-4),
			html.EscapeString(fmt.Sprintf("%.2f m", m.Clearance)))
	}
	pts := make([]string, len(m.Path))
	for i, p := range m.Path {
		pts[i] = f(X(p[0])) + "," + f(Y(p[1]))
	}
	cls := "path"
	if m.Straight {
		cls += " straight"
	}
	fmt.Fprintf(&b, `<polyline class="%s" points="%s"/>`, cls, strings.Join(pts, " "))
	pose := func(class string, p actuators.Pose2D) {
		// An arrow 0.5 m long (at least 14 px) pointing along the heading.
		l := math.Max(0.5*scale, 14)
		x, y := X(p.X), Y(p.Y)
		tip := [2]float64{x + l*math.Cos(p.Yaw), y - l*math.Sin(p.Yaw)}
		left := [2]float64{x + 0.45*l*math.Cos(p.Yaw+2.2), y - 0.45*l*math.Sin(p.Yaw+2.2)}
		right := [2]float64{x + 0.45*l*math.Cos(p.Yaw-2.2), y - 0.45*l*math.Sin(p.Yaw-2.2)}
		fmt.Fprintf(&b, `<polygon class="%s" points="%s,%s %s,%s %s,%s"/>`, class, f(tip[0]), f(tip[1]), f(left[0]), f(left[1]), f(right[0]), f(right[1]))
		fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="3"/>`, class, f(x), f(y))
	}
	pose("goal", m.To)
	pose("robot", m.From)
	// Scale bar: one grid step, bottom left.
	y0 := mapH - 8
	fmt.Fprintf(&b, `<line class="scale" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(mapMargin), f(mapMargin+step*scale), f(y0), f(y0))
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s">%s m</text>`, f(mapMargin+step*scale+4), f(y0+3), strconv.FormatFloat(step, 'f', -1, 64))
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s" text-anchor="end">x →, y ↑</text>`, f(mapW-mapMargin), f(y0+3))
	b.WriteString(`</svg>`)
	return b.String()
}
