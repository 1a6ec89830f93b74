package safety

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDefaultPolicyGatesOnlyIrreversibleCallsOnTheOperator(t *testing.T) {
	p, err := NewPolicy(PolicyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tier Tier
		want Confirmer
	}{
		{TierRead, ConfirmNone}, {TierWrite, ConfirmNone}, {TierStop, ConfirmNone}, {TierIrreversible, ConfirmOperator},
	} {
		if got, err := p.Confirmer(tc.tier, "arm"); err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.tier, got, err, tc.want)
		}
	}
}

func TestActuatorRulesOverrideTierRules(t *testing.T) {
	var cfg PolicyConfig
	if err := yaml.Unmarshal([]byte("tiers: {irreversible: planner, write: planner}\nactuators: {arm: {irreversible: operator}}\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tier     Tier
		actuator string
		who      Confirmer
		may      bool
	}{
		{TierIrreversible, "gripper", ConfirmPlanner, true},
		{TierIrreversible, "arm", ConfirmPlanner, false},
		{TierIrreversible, "arm", ConfirmOperator, true},
		{TierIrreversible, "gripper", ConfirmOperator, true}, // an operator may confirm what the planner may
		{TierWrite, "base", ConfirmPlanner, true},
		{TierRead, "arm", ConfirmPlanner, true},
		{TierIrreversible, "gripper", ConfirmNone, false},
		{TierIrreversible, "gripper", "robot", false},
		{"dangerous", "arm", ConfirmOperator, false},
	} {
		if got := p.MayConfirm(tc.tier, tc.actuator, tc.who); got != tc.may {
			t.Errorf("MayConfirm(%s, %s, %s) = %v", tc.tier, tc.actuator, tc.who, got)
		}
	}
}

func TestPolicyRefusesToGateStopOrUngateIrreversibleCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  PolicyConfig
	}{
		{"stop gated", PolicyConfig{Tiers: map[Tier]Confirmer{TierStop: ConfirmOperator}}},
		{"stop gated on one actuator", PolicyConfig{Actuators: map[string]map[Tier]Confirmer{"base": {TierStop: ConfirmPlanner}}}},
		{"irreversible ungated", PolicyConfig{Tiers: map[Tier]Confirmer{TierIrreversible: ConfirmNone}}},
		{"irreversible ungated on one actuator", PolicyConfig{Actuators: map[string]map[Tier]Confirmer{"gripper": {TierIrreversible: ConfirmNone}}}},
		{"unknown tier", PolicyConfig{Tiers: map[Tier]Confirmer{"risky": ConfirmPlanner}}},
		{"unknown confirmer", PolicyConfig{Tiers: map[Tier]Confirmer{TierWrite: "boss"}}},
		{"empty actuator", PolicyConfig{Actuators: map[string]map[Tier]Confirmer{"": {TierWrite: ConfirmPlanner}}}},
	} {
		if p, err := NewPolicy(tc.cfg); p != nil || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: got %v, %v", tc.name, p, err)
		}
	}
}
