package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A base's geofence is in its odom_frame unless it names another, the
// transform into it may be 1 s old unless tf_max_age says otherwise, and
// it is read from /tf and /tf_static unless tf_topic and tf_static_topic
// name others.
func TestAGeofenceIsInTheOdomFrameUnlessItNamesOne(t *testing.T) {
	for _, c := range []struct{ yaml, frame string }{
		{`{min_x: -1, max_x: 1, min_y: -1, max_y: 1}`, "odom"},
		{`{frame: map, min_x: -1, max_x: 1, min_y: -1, max_y: 1}`, "map"},
	} {
		cfg, err := Parse([]byte("actuators:\n  - {name: base, kind: base, cmd_vel_topic: /cmd_vel, odom_topic: /odom, caps: {max_linear: 1, max_angular: 1}, geofence: " + c.yaml + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if g := cfg.Actuators[0].Geofence.Frame; g != c.frame {
			t.Errorf("%s: fence frame %q, want %q", c.yaml, g, c.frame)
		}
		if cfg.TFMaxAge.D() != time.Second {
			t.Errorf("tf_max_age %v, want 1s", cfg.TFMaxAge.D())
		}
		if cfg.TFTopic != "/tf" || cfg.TFStaticTopic != "/tf_static" {
			t.Errorf("TF topics %q %q, want tf2's /tf and /tf_static", cfg.TFTopic, cfg.TFStaticTopic)
		}
	}
}

// A bad fence frame, TF pin, age or topic is refused naming the key.
func TestTFKeysAreCheckedNamingTheKey(t *testing.T) {
	base := "actuators:\n  - {name: base, kind: base, cmd_vel_topic: /cmd_vel, odom_topic: /odom, geofence: {frame: %s, min_x: -1, max_x: 1, min_y: -1, max_y: 1}}\n"
	for _, c := range []struct{ yaml, field string }{
		{strings.Replace(base, "%s", `"no frame"`, 1), "geofence.frame"},
		{strings.Replace(base, "%s", "map", 1) + "tf_sources: {odom: ekf_node}\n", "tf_sources.odom"},
		{strings.Replace(base, "%s", "map", 1) + "tf_sources: {\"bad frame\": /ekf_node}\n", "tf_sources"},
		{strings.Replace(base, "%s", "map", 1) + "tf_max_age: 2m\n", "tf_max_age"},
		{strings.Replace(base, "%s", "map", 1) + "tf_topic: robot1/tf\n", "tf_topic"},
		{strings.Replace(base, "%s", "map", 1) + "tf_static_topic: /robot1/tf\ntf_topic: /robot1/tf\n", "tf_static_topic"},
	} {
		_, err := Parse([]byte(c.yaml))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%q: %v, want a config error naming %s", c.yaml, err, c.field)
		}
	}
	if _, err := Parse([]byte(strings.Replace(base, "%s", "map", 1) + "tf_sources: {odom: /ekf_node}\ntf_max_age: 500ms\ntf_topic: /robot1/tf\ntf_static_topic: /robot1/tf_static\n")); err != nil {
		t.Errorf("a good TF config: %v", err)
	}
}
