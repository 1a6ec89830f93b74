package test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// Debian's Chromium and its WebDriver (packages chromium, chromium-driver).
const (
	chromiumBin     = "/usr/bin/chromium"
	chromedriverBin = "/usr/bin/chromedriver"
)

// browser is headless Chromium driven over the W3C WebDriver protocol by
// chromedriver, with nothing but net/http.
type browser struct {
	t       *testing.T
	base    string // http://127.0.0.1:<port>/session/<id>
	driver  *exec.Cmd
	stopped chan struct{}
}

// newBrowser starts chromedriver and one headless Chromium session with a
// fresh profile; both are ended at cleanup. Without the binaries the test
// is skipped, except in CI (scripts/deps.sh installs them there).
func newBrowser(t *testing.T) *browser {
	t.Helper()
	for _, bin := range []string{chromiumBin, chromedriverBin} {
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing: scripts/deps.sh installs chromium and chromium-driver", bin)
			}
			t.Skipf("%s is missing (apt-get install chromium chromium-driver, or make deps)", bin)
		}
	}
	port := bridgetest.FreePort(t)
	b := &browser{t: t, stopped: make(chan struct{})}
	b.driver = exec.Command(chromedriverBin, fmt.Sprintf("--port=%d", port))
	b.driver.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out := &rostest.Buffer{}
	b.driver.Stdout, b.driver.Stderr = out, out
	if err := b.driver.Start(); err != nil {
		t.Fatalf("chromedriver: %v", err)
	}
	go func() { _ = b.driver.Wait(); close(b.stopped) }()
	t.Cleanup(func() {
		_ = b.driver.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.stopped:
		case <-time.After(5 * time.Second):
			_ = b.driver.Process.Kill()
			<-b.stopped
		}
		if t.Failed() {
			t.Logf("chromedriver output:\n%s", rostest.Tail(out.String(), 3000))
		}
	})
	root := fmt.Sprintf("http://127.0.0.1:%d", port)
	rostest.Eventually(t, 20*time.Second, "chromedriver answers", func() error {
		resp, err := http.Get(root + "/status")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{"binary": chromiumBin, "args": []string{
			"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-quic", "--disable-dev-shm-usage",
			"--user-data-dir=" + t.TempDir(), "--window-size=1400,1200",
		}},
	}}}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	b.base = root
	b.do("POST", "/session", caps, &sess)
	b.base = root + "/session/" + sess.SessionID
	t.Cleanup(func() { b.try("DELETE", "", nil, nil) })
	return b
}

// try runs one WebDriver command; a WebDriver error comes back as err.
func (b *browser) try(method, path string, body, out any) error {
	var rd *bytes.Reader
	if body == nil && method == "POST" {
		body = map[string]any{}
	}
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	} else {
		rd = bytes.NewReader(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, b.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, clipStr(string(env.Value), 400))
	}
	if out != nil {
		return json.Unmarshal(env.Value, out)
	}
	return nil
}

func (b *browser) do(method, path string, body, out any) {
	b.t.Helper()
	if err := b.try(method, path, body, out); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) open(url string) {
	b.t.Helper()
	b.do("POST", "/url", map[string]any{"url": url}, nil)
}

// find returns the first element matching css, or "" when there is none.
func (b *browser) find(css string) string {
	var el map[string]string
	if err := b.try("POST", "/element", map[string]any{"using": "css selector", "value": css}, &el); err != nil {
		return ""
	}
	for _, id := range el {
		return id
	}
	return ""
}

// waitFor waits for an element matching css and returns it.
func (b *browser) waitFor(css string, d time.Duration) string {
	b.t.Helper()
	var id string
	rostest.Eventually(b.t, d, "the page shows "+css, func() error {
		if id = b.find(css); id == "" {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	return id
}

// waitText waits until the text of the element matching css contains want.
func (b *browser) waitText(css, want string, d time.Duration) {
	b.t.Helper()
	rostest.Eventually(b.t, d, "the page shows "+css+" containing "+want, func() error {
		if got := b.text(css); !strings.Contains(got, want) {
			return fmt.Errorf("text %q", got)
		}
		return nil
	})
}

func (b *browser) text(css string) string {
	id := b.find(css)
	if id == "" {
		return ""
	}
	var s string
	if b.try("GET", "/element/"+id+"/text", nil, &s) != nil {
		return ""
	}
	return s
}

// click finds and clicks css. The page re-renders every second, so an
// element found just before a refresh can go stale: then nothing was
// clicked, and it is found again (bounded).
func (b *browser) click(css string) {
	b.t.Helper()
	for attempt := 0; ; attempt++ {
		id := b.waitFor(css, 10*time.Second)
		err := b.try("POST", "/element/"+id+"/click", nil, nil)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "stale element reference") || attempt == 5 {
			b.t.Fatal(err)
		}
	}
}

func (b *browser) typeInto(css, text string) {
	b.t.Helper()
	for attempt := 0; ; attempt++ {
		id := b.waitFor(css, 10*time.Second)
		err := b.try("POST", "/element/"+id+"/value", map[string]any{"text": text}, nil)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "stale element reference") || attempt == 5 {
			b.t.Fatal(err)
		}
	}
}

// noDialog fails the test if the page opened a browser dialog (alert,
// confirm, prompt).
func (b *browser) noDialog() {
	b.t.Helper()
	var text string
	if err := b.try("GET", "/alert/text", nil, &text); err == nil {
		b.t.Fatalf("the page opened a dialog: %q", text)
	} else if !strings.Contains(err.Error(), "no such alert") {
		b.t.Fatalf("checking for a dialog: %v", err)
	}
}

// screenshot saves a PNG of the page as a test artefact.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	b.savePNG("/screenshot", path)
}

// elementShot saves a PNG of the element matching css as a test artefact.
func (b *browser) elementShot(css, path string) {
	b.t.Helper()
	b.savePNG("/element/"+b.waitFor(css, 10*time.Second)+"/screenshot", path)
}

func (b *browser) savePNG(endpoint, path string) {
	b.t.Helper()
	var s string
	b.do("GET", endpoint, nil, &s)
	png, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

func clipStr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
