package tf

// Interpolate returns the transform a fraction s in [0, 1] of the way from
// a to b: linear in translation, spherical (shorter arc) in rotation.
func Interpolate(a, b Transform, s float64) Transform { return interpolate(a, b, s) }
