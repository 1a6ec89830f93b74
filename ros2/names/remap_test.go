package names

import (
	"errors"
	"testing"
)

func TestParseRuleReadsRosArgsRemaps(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Rule
		err  error
	}{
		{"chatter:=talk", Rule{From: "chatter", To: "talk"}, nil},
		{"talker:chatter:=/talk", Rule{Node: "talker", From: "chatter", To: "/talk"}, nil},
		{"rostopic://~/a:=b", Rule{Kind: RemapTopic, From: "~/a", To: "b"}, nil},
		{"arm:rosservice://get:=/other/get", Rule{Node: "arm", Kind: RemapService, From: "get", To: "/other/get"}, nil},
		{"__node:=other", Rule{Kind: RemapNode, To: "other"}, nil},
		{"__name:=other", Rule{Kind: RemapNode, To: "other"}, nil},
		{"arm:__ns:=/left", Rule{Node: "arm", Kind: RemapNamespace, To: "/left"}, nil},
		{"chatter", Rule{}, ErrInvalidName},
		{"a:=b c", Rule{}, ErrInvalidName},
		{"bad-node:a:=b", Rule{}, ErrInvalidNodeName},
		{"__node:=1x", Rule{}, ErrInvalidNodeName},
		{"__ns:=left", Rule{}, ErrInvalidNamespace},
	} {
		got, err := ParseRule(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestRemapResolveTakesFirstMatchingRuleAsRcl(t *testing.T) {
	var m Remap
	for _, s := range []string{
		"other:cmd_vel:=/wrong",
		"rosservice://cmd_vel:=/wrong_kind",
		"cmd_vel:=/base/cmd_vel",
		"cmd_vel:=/never",
		"/ur5/arm/joint_trajectory:=~/jt",
		"rosservice://~/get_parameters:=/params/get",
		"__node:=renamed",
	} {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		m = append(m, r)
	}
	for _, c := range []struct {
		name    string
		service bool
		want    string
	}{
		{"cmd_vel", false, "/base/cmd_vel"},
		{"/ur5/cmd_vel", false, "/base/cmd_vel"}, // the rule's from expands to /ur5/cmd_vel too
		{"cmd_vel", true, "/wrong_kind"},
		{"~/joint_trajectory", false, "/ur5/arm/jt"},
		{"~/get_parameters", true, "/params/get"},
		{"~/get_parameters", false, "/ur5/arm/get_parameters"},
		{"odom", false, "/ur5/odom"},
	} {
		got, err := m.Resolve(c.name, "arm", "/ur5", c.service)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, service=%v) = %q, %v; want %q", c.name, c.service, got, err, c.want)
		}
	}
	if _, err := m.Resolve("a//b", "arm", "/ur5", false); !errors.Is(err, ErrInvalidName) {
		t.Errorf("invalid name: %v", err)
	}
	if n, ns := m.Node("arm", "/ur5"); n != "renamed" || ns != "/ur5" {
		t.Errorf("Node = %q, %q", n, ns)
	}
	left, _ := ParseRule("arm:__ns:=/left")
	right, _ := ParseRule("__ns:=/right")
	if n, ns := (Remap{left, right}).Node("arm", "/"); n != "arm" || ns != "/left" {
		t.Errorf("Node(arm) = %q, %q", n, ns)
	}
	if n, ns := (Remap{left, right}).Node("gripper", "/"); n != "gripper" || ns != "/right" {
		t.Errorf("Node(gripper) = %q, %q", n, ns)
	}
}
