package console

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// get sends a GET as the command would and returns the status, body and
// the store the bridge says it serves.
func (r *rig) get(t *testing.T, path, token string) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:8765"+path, nil)
	req.RemoteAddr = "127.0.0.1:50000"
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	r.console.ServeHTTP(w, req)
	return w.Code, w.Body.String(), w.Header().Get(StoreHeader)
}

func TestRecordsFromTheRunningBridgeAreWhatTheStorePrints(t *testing.T) {
	r := newRig(t, withTokens())
	r.console.ServeRecords(r.store)
	id := r.plan(t, "gripper_move", `{"position":0.05}`)
	if _, e := r.pipe.Call(context.Background(), "motion_confirm", json.RawMessage(`{"preview_id":"`+id+`"}`), bridge.Invocation{Role: bridge.RolePlanner}); e != nil {
		t.Fatal(e)
	}
	if err := r.store.AppendAll(context.Background(), []inflight.AuditRecord{{Tool: "gripper_move", Outcome: inflight.OutcomePreview}}); err != nil {
		t.Fatal(err)
	}
	sent := inflight.Filter{States: []inflight.State{inflight.StateSent}}
	for _, c := range []struct {
		path  string
		write func(*bytes.Buffer) error
	}{
		{"/console/api/motions", func(b *bytes.Buffer) error { return r.store.WriteMotionsTable(b, inflight.Filter{}) }},
		{"/console/api/motions?format=json", func(b *bytes.Buffer) error { return r.store.WriteMotionsJSON(b, inflight.Filter{}) }},
		{"/console/api/motions?format=json&state=sent", func(b *bytes.Buffer) error { return r.store.WriteMotionsJSON(b, sent) }},
		{"/console/api/audit", func(b *bytes.Buffer) error { return r.store.WriteAuditJSONL(b) }},
	} {
		t.Run(c.path, func(t *testing.T) {
			var want bytes.Buffer
			if err := c.write(&want); err != nil {
				t.Fatal(err)
			}
			code, body, store := r.get(t, c.path, operatorToken)
			if code != http.StatusOK || body != want.String() {
				t.Fatalf("%d\n%s\nwant\n%s", code, body, want.String())
			}
			if abs, _ := filepath.Abs(r.store.Path()); store != abs {
				t.Fatalf("store header %q, want %q", store, abs)
			}
			if !strings.Contains(body, "gripper") {
				t.Fatalf("the confirmed motion is not listed: %s", body)
			}
		})
	}
}

func TestRecordsAreForTheOperatorOnly(t *testing.T) {
	r := newRig(t, withTokens())
	r.console.ServeRecords(r.store)
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/console/api/motions", "", http.StatusUnauthorized},
		{"/console/api/audit", "wrong", http.StatusUnauthorized},
		{"/console/api/audit", plannerToken, http.StatusForbidden},
		{"/console/api/motions?format=yaml", plannerToken, http.StatusForbidden},
		{"/console/api/motions?format=yaml", operatorToken, http.StatusBadRequest},
	} {
		if code, body, store := r.get(t, c.path, c.token); code != c.status || store != "" {
			t.Errorf("%s with %q: %d (store %q), want %d: %s", c.path, c.token, code, store, c.status, body)
		}
	}
}

func TestRecordsOfAnUnavailableStoreAreRefused(t *testing.T) {
	r := newRig(t, withTokens())
	r.console.ServeRecords(nil)
	if code, body, _ := r.get(t, "/console/api/motions", operatorToken); code != http.StatusServiceUnavailable || !strings.Contains(body, "unavailable") {
		t.Fatalf("%d %s", code, body)
	}
}
