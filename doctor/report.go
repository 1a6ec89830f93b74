package doctor

import (
	"encoding/json"
	"fmt"
	"io"
)

// Status is a check's outcome.
type Status string

// The outcomes of a check. Skip means the check does not apply (no such
// topic configured, a distro without type hashes) or could not run, and
// says why; only Fail fails the report.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Fix says what to change when the check fails.
	Fix string `json:"fix,omitempty"`
}

// Report is the checks in the order they ran.
type Report struct {
	Where  string  `json:"where"`
	Checks []Check `json:"checks"`
}

// Failed counts the failed checks.
func (r Report) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// WriteText prints one line per check, then the detail and the fix of
// each failure indented under it, and a summary line.
func (r Report) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "actbridge doctor: %s\n", r.Where); err != nil {
		return err
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-4s  %s\n", c.Status, c.Name)
		if c.Detail != "" && c.Status != Pass {
			fmt.Fprintf(w, "      %s\n", c.Detail)
		}
		if c.Fix != "" && c.Status == Fail {
			fmt.Fprintf(w, "      fix: %s\n", c.Fix)
		}
	}
	_, err := fmt.Fprintf(w, "%d checks, %d failed\n", len(r.Checks), r.Failed())
	return err
}

// WriteJSON prints the report as one indented JSON object, with the
// count of failures.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Report
		Failed int `json:"failed"`
	}{r, r.Failed()})
}
