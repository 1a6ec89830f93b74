package console

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/safety"
)

// The workspace drawing is to scale: in both panels a metre is the same
// number of pixels along either axis, so the 0.4 × 0.2 × 0.1 m table is
// drawn 2:1 from the side (x, z: 0.4 by 0.1) and from above (x, y: 0.4 by
// 0.2), and the path runs from its start dot to its end dot.
func TestWorkspaceDrawingIsToScale(t *testing.T) {
	p := bridge.ToolPlot{Frame: "base_link", Link: `<tool>`, Path: [][3]float64{{0, 0, 0.5}, {0.2, 0.1, 0.4}, {0.4, 0.2, 0.5}},
		Box:       &safety.Box{Min: [3]float64{-0.5, -0.5, 0}, Max: [3]float64{0.5, 0.5, 1}},
		Forbidden: []safety.Zone{{Name: "table", Box: safety.Box{Min: [3]float64{0.1, -0.1, 0}, Max: [3]float64{0.5, 0.1, 0.1}}}}}
	svg := workspaceSVG(p)
	var doc struct {
		Rects []struct {
			Class string  `xml:"class,attr"`
			W     float64 `xml:"width,attr"`
			H     float64 `xml:"height,attr"`
		} `xml:"rect"`
		Polys []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	var tables, boxes [][2]float64
	for _, r := range doc.Rects {
		switch r.Class {
		case "forbidden":
			tables = append(tables, [2]float64{r.W, r.H})
		case "limit":
			boxes = append(boxes, [2]float64{r.W, r.H})
		}
	}
	if len(tables) != 2 || len(boxes) != 2 || len(doc.Polys) != 2 {
		t.Fatalf("tables %v boxes %v paths %d", tables, boxes, len(doc.Polys))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.2 }
	if !near(tables[0][0], 4*tables[0][1]) || !near(tables[1][0], 2*tables[1][1]) || !near(tables[0][0], tables[1][0]) {
		t.Fatalf("table side %v top %v, want 4:1 and 2:1 at one scale", tables[0], tables[1])
	}
	if !near(boxes[0][0], boxes[0][1]) || !near(boxes[0][0]/1.0, tables[0][0]/0.4) {
		t.Fatalf("workspace box %v not square at the table's scale", boxes[0])
	}
	pts := strings.Fields(doc.Polys[0].Points)
	if len(pts) != 3 {
		t.Fatalf("path %v", pts)
	}
	x0, _ := strconv.ParseFloat(strings.Split(pts[0], ",")[0], 64)
	x2, _ := strconv.ParseFloat(strings.Split(pts[2], ",")[0], 64)
	if !near(x2-x0, tables[0][0]) { // the path spans 0.4 m in x, as the table
		t.Fatalf("path spans %g px, the table %g", x2-x0, tables[0][0])
	}
	if strings.Contains(svg, "<tool>") || workspaceSVG(bridge.ToolPlot{}) != "" {
		t.Fatal("link name not escaped, or a drawing without a path")
	}
}
