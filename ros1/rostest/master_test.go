package rostest

import (
	"strings"
	"testing"
	"time"
)

func TestMasterRestartKeepsPortAndChangesPid(t *testing.T) {
	m := StartMaster(t)
	uri, pid := m.URI(), m.Pid()

	if out, err := m.Run(30*time.Second, "rosparam", "set", "/before_restart", "1"); err != nil {
		t.Fatalf("rosparam set: %v\n%s", err, out)
	}
	m.Restart()

	if m.URI() != uri {
		t.Errorf("URI after restart = %s, want %s", m.URI(), uri)
	}
	if m.Pid() == pid || m.Pid() == 0 {
		t.Errorf("pid after restart = %d, want a new process (old %d)", m.Pid(), pid)
	}
	out, err := m.Run(30*time.Second, "rosparam", "list")
	if err != nil {
		t.Fatalf("rosparam list after restart: %v", err)
	}
	if strings.Contains(out, "/before_restart") {
		t.Errorf("restarted master still has parameters of the old one:\n%s", out)
	}
}

func TestKilledMasterStopsAnswering(t *testing.T) {
	m := StartMaster(t)
	m.Kill()
	if m.Pid() != 0 {
		t.Errorf("Pid after Kill = %d, want 0", m.Pid())
	}
	if out, err := m.Run(30*time.Second, "rosnode", "list"); err == nil {
		t.Errorf("rosnode list succeeded against a killed master:\n%s", out)
	}
}
