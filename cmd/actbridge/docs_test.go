package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/actbridge/actbridge/bridge"
)

const repoRoot = "../.."

// pendingCommands are subcommands the docs name that another branch of the
// same issue adds; remove an entry once the command is merged.
var pendingCommands = map[string]string{}

// docPage is one markdown file of the docs, split into prose and code.
type docPage struct {
	path  string // relative to the repository root
	text  string
	prose string     // the text with fenced blocks blanked out
	code  []string   // fenced blocks that hold shell commands
	spans []string   // inline code spans of the prose
	heads []string   // anchors of its headings, as GitHub makes them
	lines [][]string // shell commands, one argument list each
}

var (
	fence      = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	heading    = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

func docPages(t *testing.T) []docPage {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var pages []docPage
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		p := docPage{path: f, text: string(b)}
		p.prose = fence.ReplaceAllStringFunc(p.text, func(m string) string {
			sub := fence.FindStringSubmatch(m)
			if sub[1] == "" || sub[1] == "sh" || sub[1] == "bash" || sub[1] == "shell" {
				p.code = append(p.code, sub[2])
			}
			return strings.Repeat("\n", strings.Count(m, "\n"))
		})
		for _, m := range inlineCode.FindAllStringSubmatch(p.prose, -1) {
			p.spans = append(p.spans, m[1])
		}
		seen := map[string]int{}
		for _, m := range heading.FindAllStringSubmatch(p.prose, -1) {
			a := anchor(m[1])
			if n := seen[a]; n > 0 {
				p.heads = append(p.heads, fmt.Sprintf("%s-%d", a, n))
			} else {
				p.heads = append(p.heads, a)
			}
			seen[a]++
		}
		for _, block := range p.code {
			for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
				p.lines = append(p.lines, shellCommands(line)...)
			}
		}
		for _, s := range p.spans {
			if f := strings.Fields(s); len(f) > 0 && (isActbridge(f[0]) || isSimrobot(f[0]) || f[0] == "make") {
				p.lines = append(p.lines, shellCommands(s)...)
			}
		}
		pages = append(pages, p)
	}
	return pages
}

// anchor is GitHub's id for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shellCommands splits a shell line into commands (at |, &&, ;, &) and
// each into words, dropping comments and leading VAR=value assignments.
func shellCommands(line string) [][]string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return nil
	}
	var out [][]string
	for _, part := range regexp.MustCompile(`\|\||&&|[|;&]`).Split(line, -1) {
		words := strings.Fields(part)
		for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

func isActbridge(w string) bool { return w == "actbridge" || strings.HasSuffix(w, "/actbridge") }

func isSimrobot(w string) bool { return w == "simrobot" || strings.HasSuffix(w, "/simrobot") }

// repoPath maps a word naming a file of this repository (as the docs write
// it: relative, under $PWD, or under the examples' /opt/actbridge) to its
// path, or "" when it names none.
func repoPath(w string) string {
	w = strings.Trim(w, `"',:;()`)
	if _, after, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "--") {
		w = after
	}
	for _, p := range []string{"$PWD/", "/opt/actbridge/", "./"} {
		w = strings.TrimPrefix(w, p)
	}
	if strings.ContainsAny(w, "<>*…$") {
		return ""
	}
	top, _, ok := strings.Cut(w, "/")
	if !ok {
		return ""
	}
	switch top {
	case "launch", "scripts", "docs", "examples", "cmd", "config", "test", "msgs":
		if strings.HasPrefix(w, "test/artifacts") {
			return "" // written by the browser test
		}
		return w
	case "bin":
		return "cmd/" + strings.TrimPrefix(w, "bin/") // bin/X is built from cmd/X
	}
	return ""
}

