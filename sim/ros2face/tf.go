package ros2face

import (
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/sim"
)

// The frame tree's topics, with tf2_ros's QoS: /tf reliable and volatile,
// /tf_static reliable and transient-local (a late listener gets the
// fixed joints), each keep-last 100.
const (
	TopicTF       = "/tf"
	TopicTFStatic = "/tf_static"
	typeTFMessage = "tf2_msgs/msg/TFMessage"
	tfDepth       = 100
)

var (
	tfQoS       = qos.Profile{Name: "tf", QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: tfDepth}}
	tfStaticQoS = qos.Profile{Name: "tf_static", QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: tfDepth}}
)

// tfMessage fills a tf2_msgs/msg/TFMessage with m's transforms.
func tfMessage(fl *fields, m *sim.TFMessage) {
	if fl.err != nil {
		return
	}
	ts := cdr.MakeSlice(fl.m.Type.Field(fl.m.Type.FieldIndex("transforms")).Type, len(m.Transforms)).([]*cdr.Message)
	for i, tr := range m.Transforms {
		tf := fields{m: ts[i]}
		tf.stamp("header.stamp", tr.Stamp)
		tf.set("header.frame_id", tr.Frame)
		tf.set("child_frame_id", tr.Child)
		tf.point("transform.translation", tr.Translation)
		tf.quaternion("transform.rotation", tr.Rotation)
		if tf.err != nil {
			fl.err = tf.err
			return
		}
	}
	fl.set("transforms", ts)
}
