package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// TestBrokenStoreRefusesIrreversibleCallsAndKeepsServingReads starts the
// bridge on a corrupt store file and on a read-only one. Irreversible
// calls are refused (the e-stop starts latched: its state is unknown), reads
// and robot_stop keep working.
func TestBrokenStoreRefusesIrreversibleCallsAndKeepsServingReads(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		for name, prepare := range map[string]func(path string){
			"corrupt": func(p string) { _ = os.WriteFile(p, []byte(strings.Repeat("not a bbolt file ", 500)), 0o600) },
			"read-only": func(p string) {
				_ = os.WriteFile(p, nil, 0o400)
				_ = os.Chmod(filepath.Dir(p), 0o500)
			},
		} {
			t.Run(name, func(t *testing.T) {
				storeDir := t.TempDir()
				store := filepath.Join(storeDir, "actbridge.db")
				prepare(store)
				t.Cleanup(func() { _ = os.Chmod(storeDir, 0o700) })
				full := newWorld(t, worldOpts{tr: tr, noBridge: true})
				full.startBridge(worldOpts{bridgeArgs: []string{"--store", store}})
				cs := full.mcpClient("")
				bridgetest.MustCall(t, cs, "joints_read", map[string]any{})
				bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
				// The e-stop latch lives in the store: unread, the bridge
				// cannot know it was released, so it starts latched and says why.
				out, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": 0.2}})
				if !isErr || out["code"] != "estop_latched" || !strings.Contains(out["state"].(string), "store could not be read") {
					t.Fatalf("preview with a broken store: %v", out)
				}
				if full.goalsReceived() != 0 {
					t.Fatal("a goal went out without a durable record")
				}
				// Stop still works without a store.
				bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "store broken"})
			})
		}
	})
}
