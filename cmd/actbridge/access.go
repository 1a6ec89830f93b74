package main

import (
	"fmt"
	"sort"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/ros1"
)

// accessPolicy converts the config's allowlists for the bridge.
func accessPolicy(c *ros1.Config) bridge.AccessPolicy {
	a := c.Access
	p := bridge.AccessPolicy{Topics: bridge.Globs(a.Topics), ParamRead: bridge.Globs(a.Params.Read)}
	for _, r := range a.Params.Set {
		p.ParamSet = append(p.ParamSet, bridge.ParamRule{Pattern: r.Name, Type: r.Type, Min: r.Min, Max: r.Max, MaxLength: r.MaxLength})
	}
	for _, s := range a.Services {
		rule := bridge.ServiceRule{Pattern: s.Name, Tier: bridge.Tier(s.Tier), Type: s.Type, Timeout: s.Timeout.D()}
		if s.Policy == ros1.PolicyPlanner {
			rule.Confirm = bridge.RolePlanner
		} else if s.Tier == ros1.TierIrreversible {
			rule.Confirm = bridge.RoleOperator
		}
		p.Services = append(p.Services, rule)
	}
	return p
}

// conditions are the config's event conditions; each must watch a topic
// the allowlist lets the bridge read.
func conditions(c *ros1.Config) ([]bridge.Condition, error) {
	var out []bridge.Condition
	for i, e := range c.Access.Events {
		if _, ok := bridge.Globs(c.Access.Topics).Match(e.Topic); !ok {
			return nil, fmt.Errorf("%w: access.events[%d].topic: %s is not in access.topics", ros1.ErrConfig, i, e.Topic)
		}
		out = append(out, bridge.Condition{Name: e.Name, Topic: e.Topic, Field: e.Field, Above: e.Above, Below: e.Below})
	}
	return out, nil
}

// rateLimits converts the config's limits, refusing names of tools that do
// not exist (a typo would silently leave a tool unlimited).
func rateLimits(c *ros1.Config, reg *bridge.Registry) (bridge.RateLimits, error) {
	rl := bridge.RateLimits{Global: c.RateLimits.Global, Default: c.RateLimits.Default, Tools: map[string]float64{}}
	names := make([]string, 0, len(c.RateLimits.Tools))
	for n := range c.RateLimits.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := reg.Lookup(n); !ok {
			return rl, fmt.Errorf("%w: rate_limits.tools.%s: no such tool", ros1.ErrConfig, n)
		}
		rl.Tools[n] = c.RateLimits.Tools[n]
	}
	return rl, nil
}

func stepCaps(c *ros1.Config) bridge.StepCaps {
	return bridge.StepCaps{MaxJointChange: c.StepCaps.MaxJointChange, MaxBaseTravel: c.StepCaps.MaxBaseTravel}
}
