package roslink

import (
	"strings"
	"testing"
)

func TestEnvFromReadsROSVariables(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want Env
	}{
		{"unset means local default master", nil, Env{MasterAddress: "127.0.0.1:11311", Host: "127.0.0.1"}},
		{"loopback master pins host to loopback", map[string]string{"ROS_MASTER_URI": "http://localhost:11411"}, Env{MasterAddress: "localhost:11411", Host: "127.0.0.1"}},
		{"trailing slash accepted", map[string]string{"ROS_MASTER_URI": "http://127.0.0.1:11311/"}, Env{MasterAddress: "127.0.0.1:11311", Host: "127.0.0.1"}},
		{"surrounding spaces ignored", map[string]string{"ROS_MASTER_URI": " http://127.0.0.1:11311 \n"}, Env{MasterAddress: "127.0.0.1:11311", Host: "127.0.0.1"}},
		{"remote master leaves host to goroslib", map[string]string{"ROS_MASTER_URI": "http://robot:11311"}, Env{MasterAddress: "robot:11311"}},
		{"IPv6 master", map[string]string{"ROS_MASTER_URI": "http://[fd00::1]:11311"}, Env{MasterAddress: "[fd00::1]:11311"}},
		{"ROS_IP used", map[string]string{"ROS_MASTER_URI": "http://robot:11311", "ROS_IP": "10.0.0.5"}, Env{MasterAddress: "robot:11311", Host: "10.0.0.5"}},
		{"ROS_HOSTNAME wins over ROS_IP", map[string]string{"ROS_MASTER_URI": "http://robot:11311", "ROS_IP": "10.0.0.5", "ROS_HOSTNAME": "bridge.local"}, Env{MasterAddress: "robot:11311", Host: "bridge.local"}},
		{"ROS_HOSTNAME wins over loopback default", map[string]string{"ROS_HOSTNAME": "bridge.local"}, Env{MasterAddress: "127.0.0.1:11311", Host: "bridge.local"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EnvFrom(func(k string) string { return tt.vars[k] })
			if err != nil {
				t.Fatalf("EnvFrom: %v", err)
			}
			if got != tt.want {
				t.Errorf("EnvFrom = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEnvFromRejectsMalformedValuesNamingVariableAndExample(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		mentions []string
	}{
		{"no scheme", map[string]string{"ROS_MASTER_URI": "localhost:11311"}, []string{"ROS_MASTER_URI", `"localhost:11311"`, "http://127.0.0.1:11311"}},
		{"https scheme", map[string]string{"ROS_MASTER_URI": "https://localhost:11311"}, []string{"ROS_MASTER_URI", "scheme"}},
		{"no port", map[string]string{"ROS_MASTER_URI": "http://localhost"}, []string{"ROS_MASTER_URI", "no port", "http://127.0.0.1:11311"}},
		{"port not a number", map[string]string{"ROS_MASTER_URI": "http://localhost:abc"}, []string{"ROS_MASTER_URI", "abc"}},
		{"port zero", map[string]string{"ROS_MASTER_URI": "http://localhost:0"}, []string{"ROS_MASTER_URI", "1-65535"}},
		{"port too large", map[string]string{"ROS_MASTER_URI": "http://localhost:70000"}, []string{"ROS_MASTER_URI", "70000"}},
		{"garbage", map[string]string{"ROS_MASTER_URI": "%%% not a uri"}, []string{"ROS_MASTER_URI", "%%% not a uri"}},
		{"no host", map[string]string{"ROS_MASTER_URI": "http://:11311"}, []string{"ROS_MASTER_URI", "no host"}},
		{"a path", map[string]string{"ROS_MASTER_URI": "http://localhost:11311/RPC2"}, []string{"ROS_MASTER_URI", "path"}},
		{"ROS_IP not an IP", map[string]string{"ROS_IP": "robot.local"}, []string{"ROS_IP", "robot.local", "192.168.1.20"}},
		{"ROS_HOSTNAME a URI", map[string]string{"ROS_HOSTNAME": "http://robot"}, []string{"ROS_HOSTNAME", "http://robot"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EnvFrom(func(k string) string { return tt.vars[k] })
			if err == nil {
				t.Fatalf("EnvFrom = %+v, want an error", got)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}
