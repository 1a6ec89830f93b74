package msgs_test

import (
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/msgs/ros2"
)

func ExampleLoad() {
	for _, d := range msgs.Distros() {
		set, err := msgs.Load(d)
		if err != nil {
			fmt.Println(err)
			return
		}
		gid, _ := set.Struct("rmw_dds_common/msg/Gid")
		fmt.Println(d, "Gid bytes:", gid.Field(0).Type.Len)
	}
	// Output:
	// humble Gid bytes: 24
	// jazzy Gid bytes: 16
	// kilted Gid bytes: 16
	// lyrical Gid bytes: 16
}

func ExampleSet_TypeHash() {
	set, _ := msgs.Load(msgs.Kilted)
	h, _ := set.TypeHash("std_msgs/msg/String")
	fmt.Println(h)
	// Output:
	// RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18
}

func ExampleSet_Struct_missing() {
	set, _ := msgs.Load(msgs.Humble)
	_, err := set.Struct("std_msgs/msg/Float64")
	fmt.Println(errors.Is(err, msgs.ErrNotInDistro))
	fmt.Println(err)
	_, err = msgs.Load("rolling")
	fmt.Println(err)
	// Output:
	// true
	// msgs: type not in distro: humble has no std_msgs/msg/Float64
	// msgs: unknown ROS 2 distro "rolling" (known: [humble jazzy kilted lyrical])
}
