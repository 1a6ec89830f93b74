package safety

import (
	"fmt"
	"slices"
)

// Tier is how much harm a tool call can do.
type Tier string

// Tiers, from the design: read and stop never wait for anyone; write is
// reversible; irreversible moves hardware.
const (
	TierRead         Tier = "read"
	TierWrite        Tier = "write"
	TierIrreversible Tier = "irreversible"
	TierStop         Tier = "stop"
)

// Confirmer is who must confirm a call before it executes.
type Confirmer string

// Confirmers, in increasing authority: an operator may confirm whatever
// the planner may.
const (
	ConfirmNone     Confirmer = "none"
	ConfirmPlanner  Confirmer = "planner"
	ConfirmOperator Confirmer = "operator"
)

func (c Confirmer) rank() int {
	return slices.Index([]Confirmer{ConfirmNone, ConfirmPlanner, ConfirmOperator}, c)
}

// PolicyConfig is the policy as written in the robot config, e.g.
//
//	tiers: {irreversible: planner}
//	actuators: {arm: {irreversible: operator}}
//
// Tiers not mentioned keep their defaults (read, write, stop: none;
// irreversible: operator).
type PolicyConfig struct {
	Tiers     map[Tier]Confirmer            `yaml:"tiers" json:"tiers"`
	Actuators map[string]map[Tier]Confirmer `yaml:"actuators" json:"actuators"`
}

// Policy decides who confirms a call; immutable.
type Policy struct {
	tiers     map[Tier]Confirmer
	actuators map[string]map[Tier]Confirmer
}

// NewPolicy validates cfg: stop can never be gated, and irreversible calls
// always need a confirmation (planner or operator).
func NewPolicy(cfg PolicyConfig) (*Policy, error) {
	p := &Policy{
		tiers: map[Tier]Confirmer{
			TierRead: ConfirmNone, TierWrite: ConfirmNone, TierStop: ConfirmNone, TierIrreversible: ConfirmOperator,
		},
		actuators: map[string]map[Tier]Confirmer{},
	}
	check := func(where string, t Tier, c Confirmer) error {
		_, known := p.tiers[t]
		switch {
		case !known:
			return fmt.Errorf("policy: %s: unknown tier %s: %w", where, quoteName(string(t)), ErrInvalidConfig)
		case c.rank() < 0:
			return fmt.Errorf("policy: %s: unknown confirmer %s for tier %s: %w", where, quoteName(string(c)), t, ErrInvalidConfig)
		case t == TierStop && c != ConfirmNone:
			return fmt.Errorf("policy: %s: stop is never gated: %w", where, ErrInvalidConfig)
		case t == TierIrreversible && c == ConfirmNone:
			return fmt.Errorf("policy: %s: irreversible calls need a confirmer: %w", where, ErrInvalidConfig)
		}
		return nil
	}
	for t, c := range cfg.Tiers {
		if err := check("tiers", t, c); err != nil {
			return nil, err
		}
	}
	for t, c := range cfg.Tiers {
		p.tiers[t] = c
	}
	for a, m := range cfg.Actuators {
		if a == "" {
			return nil, fmt.Errorf("policy: empty actuator name: %w", ErrInvalidConfig)
		}
		rules := make(map[Tier]Confirmer, len(m))
		for t, c := range m {
			if err := check("actuators."+quoteName(a), t, c); err != nil {
				return nil, err
			}
			rules[t] = c
		}
		p.actuators[a] = rules
	}
	return p, nil
}

// Confirmer returns who must confirm a call of tier on actuator ("" for
// none in particular): the actuator's rule if any, else the tier's.
func (p *Policy) Confirmer(tier Tier, actuator string) (Confirmer, error) {
	if p == nil {
		return "", fmt.Errorf("policy: not loaded: %w", ErrInvalidConfig)
	}
	if c, ok := p.actuators[actuator][tier]; ok {
		return c, nil
	}
	c, ok := p.tiers[tier]
	if !ok {
		return "", fmt.Errorf("policy: unknown tier %s: %w", quoteName(string(tier)), ErrInvalidConfig)
	}
	return c, nil
}

// MayConfirm reports whether who may confirm a call of tier on actuator;
// unknown tiers or confirmers may not.
func (p *Policy) MayConfirm(tier Tier, actuator string, who Confirmer) bool {
	need, err := p.Confirmer(tier, actuator)
	return err == nil && who.rank() >= need.rank() && who.rank() > 0
}
