package safety

import (
	"math"
	"testing"

	"github.com/actbridge/actbridge/urdf"
)

// A thin bar along the diagonal whose bounding box reaches into a box's
// corner region does not overlap it (separating axes), one that does is
// found, and a sphere overlaps only where its surface reaches.
func TestShapesOverlapExactlyNotByBoundingBox(t *testing.T) {
	c, s := math.Cos(math.Pi/4), math.Sin(math.Pi/4)
	bar := shape{kind: urdf.Box, half: [3]float64{1, 0.05, 0.05}}
	p := placed{r: [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}}
	for a := range 3 {
		row := p.r[3*a : 3*a+3]
		p.ext[a] = math.Abs(row[0])*bar.half[0] + math.Abs(row[1])*bar.half[1] + math.Abs(row[2])*bar.half[2]
	}
	corner := Box{Min: [3]float64{0.3, -0.7, -1}, Max: [3]float64{0.7, -0.3, 1}} // inside the bar's bounding box, off the bar
	if _, _, _, d, _ := p.inside(&bar, &corner); d != 0 {
		t.Fatalf("diagonal bar overlaps the off-diagonal corner box by %g", d)
	}
	onBar := Box{Min: [3]float64{0.3, 0.3, -1}, Max: [3]float64{0.7, 0.7, 1}}
	if _, _, _, d, _ := p.inside(&bar, &onBar); !(d > 0) {
		t.Fatal("diagonal bar misses the box on the diagonal")
	}
	ball := shape{kind: urdf.Sphere, half: [3]float64{0.1, 0.1, 0.1}}
	q := placed{r: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, ext: [3]float64{0.1, 0.1, 0.1}}
	near := Box{Min: [3]float64{0.08, 0.08, -1}, Max: [3]float64{1, 1, 1}} // corner 0.113 from the center
	if _, _, _, d, _ := q.inside(&ball, &near); d != 0 {
		t.Fatalf("sphere of radius 0.1 overlaps a box 0.113 away by %g", d)
	}
	near.Min = [3]float64{0.05, 0.05, -1} // 0.071 away
	if _, _, _, d, _ := q.inside(&ball, &near); !(d > 0) {
		t.Fatal("sphere misses a box 0.071 away")
	}
}
