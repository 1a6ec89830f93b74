package console

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

func TestPlotDrawsTheTrajectoryBetweenItsLimitLines(t *testing.T) {
	lo, hi := -2.0, 2.0
	samples := [][2]float64{{0, 0}, {0.5, 0.2}, {1, 0.8}, {1.5, 1.2}, {2, 1.3}}
	svg := plotSVG(`<b>"j1"</b>`, "rad", samples, &lo, &hi)
	var doc struct {
		Lines []struct {
			Class string  `xml:"class,attr"`
			Y     float64 `xml:"y1,attr"`
		} `xml:"line"`
		Poly struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
		Label string `xml:"aria-label,attr"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	if len(doc.Lines) != 2 || !strings.Contains(doc.Lines[0].Class, "limit-max") {
		t.Fatalf("limit lines: %+v", doc.Lines)
	}
	maxY, minY := doc.Lines[0].Y, doc.Lines[1].Y // SVG y grows downwards
	pts := strings.Fields(doc.Poly.Points)
	if len(pts) != len(samples) {
		t.Fatalf("%d points for %d samples", len(pts), len(samples))
	}
	prev := minY
	for _, p := range pts {
		y, _ := strconv.ParseFloat(strings.Split(p, ",")[1], 64)
		if y <= maxY || y >= minY || y > prev {
			t.Fatalf("point %s outside the limits (%v..%v) or not rising", p, maxY, minY)
		}
		prev = y
	}
	if !strings.Contains(doc.Label, `<b>"j1"</b>`) || strings.Contains(svg, "<b>") {
		t.Fatalf("the joint name was not escaped: %s", svg)
	}
}

func TestPlotWithoutLimitsStillShowsTheMotion(t *testing.T) {
	svg := plotSVG("wrist", "rad", [][2]float64{{0, 1}, {1, 1.0001}}, nil, nil)
	if strings.Contains(svg, "<line") || !strings.Contains(svg, "<polyline") || strings.Contains(svg, "NaN") {
		t.Fatalf("%s", svg)
	}
	if plotSVG("x", "rad", nil, nil, nil) != "" {
		t.Fatal("a plot without samples")
	}
}
