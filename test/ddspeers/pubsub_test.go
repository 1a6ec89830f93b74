package ddspeers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
)

// startPeer starts a peer inside ns and stops it (by its pid) when the
// test ends; stdin is written from the given lines.
func startPeer(t *testing.T, ctx context.Context, ns, bin string, stdin []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := InNetNS(ctx, ns, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(strings.Join(stdin, ""))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, &out, &errb
}

func sampleLine(t *testing.T, m *cdr.Message) string {
	t.Helper()
	b, err := appendTokens(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestPeersCarrySamplesAcrossVendors runs publisher → echo → subscriber
// chains mixing the two vendors inside a test-made namespace: each peer
// mode works, and the two stacks agree on the wire.
func TestPeersCarrySamplesAcrossVendors(t *testing.T) {
	p := Build(t)
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	js, err := reg.Struct("sensor_msgs/msg/JointState")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var sent []*cdr.Message
	var lines []string
	for range 3 {
		m := RandomMessage(js, rng, 7)
		sent = append(sent, m)
		lines = append(lines, sampleLine(t, m))
	}
	for _, tc := range []struct{ name, outer, echo string }{
		{"cyclone via fast", p.Cyclone, p.Fast},
		{"fast via cyclone", p.Fast, p.Cyclone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			ns := NetNS(t)
			qos := []string{"--type", js.Name(), "--transient-local", "--timeout", "30"}
			sub, subOut, subErr := startPeer(t, ctx, ns, tc.outer, nil, append([]string{"sub", "--topic", "rt/out", "--count", "3"}, qos...)...)
			_, _, echoErr := startPeer(t, ctx, ns, tc.echo, nil, append([]string{"echo", "--topic", "rt/in", "--out-topic", "rt/out", "--count", "3", "--linger", "5"}, qos...)...)
			_, _, pubErr := startPeer(t, ctx, ns, tc.outer, lines, append([]string{"pub", "--topic", "rt/in", "--linger", "5"}, qos...)...)
			if err := sub.Wait(); err != nil {
				t.Fatalf("sub: %v\nsub: %s\necho: %s\npub: %s", err, subErr, echoErr, pubErr)
			}
			got := readHexLines(t, subOut.Bytes())
			if len(got) != len(sent) {
				t.Fatalf("received %d samples, sent %d", len(got), len(sent))
			}
			for i, b := range got {
				m, err := cdr.Decode(js, b)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(m, sent[i]) {
					t.Fatalf("sample %d: got %s, sent %s", i, m.AppendJSON(nil), sent[i].AppendJSON(nil))
				}
			}
		})
	}
}

func readHexLines(t *testing.T, out []byte) [][]byte {
	t.Helper()
	var res [][]byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		b, err := hex.DecodeString(sc.Text())
		if err != nil {
			t.Fatal(fmt.Errorf("line %d: %w", len(res)+1, err))
		}
		res = append(res, b)
	}
	return res
}
