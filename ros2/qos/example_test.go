package qos_test

import (
	"fmt"

	"github.com/actbridge/actbridge/ros2/qos"
)

func ExampleOverride_Apply() {
	p, err := qos.Override{Profile: "sensor_data", Depth: 1}.Apply(qos.Default)
	fmt.Println(p.Name, p.QoS.Depth, err)
	_, err = qos.Override{Durability: "transient"}.Apply(qos.Default)
	fmt.Println(err)
	// Output:
	// sensor_data 1 <nil>
	// qos: invalid override: durability: expected volatile or transient_local, got "transient"
}
