package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
)

// ros2ArmConfig is the sim's arm-only config moved to transport ros2, on
// domain 77.
func ros2ArmConfig(t *testing.T) string { return ros2ArmConfigWith(t, "domain_id: 77\n") }

// ros2ArmConfigWith is ros2ArmConfig with domain as its domain line ("" for
// none).
func ros2ArmConfigWith(t *testing.T, domain string) string {
	t.Helper()
	b, err := os.ReadFile("../../launch/robots/sim-arm-only.yaml")
	if err != nil {
		t.Fatal(err)
	}
	limits, err := filepath.Abs("../../launch/joint_limits.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "limits_file: ../joint_limits.yaml", "limits_file: "+limits, 1)
	path := filepath.Join(t.TempDir(), "ros2-arm.yaml")
	if err := os.WriteFile(path, []byte("transport: ros2\ndistro: jazzy\n"+domain+s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openLink opens the transport of the config at path, closed with the test.
func openLink(t *testing.T, path string) (*config.Config, *link) {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	l, err := openTransport(ctx, cfg, time.Second, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	return cfg, l
}

func TestROS2ConfigPassesCheckConfig(t *testing.T) {
	var out bytes.Buffer
	if err := checkConfig([]string{"--config", ros2ArmConfig(t), "--urdf", "../../launch/simrobot.urdf"}, &out); err != nil {
		t.Fatalf("check-config: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), ": ok") {
		t.Errorf("check-config said %q", out.String())
	}
}

// Serve opens the transport the config names: ros2 joins its domain (on
// loopback, localhost discovery) and reports where.
func TestServeOpensTheROS2TransportTheConfigNames(t *testing.T) {
	_, l := openLink(t, ros2ArmConfig(t))
	if want := "ROS 2 jazzy, domain 77, localhost discovery"; l.where != want {
		t.Errorf("where = %q, want %q", l.where, want)
	}
	if st := l.robot.Actuators(); len(st) != 1 || st[0].Name != "arm" || st[0].Connected {
		t.Errorf("actuators %+v: want the arm, not connected (no server)", st)
	}
}

// tools export lists what serve offers over ROS 2: the offline
// catalogue and an open ROS 2 robot register the same tools with the
// same input schemas (the distro's message and service types), the
// guarded ROS tools among them.
func TestROS2CatalogueOfflineIsServes(t *testing.T) {
	path := ros2ArmConfig(t)
	offline, err := offlineTools(path, "../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	cfg, l := openLink(t, path)
	urdf, err := os.ReadFile("../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadModel(cfg, urdf)
	if err != nil {
		t.Fatal(err)
	}
	live, err := buildTools(m, l.robot, nil, brokenStore{err: errOffline}, []byte("offline"), toolOptions{dataDir: t.TempDir(), ttl: time.Minute, staleAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	schemas := func(ts *toolSet) map[string]string {
		out := map[string]string{}
		for _, tl := range ts.pipeline.Registry.Tools() {
			shape := tl.Shape()
			b, err := json.Marshal(shape.Input)
			if err != nil {
				t.Fatal(err)
			}
			out[tl.Name] = shape.Description + string(b)
		}
		return out
	}
	on, off := schemas(live), schemas(offline)
	for _, name := range []string{"topics_list", "topic_sample", "params_get", "params_set", "services_list", "service_call", "camera_snapshot"} {
		if _, ok := on[name]; !ok {
			t.Errorf("serve over ROS 2 lacks %s", name)
		}
	}
	if !maps.Equal(on, off) {
		for n := range on {
			if on[n] != off[n] {
				t.Errorf("%s differs offline:\n%.300s\n%.300s", n, on[n], off[n])
			}
		}
		t.Fatalf("offline %d tools, serve %d", len(off), len(on))
	}
	if !strings.Contains(on["service_call"], "std_srvs/srv/Trigger") || !strings.Contains(on["service_call"], "rcl_interfaces/srv/GetParameters") {
		t.Errorf("service_call: %.400s", on["service_call"])
	}
}

// The start-up line names the domain the transport joined, also when it
// comes from ROS_DOMAIN_ID rather than the config.
func TestServeNamesTheDomainTheEnvironmentGave(t *testing.T) {
	t.Setenv("ROS_DOMAIN_ID", "78")
	_, l := openLink(t, ros2ArmConfigWith(t, ""))
	if want := "ROS 2 jazzy, domain 78, localhost discovery"; l.where != want {
		t.Errorf("where = %q, want %q", l.where, want)
	}
}

// okStore is a store that is healthy.
type okStore struct{}

func (okStore) Healthy() error { return nil }

// Over ROS 2, which has no master, health's master_reachable (a name
// dashboards read) says whether discovery has met another participant:
// false alone on the domain, true once any participant joins, though it
// serves none of the robot's actions (the robot is not ready then).
func TestHealthOverROS2SaysWhetherDiscoveryMetAParticipant(t *testing.T) {
	const domain = 177 // this test's alone
	_, l := openLink(t, ros2ArmConfigWith(t, fmt.Sprintf("domain_id: %d\n", domain)))
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	h := health(l, okStore{})
	if h["transport"] != "ros2" || h["master_reachable"] != false || h["ready"] != false {
		t.Fatalf("alone on the domain: %v", h)
	}
	peer, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	for health(l, okStore{})["master_reachable"] != true {
		select {
		case <-ctx.Done():
			t.Fatalf("another participant on the domain: %v", health(l, okStore{}))
		case <-time.After(50 * time.Millisecond):
		}
	}
	if h := health(l, okStore{}); h["ready"] != false || !reflect.DeepEqual(h["actuators_offline"], []string{"arm"}) {
		t.Fatalf("a participant that serves nothing made the robot ready: %v", h)
	}
}

// Serve says at start what discovery cannot reach and what to set (the
// advice it prints after reading the robot description): alone on the
// domain, that nodes under OFF talk to no one and what else to check;
// nothing once a participant answers.
func TestServeSaysWhatDiscoveryCannotReach(t *testing.T) {
	const domain = 178
	_, l := openLink(t, ros2ArmConfigWith(t, fmt.Sprintf("domain_id: %d\n", domain)))
	if a := l.advice(); !strings.Contains(a, "domain 178") || !strings.Contains(a, "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF talk to no other process") {
		t.Fatalf("alone on the domain, the advice is %q", a)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	peer, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	for l.advice() != "" {
		select {
		case <-ctx.Done():
			t.Fatalf("with a participant on the domain, the advice is %q", l.advice())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
