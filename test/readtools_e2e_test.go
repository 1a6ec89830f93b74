package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

func TestReadToolsAgainstTheSim(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{})
		if len(js["joints"].([]any)) < 7 || js["stale"] != false {
			t.Fatalf("joints_read: %v", js)
		}
		// topics_list paginated to the end, sorted, total stable
		var names []string
		cursor := ""
		total := -1
		for pages := 0; pages < 50; pages++ {
			args := map[string]any{"limit": 3}
			if cursor != "" {
				args["cursor"] = cursor
			}
			p := bridgetest.MustCall(t, cs, "topics_list", args)
			if total >= 0 && int(p["total"].(float64)) != total {
				t.Fatalf("total changed: %v", p["total"])
			}
			total = int(p["total"].(float64))
			for _, it := range p["items"].([]any) {
				names = append(names, it.(map[string]any)["name"].(string))
			}
			cursor, _ = p["next_cursor"].(string)
			if cursor == "" {
				break
			}
		}
		if len(names) != total || total < 5 {
			t.Fatalf("walked %d of %d topics", len(names), total)
		}
		for i := 1; i < len(names); i++ {
			if names[i-1] >= names[i] {
				t.Fatalf("not sorted: %v", names)
			}
		}
		if out, isErr := bridgetest.Call(t, cs, "topics_list", map[string]any{"cursor": "garbage"}); !isErr || out["code"] != "invalid_argument" {
			t.Fatalf("bad cursor: %v", out)
		}
		// a large sample spills to a file, read back with output_read
		s := bridgetest.MustCall(t, cs, "topic_sample", map[string]any{"topic": "/joint_states", "n": 10, "max_bytes": 1024})
		if s["truncated"] != true || !strings.Contains(s["summary"].(string), "chars omitted]") {
			t.Fatalf("sample: %v", s)
		}
		r := bridgetest.MustCall(t, cs, "output_read", map[string]any{"path": s["path"], "length": 200})
		if !strings.HasPrefix(r["text"].(string), "[") || r["size"].(float64) < 1024 {
			t.Fatalf("output_read: %v", r)
		}
		// a batch with mixed success reports each item
		b := bridgetest.MustCall(t, cs, "tools_batch", map[string]any{"calls": []any{
			map[string]any{"tool": "joints_read", "arguments": map[string]any{}},
			map[string]any{"tool": "joints_read", "arguments": map[string]any{"joints": []string{"no_such_joint"}}},
			map[string]any{"tool": "robot_describe", "arguments": map[string]any{}},
		}})
		if b["all_ok"] != false || b["succeeded"].(float64) != 2 || b["failed"].(float64) != 1 {
			t.Fatalf("batch: %v", b)
		}
	})
}

func TestAuditListShowsEveryCallWithItsOutcome(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		bridgetest.MustCall(t, cs, "joints_read", map[string]any{})
		bridgetest.Call(t, cs, "base_navigate", map[string]any{"x": 99.0, "y": 0.0})
		var items []any
		rostest.Eventually(t, 10*time.Second, "audit has both calls", func() error {
			a := bridgetest.MustCall(t, cs, "audit_list", map[string]any{"limit": 100})
			items = a["items"].([]any)
			if len(items) < 2 {
				return fmt.Errorf("%d items", len(items))
			}
			return nil
		})
		var sawRefusal bool
		for _, it := range items {
			m := it.(map[string]any)
			if m["tool"] == "base_navigate" && m["outcome"] == "error" && m["code"] == "limit_violation" && m["args_digest"] != "" {
				sawRefusal = true
			}
		}
		if !sawRefusal {
			t.Fatalf("refusal not audited: %v", items)
		}
	})
}
