package console

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

//go:embed assets
var assets embed.FS

// Previews is the part of the motion store the console reads and writes.
type Previews interface {
	PendingPreviews(now time.Time) ([]inflight.Preview, error)
	GetPreview(id string) (inflight.Preview, error)
	DenyPreview(ctx context.Context, id, who string) error
}

// Session is the MCP-style session name of console calls in the audit log.
const Session = "console"

// Console is an http.Handler for /console and /console/api/. Build it with
// New; the zero value is not usable.
type Console struct {
	pipeline *bridge.Pipeline
	previews Previews // nil when the store is unavailable
	tokens   bridge.Tokens
	now      func() time.Time
	mux      *http.ServeMux

	mu          sync.Mutex
	cache       *snapshot // the last robot state read, shared by every viewer
	recent      []recentMotion
	eventCursor string // where the next events_read resumes
}

// New wires a console to the pipeline, the store's previews (nil when the
// store is unavailable) and the bearer tokens (none: loopback-only demo).
func New(p *bridge.Pipeline, previews Previews, tokens bridge.Tokens) *Console {
	c := &Console{pipeline: p, previews: previews, tokens: tokens, now: time.Now, mux: http.NewServeMux()}
	static, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix("/console/", http.FileServerFS(static))
	c.mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/", http.StatusMovedPermanently)
	})
	c.mux.Handle("GET /console/", noStore(files))
	c.mux.HandleFunc("GET /console/api/state", c.serveState)
	c.mux.HandleFunc("POST /console/api/approve", c.serveApprove)
	c.mux.HandleFunc("POST /console/api/deny", c.serveDeny)
	c.mux.HandleFunc("POST /console/api/stop", c.serveStop)
	c.mux.HandleFunc("POST /console/api/estop_reset", c.operatorTool("estop_reset", "event"))
	c.mux.HandleFunc("POST /console/api/description_accept", c.operatorTool("robot_description_accept", "urdf_sha256"))
	return c
}

// ServeHTTP serves the page, its assets and the API.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY") // no clickjacking of the approve button
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	c.mux.ServeHTTP(w, r)
}

// noStore keeps browsers from running a stale page against a newer bridge.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError sends a bridge error object with the HTTP status its code means.
func writeError(w http.ResponseWriter, e *bridge.Error) {
	writeJSON(w, httpStatus(e.Code), e)
}

func httpStatus(code bridge.Code) int {
	switch code {
	case bridge.CodeInvalidArgument, bridge.CodeLimitViolation:
		return http.StatusBadRequest
	case bridge.CodePermissionDenied:
		return http.StatusForbidden
	case bridge.CodeNotFound:
		return http.StatusNotFound
	case bridge.CodeBusy, bridge.CodeStalePreview, bridge.CodePreviewExpired, bridge.CodeEstopLatched, bridge.CodeConfirmationRequired:
		return http.StatusConflict
	case bridge.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
