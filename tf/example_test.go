package tf_test

import (
	"fmt"
	"time"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/tf"
)

// A goal given in map is turned into odom, as a base controller needs it.
func ExampleBuffer_Lookup() {
	b := tf.NewBuffer(tf.Options{})
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	// Localisation says odom drifted 0.5 m along map's x.
	drift := tf.Transform{Translation: kinematics.Vec3{0.5, 0, 0}, Rotation: kinematics.Identity}
	if err := b.Add(tf.Stamped{Parent: "map", Child: "odom", Stamp: now, Transform: drift}, false, "/amcl", now); err != nil {
		panic(err)
	}
	odomInMap, _, err := b.Lookup("map", "odom", time.Time{})
	if err != nil {
		panic(err)
	}
	goal := odomInMap.Inverse().Apply(kinematics.Vec3{2, 1, 0}) // map (2, 1) in odom
	fmt.Printf("%.1f %.1f\n", goal[0], goal[1])

	_, _, err = b.Latest("map", "odom", now.Add(2*time.Second), time.Second)
	fmt.Println(err)
	// Output:
	// 1.5 1.0
	// tf: transform too old: "odom": newest transform is 2s old, at most 1s accepted
}