func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9_-]*):`).FindAllStringSubmatch(string(b), -1) {
		targets[m[1]] = true
	}
	return targets
}

// probe runs an actbridge command line that cannot get past its flag
// parsing (the last flag is unknown) and returns the error.
func probe(args ...string) error {
	return run(context.Background(), append(slices.Clone(args), "--zz-docs-probe"), io.Discard, io.Discard)
}

// TestEveryCommandShownInTheDocsExists checks every command of a shell
// block, and every inline `actbridge …`, `simrobot …` or `make …`, of the
// README and docs/: actbridge's subcommands and flags as its own parser
// takes them, simrobot's flags, make targets in the Makefile, and every
// file of this repository a command names.
func TestEveryCommandShownInTheDocsExists(t *testing.T) {
	targets := makeTargets(t)
	simFlags := simrobotFlags(t)
	for _, p := range docPages(t) {
		for _, words := range p.lines {
			where := fmt.Sprintf("%s: %s", p.path, strings.Join(words, " "))
			switch {
			case isActbridge(words[0]) && len(words) > 1:
				checkActbridge(t, where, words[1:])
			case isSimrobot(words[0]):
				for _, w := range words[1:] {
					name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
					if strings.HasPrefix(w, "-") && name != "h" && name != "help" && !simFlags[name] {
						t.Errorf("%s: simrobot has no flag --%s", where, name)
					}
				}
			case words[0] == "make":
				for _, w := range words[1:] {
					if !strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !targets[w] {
						t.Errorf("%s: the Makefile has no target %q", where, w)
					}
				}
			}
			for _, w := range words {
				if rp := repoPath(w); rp != "" {
					if _, err := os.Stat(filepath.Join(repoRoot, rp)); err != nil {
						t.Errorf("%s: %s does not exist", where, rp)
					}
				}
			}
		}
	}
}

func checkActbridge(t *testing.T, where string, args []string) {
	t.Helper()
	if strings.ContainsAny(strings.Join(args, " "), "…<") {
		return // a placeholder, not a command line
	}
	cmd := args[:1]
	switch args[0] {
	case "version", "--version", "help", "-h", "--help":
		return
	case "tools", "ros2":
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return
		}
		cmd = args[:2]
	}
	if _, ok := pendingCommands[cmd[0]]; ok {
		return
	}
	err := probe(cmd...)
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -zz-docs-probe") {
		t.Errorf("%s: actbridge %s is not a command: %v", where, strings.Join(cmd, " "), err)
		return
	}
	for _, a := range args[len(cmd):] {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name == "" || name == "h" || name == "help" {
			continue
		}
		err := probe(append(slices.Clone(cmd), "--"+name+"=")...)
		// Any error but "not defined: -name" means the parser knows it.
		if err != nil && strings.Contains(err.Error(), "flag provided but not defined: -"+name) {
			t.Errorf("%s: actbridge %s has no flag --%s", where, strings.Join(cmd, " "), name)
		}
	}
}

// TestEveryRelativeLinkInTheDocsResolves checks each markdown link of the
// README and docs/ that is not a URL: its file exists, and its #anchor is
// a heading of that file.
func TestEveryRelativeLinkInTheDocsResolves(t *testing.T) {
	pages := docPages(t)
	heads := map[string][]string{}
	for _, p := range pages {
		heads[p.path] = p.heads
	}
	for _, p := range pages {
		for _, m := range mdLink.FindAllStringSubmatch(p.prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			rel := p.path
			if file != "" {
				rel = filepath.Clean(filepath.Join(filepath.Dir(p.path), file))
				if _, err := os.Stat(filepath.Join(repoRoot, rel)); err != nil {
					t.Errorf("%s: link %s: %s does not exist", p.path, target, rel)
					continue
				}
			}
			if frag != "" && !slices.Contains(heads[rel], frag) {
				t.Errorf("%s: link %s: %s has no heading #%s (it has %v)", p.path, target, rel, frag, heads[rel])
			}
		}
	}
}

// TestTheREADMEIsAFrontDoor: at most 250 lines, opening with the two
// commands a newcomer needs (the demo, the whole suite), and CI running
// exactly that test command.
func TestTheREADMEIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines; the front door holds at most 250, the rest belongs in docs/", n)
	}
	loc := fence.FindStringSubmatchIndex(readme)
	if loc == nil || strings.Count(readme[:loc[0]], "\n") > 5 {
		t.Fatal("README.md does not open with a command block")
	}
	var first []string
	for _, line := range strings.Split(readme[loc[4]:loc[5]], "\n") {
		if c := shellCommands(line); len(c) > 0 {
			first = append(first, strings.Join(c[0], " "))
		}
	}
	if !slices.Contains(first, "make demo") || !slices.Contains(first, "make test") {
		t.Errorf("README.md's first block runs %q, want make demo and make test", first)
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, line := range strings.Split(string(ci), "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			last = l
		}
	}
	if last != "make test" {
		t.Errorf(".ci/run ends with %q, want the README's test command, make test", last)
	}
}

// TestEveryToolIsInTheToolsPageAtItsTier: the catalogue of every shipped
// config against docs/tools.md's table, name, tier and operator-only.
func TestEveryToolIsInTheToolsPageAtItsTier(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs/tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([^|]+?) \\|").FindAllStringSubmatch(string(b), -1) {
		documented[m[1]] = m[2]
	}
	want := map[string]string{}
	for cfg, urdf := range shippedURDF {
		ts, err := offlineTools(filepath.Join(launchDir, "robots", cfg), filepath.Join(launchDir, urdf))
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		for _, tl := range ts.pipeline.Registry.Tools() {
			tier := string(tl.Tier)
			if slices.Equal(tl.Roles, []bridge.Role{bridge.RoleOperator}) {
				tier += " (operator)"
			}
			want[tl.Name] = tier
		}
	}
	for name, tier := range want {
		switch got, ok := documented[name]; {
		case !ok:
			t.Errorf("docs/tools.md does not list %s (%s)", name, tier)
		case got != tier:
			t.Errorf("docs/tools.md lists %s as %s; it is %s", name, got, tier)
		}
	}
	for name := range documented {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/tools.md lists %s, which no shipped config's catalogue has", name)
		}
	}
}

// TestEveryShippedConfigHasARobotPage and every error code a row in the
// troubleshooting page.
func TestEveryShippedConfigHasARobotPageAndEveryErrorCodeAFix(t *testing.T) {
	for _, c := range shippedConfigs {
		page := filepath.Join(repoRoot, "docs/robots", strings.TrimSuffix(c, ".yaml")+".md")
		if _, err := os.Stat(page); err != nil {
			t.Errorf("launch/robots/%s has no page: %v", c, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs/troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range bridge.AllCodes {
		if !strings.Contains(string(b), "\n| `"+string(c)+"` |") {
			t.Errorf("docs/troubleshooting.md has no row for error code %s", c)
		}
	}
}
