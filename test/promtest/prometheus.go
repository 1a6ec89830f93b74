package promtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary is Debian's Prometheus server (package prometheus).
const Binary = "/usr/bin/prometheus"

// Config is what the temporary Prometheus scrapes.
type Config struct {
	// Targets are host:port addresses scraped at MetricsPath (job "actbridge").
	Targets []string
	// MetricsPath defaults to /metrics.
	MetricsPath string
	// Interval is the scrape and rule evaluation interval; zero means 1 s.
	Interval time.Duration
	// RuleFiles are alerting/recording rule files, loaded as they are.
	RuleFiles []string
}

// Server is a Prometheus process owned by one test; it stops (by pid) when
// the test ends.
type Server struct {
	// URL is the HTTP API's base, http://127.0.0.1:<port>.
	URL string

	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // the process's exit; valid once done is closed
}

// readyTimeout bounds start-up: Prometheus replays an empty WAL in well
// under a second, so this only guards against a hang.
const readyTimeout = 60 * time.Second

// Start runs Prometheus on a free loopback port with a temporary config and
// TSDB directory, and waits until it is ready. It skips the test when the
// binary is missing.
func Start(t testing.TB, c Config) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Skipf("%s not installed (Debian package prometheus): %v", Binary, err)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(configYAML(c)), 0o600); err != nil {
		t.Fatal(err)
	}
	var lastErr error
	// A port picked free can be taken before Prometheus binds it: retry.
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(dir, cfgPath, attempt)
		if err == nil {
			t.Cleanup(func() {
				if err := s.Stop(); err != nil {
					t.Errorf("stopping prometheus: %v", err)
				}
			})
			return s
		}
		lastErr = err
	}
	t.Fatalf("prometheus did not start: %v", lastErr)
	return nil
}

func configYAML(c Config) string {
	iv := c.Interval
	if iv <= 0 {
		iv = time.Second
	}
	path := c.MetricsPath
	if path == "" {
		path = "/metrics"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n", iv, iv, iv)
	if len(c.RuleFiles) > 0 {
		b.WriteString("rule_files:\n")
		for _, f := range c.RuleFiles {
			abs, _ := filepath.Abs(f)
			fmt.Fprintf(&b, "  - %q\n", abs)
		}
	}
	fmt.Fprintf(&b, "scrape_configs:\n  - job_name: actbridge\n    metrics_path: %q\n    static_configs:\n      - targets:\n", path)
	for _, t := range c.Targets {
		fmt.Fprintf(&b, "          - %q\n", t)
	}
	return b.String()
}

func start(dir, cfgPath string, attempt int) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	logPath := filepath.Join(dir, fmt.Sprintf("prometheus-%d.log", attempt))
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(Binary,
		"--config.file="+cfgPath,
		"--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data-%d", attempt)),
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive a killed test binary
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) waitReady() error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("prometheus exited (%v): %s", s.err, s.LogTail())
		default:
		}
		resp, err := client.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("prometheus not ready after %s: %s", readyTimeout, s.LogTail())
}

// Stop terminates the process by pid (SIGTERM, then SIGKILL after 10 s)
// and waits for it. Calling it again is harmless.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	return fmt.Errorf("prometheus (pid %d) ignored SIGTERM for 10 s and was killed", s.cmd.Process.Pid)
}

// Pid is the Prometheus process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// LogTail returns the end of Prometheus's log, for failure messages.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(bytes.TrimSpace(b))
}

// Sample is one element of an instant query's result.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query runs an instant PromQL query and returns its samples (a scalar
// result is one sample without labels).
func (s *Server) Query(ctx context.Context, query string) ([]Sample, error) {
	u := s.URL + "/api/v1/query?" + url.Values{"query": {query}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("query %q: HTTP %d: %w", query, resp.StatusCode, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %q: %s", query, body.Error)
	}
	switch body.Data.ResultType {
	case "vector":
		var v []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(body.Data.Result, &v); err != nil {
			return nil, err
		}
		out := make([]Sample, 0, len(v))
		for _, e := range v {
			f, err := sampleValue(e.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, Sample{Labels: e.Metric, Value: f})
		}
		return out, nil
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(body.Data.Result, &v); err != nil {
			return nil, err
		}
		f, err := sampleValue(v)
		if err != nil {
			return nil, err
		}
		return []Sample{{Labels: map[string]string{}, Value: f}}, nil
	}
	return nil, fmt.Errorf("query %q: result type %q not supported", query, body.Data.ResultType)
}

func sampleValue(v [2]any) (float64, error) {
	s, ok := v[1].(string)
	if !ok {
		return 0, errors.New("sample value is not a string")
	}
	return strconv.ParseFloat(s, 64)
}

// WaitFor polls query every 200 ms until ok accepts its samples or timeout
// passes, and returns the accepted samples; on timeout it fails the test
// with the last answer.
func (s *Server) WaitFor(t testing.TB, query string, timeout time.Duration, ok func([]Sample) bool) []Sample {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last []Sample
	var lastErr error
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		last, lastErr = s.Query(ctx, query)
		cancel()
		if lastErr == nil && ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus: %q not as expected after %s: last answer %v (err %v); log: %s", query, timeout, last, lastErr, s.LogTail())
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}
