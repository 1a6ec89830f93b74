package names

import "testing"

// FuzzFromDDS feeds DDS topic and type names as a remote participant may
// announce them: nothing panics, and what maps to ROS maps back unchanged.
func FuzzFromDDS(f *testing.F) {
	for _, s := range []string{"rt/a/b", "rq/sRequest", "rr/sReply", "ros_discovery_info", "rt//", "std_msgs::msg::dds_::String_", "a::b::dds_::C_", "~", "{ns}/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if fqn, kind, err := FromDDSTopic(s); err == nil {
			var back string
			switch kind {
			case KindTopic:
				back, err = TopicDDS(fqn)
			case KindRequest:
				back, _, err = ServiceDDS(fqn)
			case KindReply:
				_, back, err = ServiceDDS(fqn)
			}
			if err != nil || back != s {
				t.Fatalf("%q → %q kind %d → %q, %v", s, fqn, kind, back, err)
			}
		}
		if ros, err := TypeFromDDS(s); err == nil {
			if back, err := TypeDDS(ros); err != nil || back != s {
				t.Fatalf("%q → %q → %q, %v", s, ros, back, err)
			}
		}
		if ValidateName(s) == nil {
			_, _ = Expand(s, "n", "/ns")
		}
	})
}
