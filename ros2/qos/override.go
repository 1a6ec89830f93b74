package qos

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps"
)

// Override is a per-topic QoS change in config form: a base profile and
// any of its fields replaced. Empty fields keep the profile's value.
type Override struct {
	Profile     string `yaml:"profile,omitempty" json:"profile,omitempty"`
	Reliability string `yaml:"reliability,omitempty" json:"reliability,omitempty"` // reliable | best_effort
	Durability  string `yaml:"durability,omitempty" json:"durability,omitempty"`   // volatile | transient_local
	History     string `yaml:"history,omitempty" json:"history,omitempty"`         // keep_last | keep_all
	Depth       int    `yaml:"depth,omitempty" json:"depth,omitempty"`             // keep_last depth, 1..10000
}

// MaxDepth bounds a keep-last depth from config: history is memory.
const MaxDepth = 10000

// Apply returns base changed by o, or an error naming the field, what it
// accepts and what it got.
func (o Override) Apply(base Profile) (Profile, error) {
	p := base
	if o.Profile != "" {
		var err error
		if p, err = ByName(o.Profile); err != nil {
			return Profile{}, fmt.Errorf("profile: %w", err)
		}
	}
	q := p.QoS
	switch o.Reliability {
	case "":
	case "reliable":
		q.Reliability = rtps.Reliable
	case "best_effort":
		q.Reliability = rtps.BestEffort
	default:
		return Profile{}, fmt.Errorf("%w: reliability: expected reliable or best_effort, got %q", ErrInvalidOverride, o.Reliability)
	}
	switch o.Durability {
	case "":
	case "volatile":
		q.Durability = rtps.Volatile
	case "transient_local":
		q.Durability = rtps.TransientLocal
	default:
		return Profile{}, fmt.Errorf("%w: durability: expected volatile or transient_local, got %q", ErrInvalidOverride, o.Durability)
	}
	switch o.History {
	case "":
	case "keep_last":
		q.History = rtps.KeepLast
	case "keep_all":
		q.History = rtps.KeepAll
	default:
		return Profile{}, fmt.Errorf("%w: history: expected keep_last or keep_all, got %q", ErrInvalidOverride, o.History)
	}
	if o.Depth != 0 {
		if o.Depth < 1 || o.Depth > MaxDepth {
			return Profile{}, fmt.Errorf("%w: depth: expected 1..%d, got %d", ErrInvalidOverride, MaxDepth, o.Depth)
		}
		if q.History != rtps.KeepLast {
			return Profile{}, fmt.Errorf("%w: depth: only with history keep_last", ErrInvalidOverride)
		}
		q.Depth = int32(o.Depth)
	}
	p.QoS = q
	return p, nil
}
