package bridge

import (
	"fmt"
	"regexp"
	"strings"
)

// ansiRE matches terminal escape sequences (CSI and OSC) that tools such as
// rostopic print; they waste the planner's context and confuse it.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// CleanText strips ANSI sequences and keeps only the last state of lines
// rewritten with carriage returns (progress bars).
func CleanText(s string) string {
	s = ansiRE.ReplaceAllString(s, "")
	if !strings.Contains(s, "\r") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// Clip cleans s and, when it is longer than max bytes, keeps the head and
// the tail with an explicit "[N chars omitted]" marker between them. It
// reports whether anything was cut. Cuts never split a UTF-8 character.
func Clip(s string, max int) (string, bool) {
	s = CleanText(s)
	if len(s) <= max {
		return s, false
	}
	if max < 64 {
		max = 64
	}
	head := max * 2 / 3
	tail := max - head - 32
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	omitted := len([]rune(s[head:start]))
	return s[:head] + fmt.Sprintf("\n[%d chars omitted]\n", omitted) + s[start:], true
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
