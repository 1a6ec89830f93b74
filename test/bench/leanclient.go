package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// leanProtocol is the MCP version the lean client speaks.
const leanProtocol = "2025-06-18"

// leanName names the lean client in the table.
const leanName = "lean Go client (net/http, encoding/json)"

// leanClient is a minimal streamable HTTP MCP client written with net/http
// and encoding/json: initialize, notifications/initialized, tools/call,
// DELETE. It takes JSON or event-stream answers, as the transport requires
// of clients. The Go SDK's client costs about as much CPU per call as the
// bridge; on the same two cores that halves what the bridge can show, so
// the read rows are measured with both.
type leanClient struct {
	hc      *http.Client
	url     string
	session string
	ids     atomic.Int64
}

// rpcAnswer is a JSON-RPC response as the lean client reads it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// dialLean opens a session on the MCP endpoint url.
func dialLean(ctx context.Context, hc *http.Client, url string) (*leanClient, error) {
	c := &leanClient{hc: hc, url: url}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + leanProtocol +
		`","capabilities":{},"clientInfo":{"name":"actbridge-bench-lean","version":"1"}}}`
	ans, hdr, err := c.post(ctx, []byte(init), "0")
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(ans.Result, &res); err != nil || res.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: no protocolVersion in %s", ans.Result)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	if c.session == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	if _, _, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return c, nil
}

// call calls a tool; a tool error (isError) is an error.
func (c *leanClient) call(ctx context.Context, name string, args string) (structured json.RawMessage, err error) {
	id := strconv.FormatInt(c.ids.Add(1), 10)
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":` + strconv.Quote(name) + `,"arguments":` + args + `}}`
	ans, _, err := c.post(ctx, []byte(body), id)
	if err != nil {
		return nil, err
	}
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(ans.Result, &res); err != nil {
		return nil, fmt.Errorf("%s: result: %w", name, err)
	}
	if res.IsError {
		return res.StructuredContent, fmt.Errorf("%s failed: %s", name, res.StructuredContent)
	}
	return res.StructuredContent, nil
}

// close ends the session.
func (c *leanClient) close() {
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	if resp, err := c.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

// post sends one JSON-RPC message and returns the answer whose id is id
// (none for a notification: "" expects 202 Accepted).
func (c *leanClient) post(ctx context.Context, body []byte, id string) (rpcAnswer, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return rpcAnswer{}, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", leanProtocol)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return rpcAnswer{}, nil, err
	}
	defer resp.Body.Close()
	if id == "" {
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
			return rpcAnswer{}, resp.Header, fmt.Errorf("HTTP %s", resp.Status)
		}
		return rpcAnswer{}, resp.Header, nil
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return rpcAnswer{}, resp.Header, fmt.Errorf("HTTP %s: %s", resp.Status, b)
	}
	ans, err := readAnswer(resp, id)
	return ans, resp.Header, err
}

// readAnswer reads the response with the given id from a JSON body or an
// event stream (other messages on the stream are skipped).
func readAnswer(resp *http.Response, id string) (rpcAnswer, error) {
	one := func(b []byte) (rpcAnswer, bool, error) {
		var a rpcAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			return a, false, fmt.Errorf("answer: %w", err)
		}
		if string(a.ID) != id {
			return a, false, nil
		}
		if a.Error != nil {
			return a, true, fmt.Errorf("JSON-RPC error %d: %s", a.Error.Code, a.Error.Message)
		}
		return a, true, nil
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return rpcAnswer{}, err
		}
		a, ok, err := one(b)
		if err == nil && !ok {
			err = fmt.Errorf("answer for id %s, want %s", a.ID, id)
		}
		return a, err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) == 0 && len(data) > 0 { // end of an event
			a, ok, err := one(data)
			if err != nil || ok {
				return a, err
			}
			data = data[:0]
		}
	}
	if err := sc.Err(); err != nil {
		return rpcAnswer{}, err
	}
	return rpcAnswer{}, fmt.Errorf("stream ended without the answer for id %s", id)
}

// Lean connects a lean client as a planner; it is closed when the world is.
func (w *World) Lean() *leanClient {
	tb := w.env.TB
	tb.Helper()
	w.mu.Lock()
	if w.transport == nil {
		w.transport = stampedTransport(&w.wire)
	}
	hc := &http.Client{Transport: w.transport}
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lc, err := dialLean(ctx, hc, "http://"+w.Addr+"/mcp")
	if err != nil {
		tb.Fatalf("lean client: %v", err)
	}
	w.onClose(lc.close)
	return lc
}

// callTool is toolCaller's: arguments as a map, the structured result as
// one; a tool error is an error carrying it.
func (c *leanClient) callTool(tool string, args map[string]any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := c.call(ctx, tool, string(b))
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m, err
}
