package safety

import (
	"fmt"
	"math"
	"strconv"

	"github.com/actbridge/actbridge/spline"
)

// MinMoveDuration is the shortest move MinDuration proposes, however small:
// a person nearby needs to see a motion coming.
const MinMoveDuration = 0.5

// Peaks of a quintic from rest to rest over Δ in time T (zero end velocity
// and acceleration): v = 1.875·Δ/T at T/2, a = (10/√3)·Δ/T² at (3 ± √3)/6·T.
const (
	quinticPeakVel = 1.875
	quinticPeakAcc = 5.7735026918962576450914878050196 // 10/√3
)

// MinDuration is the shortest duration T of a single-point move from rest
// at from to rest at to (one quintic, the point's velocities and
// accelerations zero) that keeps every joint within speedScale (0, 1] times
// its velocity and acceleration limits; never less than MinMoveDuration.
// Continuous joints are measured the shortest way round, as the controller
// will move them.
func (l *Limits) MinDuration(joints []string, from, to []float64, speedScale float64) (float64, error) {
	if !(speedScale > 0 && speedScale <= 1) {
		return 0, &InputError{Field: "speed_scale", Expected: "a number in (0, 1]", Actual: fmtFloat(speedScale), Err: ErrOutOfRange}
	}
	lims, err := l.resolve(joints)
	if err != nil {
		return 0, err
	}
	for _, f := range []struct {
		name string
		v    []float64
	}{{"from", from}, {"to", to}} {
		if len(f.v) != len(joints) {
			return 0, &InputError{Field: f.name, Expected: fmt.Sprintf("%d positions, one per joint", len(joints)), Actual: strconv.Itoa(len(f.v)), Err: ErrLength}
		}
		for j, v := range f.v {
			if err := checkValue(v, f.name+"["+strconv.Itoa(j)+"]", joints[j]); err != nil {
				return 0, err
			}
		}
	}
	T := MinMoveDuration
	for j, jl := range lims {
		target := to[j]
		if jl.Wraps() {
			target += spline.WrapOffset(from[j], to[j])
		}
		d := math.Abs(target - from[j])
		if d == 0 {
			continue
		}
		if v := jl.MaxVelocity; v.Set() {
			if v.Value == 0 {
				return 0, &InputError{Field: "to[" + strconv.Itoa(j) + "]", Joint: jl.Name, Expected: "the current position: velocity limit is 0", Actual: fmtFloat(to[j]), Err: ErrOutOfRange}
			}
			T = math.Max(T, quinticPeakVel*d/(speedScale*v.Value))
		}
		if a := jl.MaxAcceleration; a.Set() {
			if a.Value == 0 {
				return 0, &InputError{Field: "to[" + strconv.Itoa(j) + "]", Joint: jl.Name, Expected: "the current position: acceleration limit is 0", Actual: fmtFloat(to[j]), Err: ErrOutOfRange}
			}
			T = math.Max(T, math.Sqrt(quinticPeakAcc*d/(speedScale*a.Value)))
		}
	}
	return T, nil
}
