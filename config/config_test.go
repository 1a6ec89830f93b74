package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

func TestSimConfigLoadsWithTheSimsNames(t *testing.T) {
	c, err := Load("../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeName != "actbridge" || len(c.Actuators) != 3 {
		t.Fatalf("config = %+v", c)
	}
	arm, _ := c.Actuator("arm")
	if arm.Action != "/arm_controller/follow_joint_trajectory" || len(arm.Joints) != 6 || arm.Policy != PolicyPlanner {
		t.Errorf("arm = %+v", arm)
	}
	if arm.StatusGrace.D() != 3*time.Second || arm.GoalConnectTimeout.D() != 5*time.Second {
		t.Errorf("arm timings = %v %v, want the robot defaults", arm.StatusGrace.D(), arm.GoalConnectTimeout.D())
	}
	base, _ := c.Actuator("base")
	if base.CmdVelTopic != "/cmd_vel" || base.DriveRateHz != 10 || base.MaxDriveDuration.D() != 10*time.Second ||
		base.Caps == nil || base.Caps.MaxLinear != 0.5 || base.Geofence == nil || base.Geofence.MaxX != 5 || base.OdomFrame != "odom" {
		t.Errorf("base = %+v", base)
	}
	if _, err := os.Stat(c.LimitsFile); err != nil {
		t.Errorf("limits_file %q, resolved against the config's folder: %v", c.LimitsFile, err)
	}
	urdf, err := os.ReadFile("../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.LoadLimits(urdf); err != nil {
		t.Errorf("LoadLimits with the sim's URDF: %v", err)
	}
}

func TestConfigDefaultsFillWhatIsLeftOut(t *testing.T) {
	c, err := Parse([]byte(`
actuators:
  - {name: arm, kind: arm, action: /a, joints: [j1]}
  - {name: base, kind: base, cmd_vel_topic: /cmd_vel, odom_topic: /odom}
`))
	if err != nil {
		t.Fatal(err)
	}
	arm, base := c.Actuators[0], c.Actuators[1]
	if c.NodeName != DefaultNodeName || arm.JointStatesTopic != DefaultJointStatesTopic || arm.Policy != PolicyOperator || c.RecoverySpeedFraction != DefaultRecoverySpeedFraction {
		t.Errorf("defaults not applied: %+v %+v", c, arm)
	}
	if base.DriveRateHz != DefaultDriveRateHz || base.MaxDriveDuration.D() != DefaultMaxDriveDuration || base.OdomFrame != "odom" {
		t.Errorf("base defaults not applied: %+v", base)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml, field string
	}{
		{"unknown key", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], speed: 3}]", "speed"},
		{"no actuators", "node_name: x", "actuators"},
		{"bad kind", "actuators: [{name: arm, kind: leg, action: /a, joints: [j]}]", "actuators[0].kind"},
		{"bad name", "actuators: [{name: Arm-1, kind: arm, action: /a, joints: [j]}]", "actuators[0].name"},
		{"duplicate name", "actuators: [{name: a, kind: arm, action: /a, joints: [j]}, {name: a, kind: arm, action: /b, joints: [k]}]", "actuators[1].name"},
		{"relative action", "actuators: [{name: arm, kind: arm, action: arm_controller, joints: [j]}]", "actuators[0].action"},
		{"arm without joints", "actuators: [{name: arm, kind: arm, action: /a}]", "actuators[0].joints"},
		{"gripper with two joints", "actuators: [{name: g, kind: gripper, action: /g, joints: [a, b]}]", "actuators[0].joints"},
		{"joint owned twice", "actuators: [{name: a, kind: arm, action: /a, joints: [j]}, {name: g, kind: gripper, action: /g, joints: [j]}]", "actuators[1].joints[0]"},
		{"unknown transport", "transport: ros3\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", `transport: "ros3" is not one of ros1, ros2`},
		{"bad policy", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], policy: anyone}]", "actuators[0].policy"},
		{"duration without unit", "status_grace: 3\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", "status_grace"},
		{"grace too short", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], status_grace: 1ms}]", "actuators[0].status_grace"},
		{"base without topics", "actuators: [{name: base, kind: base}]", "actuators[0].action"},
		{"drive rate too low", "actuators: [{name: base, kind: base, cmd_vel_topic: /c, drive_rate_hz: 1}]", "actuators[0].drive_rate_hz"},
		{"drive too long", "actuators: [{name: base, kind: base, cmd_vel_topic: /c, max_drive_duration: 1h}]", "actuators[0].max_drive_duration"},
		{"base field on arm", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], cmd_vel_topic: /c}]", "actuators[0].cmd_vel_topic"},
		{"bad cap", "actuators: [{name: base, kind: base, cmd_vel_topic: /c, caps: {max_linear: 0, max_angular: 1}}]", "actuators[0].caps.max_linear"},
		{"empty geofence", "actuators: [{name: base, kind: base, cmd_vel_topic: /c, geofence: {min_x: 1, max_x: 1, min_y: 0, max_y: 1}}]", "actuators[0].geofence"},
		{"bad node name", "node_name: a/b\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", "node_name"},
		{"recovery faster than the limits", "recovery_speed_fraction: 1.5\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", "recovery_speed_fraction"},
		{"urdf pin not a sha256", "urdf_sha256: ABCDEF\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", "urdf_sha256"},
		{"negative recovery fraction", "recovery_speed_fraction: -0.1\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]", "recovery_speed_fraction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v is not ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %q does not name %s", err, tt.field)
			}
		})
	}
}

func TestLoadConfigNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(p, []byte("actuators: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("LoadConfig error %v does not name %s", err, p)
	}
}

func TestTransportDefaultsToROS1(t *testing.T) {
	c, err := Parse([]byte("actuators: [{name: arm, kind: arm, action: /a, joints: [j]}]"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Transport != TransportROS1 {
		t.Errorf("transport = %q, want %q", c.Transport, TransportROS1)
	}
	if _, err := Parse([]byte("transport: ros1\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]")); err != nil {
		t.Errorf("transport: ros1 refused: %v", err)
	}
}

func TestAnyNumberOfActuatorsOfEachKind(t *testing.T) {
	for name, yml := range map[string]string{
		"arm only":     "actuators: [{name: arm, kind: arm, action: /a, joints: [j]}]",
		"base only":    "actuators: [{name: base, kind: base, cmd_vel_topic: /c}]",
		"two arms":     "actuators: [{name: left, kind: arm, action: /l, joints: [l1]}, {name: right, kind: arm, action: /r, joints: [r1]}]",
		"two grippers": "actuators: [{name: g, kind: gripper, action: /g, joints: [a]}, {name: h, kind: gripper, action: /h, joints: [b]}]",
		"two bases":    "actuators: [{name: b1, kind: base, cmd_vel_topic: /c1}, {name: b2, kind: base, action: /move_base}]",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := Parse([]byte(yml))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, k := range actuators.Kinds() {
				n += len(c.ByKind(k))
			}
			if n != len(c.Actuators) {
				t.Errorf("ByKind found %d of %d actuators", n, len(c.Actuators))
			}
		})
	}
}
