package main

import (
	"fmt"
	"sort"

	"github.com/actbridge/actbridge/allowlist"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

// accessPolicy converts the config's allowlists for the bridge.
func accessPolicy(c *config.Config) bridge.AccessPolicy {
	a := c.Access
	p := bridge.AccessPolicy{Topics: allowlist.Globs(a.Topics), ParamRead: allowlist.Globs(a.Params.Read)}
	for _, r := range a.Params.Set {
		p.ParamSet = append(p.ParamSet, bridge.ParamRule{Pattern: r.Name, Type: r.Type, Min: r.Min, Max: r.Max, MaxLength: r.MaxLength})
	}
	for _, s := range a.Services {
		rule := bridge.ServiceRule{Pattern: s.Name, Tier: bridge.Tier(s.Tier), Type: s.Type, Timeout: s.Timeout.D()}
		if s.Policy == config.PolicyPlanner {
			rule.Confirm = bridge.RolePlanner
		} else if s.Tier == config.TierIrreversible {
			rule.Confirm = bridge.RoleOperator
		}
		p.Services = append(p.Services, rule)
	}
	return p
}

// conditions are the config's event conditions (config.Validate checked
// each watches an allowed topic).
func conditions(c *config.Config) []bridge.Condition {
	var out []bridge.Condition
	for _, e := range c.Access.Events {
		out = append(out, bridge.Condition{Name: e.Name, Topic: e.Topic, Field: e.Field, Above: e.Above, Below: e.Below})
	}
	return out
}

// rateLimits converts the config's limits.
func rateLimits(c *config.Config) bridge.RateLimits {
	rl := bridge.RateLimits{Global: c.RateLimits.Global, Default: c.RateLimits.Default, Tools: map[string]float64{}}
	for n, v := range c.RateLimits.Tools {
		rl.Tools[n] = v
	}
	return rl
}

// limitedToolsExist refuses limits naming tools that do not exist (a typo
// would silently leave a tool unlimited), the first in name order.
func limitedToolsExist(rl bridge.RateLimits, reg *bridge.Registry) error {
	names := make([]string, 0, len(rl.Tools))
	for n := range rl.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := reg.Lookup(n); !ok {
			return fmt.Errorf("%w: rate_limits.tools.%s: no such tool", config.ErrConfig, n)
		}
	}
	return nil
}

func stepCaps(c *config.Config) bridge.StepCaps {
	return bridge.StepCaps{MaxJointChange: c.StepCaps.MaxJointChange, MaxBaseTravel: c.StepCaps.MaxBaseTravel}
}
