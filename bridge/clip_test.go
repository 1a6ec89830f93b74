package bridge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsHeadAndTailWithMarker(t *testing.T) {
	s := strings.Repeat("a", 500) + strings.Repeat("z", 500)
	out, cut := Clip(s, 200)
	if !cut || !strings.HasPrefix(out, "aaa") || !strings.HasSuffix(out, "zzz") {
		t.Fatalf("cut=%v out=%q", cut, out)
	}
	if !strings.Contains(out, "chars omitted]") || len(out) > 240 {
		t.Fatalf("no marker or too long (%d): %q", len(out), out)
	}
}

func TestClipLeavesShortTextAlone(t *testing.T) {
	if out, cut := Clip("hello", 100); cut || out != "hello" {
		t.Fatalf("%q %v", out, cut)
	}
}

func TestClipStripsANSIAndCarriageReturnProgress(t *testing.T) {
	in := "\x1b[31mred\x1b[0m\nprogress 10%\rprogress 50%\rprogress 100%\ndone"
	out, _ := Clip(in, 1000)
	if out != "red\nprogress 100%\ndone" {
		t.Fatalf("%q", out)
	}
}

func TestClipNeverSplitsUTF8(t *testing.T) {
	s := strings.Repeat("é日本", 300)
	out, cut := Clip(s, 101)
	if !cut || !utf8.ValidString(out) {
		t.Fatalf("invalid utf8 or not cut")
	}
}
