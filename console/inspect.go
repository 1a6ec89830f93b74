package console

import (
	"io"
	"net/http"
	"path/filepath"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// Records is the part of the motion store that `actbridge motions` and
// `actbridge audit` print. While the bridge serves, it holds the store file
// locked, so those commands ask it here instead of opening the file.
type Records interface {
	WriteMotionsTable(w io.Writer, f inflight.Filter) error
	WriteMotionsJSON(w io.Writer, f inflight.Filter) error
	WriteAuditJSONL(w io.Writer) error
	Path() string
}

// StoreHeader names, on every inspection answer, the absolute path of the
// store the bridge serves, so a command asking for another file can tell.
const StoreHeader = "X-Actbridge-Store"

// ServeRecords routes GET /console/api/motions (?state=, ?format=table|json)
// and GET /console/api/audit (JSON lines) to the store, for the operator
// only. The bodies are byte for byte what the commands print offline.
func (c *Console) ServeRecords(r Records) {
	c.mux.HandleFunc("GET /console/api/motions", func(w http.ResponseWriter, req *http.Request) {
		if _, ok := c.authorized(w, req, true); !ok {
			return
		}
		q := req.URL.Query()
		f := inflight.Filter{}
		if s := q.Get("state"); s != "" {
			f.States = []inflight.State{inflight.State(s)}
		}
		switch q.Get("format") {
		case "", "table":
			serveRecords(w, r, "text/plain; charset=utf-8", func(out io.Writer) error { return r.WriteMotionsTable(out, f) })
		case "json":
			serveRecords(w, r, "application/json", func(out io.Writer) error { return r.WriteMotionsJSON(out, f) })
		default:
			writeError(w, bridge.FieldError("format", "table or json", clip(q.Get("format"), 40), "unknown format"))
		}
	})
	c.mux.HandleFunc("GET /console/api/audit", func(w http.ResponseWriter, req *http.Request) {
		if _, ok := c.authorized(w, req, true); !ok {
			return
		}
		serveRecords(w, r, "application/jsonl", func(out io.Writer) error { return r.WriteAuditJSONL(out) })
	})
}

// serveRecords streams one listing. A store error after the first byte
// aborts the response, so the command sees a cut answer, never a short one
// that looks whole.
func serveRecords(w http.ResponseWriter, r Records, typ string, write func(io.Writer) error) {
	if r == nil {
		writeError(w, bridge.StateError(bridge.CodeUnavailable, "motion store unavailable", "when the store opens again", "nothing to list"))
		return
	}
	abs, err := filepath.Abs(r.Path())
	if err != nil {
		abs = r.Path()
	}
	w.Header().Set(StoreHeader, abs)
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-store")
	if err := write(w); err != nil {
		panic(http.ErrAbortHandler)
	}
}
