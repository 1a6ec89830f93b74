package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStdioSubprocessServesTheSameTools(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, noBridge: true})
		cmd := exec.Command(filepath.Join(binDir, "actbridge"), "serve", "--stdio", "--config", defaultConfig(tr),
			"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--wait-master", "20s")
		cmd.Env = append(os.Environ(), w.env()...)
		if tr == ros1 {
			cmd.Env = w.master.Env()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(lt.Tools) < 15 {
			t.Fatalf("%d tools over stdio", len(lt.Tools))
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "joints_read", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%v %v", err, res)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "joints_read", Arguments: map[string]any{"joints": "all"}})
		if err != nil || !res.IsError {
			t.Fatalf("bad arguments accepted over stdio: %v %v", err, res)
		}
	})
}
