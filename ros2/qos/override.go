package qos

import (
	"fmt"
	"strings"

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
	var err error
	if q.Reliability, err = choose("reliability", o.Reliability, q.Reliability, []word[rtps.Reliability]{{"reliable", rtps.Reliable}, {"best_effort", rtps.BestEffort}}); err != nil {
		return Profile{}, err
	}
	if q.Durability, err = choose("durability", o.Durability, q.Durability, []word[rtps.Durability]{{"volatile", rtps.Volatile}, {"transient_local", rtps.TransientLocal}}); err != nil {
		return Profile{}, err
	}
	if q.History, err = choose("history", o.History, q.History, []word[rtps.HistoryKind]{{"keep_last", rtps.KeepLast}, {"keep_all", rtps.KeepAll}}); err != nil {
		return Profile{}, err
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

// word is a config word and the value it names.
type word[T any] struct {
	name  string
	value T
}

// choose is the value word v names among words, or keep when v is empty;
// an unknown word is an error naming field and the words it takes.
func choose[T any](field, v string, keep T, words []word[T]) (T, error) {
	if v == "" {
		return keep, nil
	}
	names := make([]string, len(words))
	for i, w := range words {
		if w.name == v {
			return w.value, nil
		}
		names[i] = w.name
	}
	return keep, fmt.Errorf("%w: %s: expected %s, got %q", ErrInvalidOverride, field, strings.Join(names, " or "), v)
}
