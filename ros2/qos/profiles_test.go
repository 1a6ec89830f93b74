package qos

import (
	"errors"
	"testing"

	"github.com/actbridge/actbridge/rtps"
)

func TestProfilesAreROS2s(t *testing.T) {
	for _, tc := range []struct {
		p     Profile
		rel   rtps.Reliability
		dur   rtps.Durability
		depth int32
	}{
		{Default, rtps.Reliable, rtps.Volatile, 10},
		{SensorData, rtps.BestEffort, rtps.Volatile, 5},
		{Services, rtps.Reliable, rtps.Volatile, 10},
		{ActionStatus, rtps.Reliable, rtps.TransientLocal, 1},
		{ParameterEvents, rtps.Reliable, rtps.Volatile, 1000},
		{Latched, rtps.Reliable, rtps.TransientLocal, 1},
	} {
		q := tc.p.QoS
		if q.Reliability != tc.rel || q.Durability != tc.dur || q.History != rtps.KeepLast || q.Depth != tc.depth {
			t.Errorf("%s = %+v", tc.p.Name, q)
		}
		if got, err := ByName(tc.p.Name); err != nil || got != tc.p {
			t.Errorf("ByName(%q) = %+v, %v", tc.p.Name, got, err)
		}
	}
}

func TestOverrideChangesOnlyWhatItNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Override
		want rtps.QoS
		err  error
	}{
		{"empty keeps base", Override{}, Default.QoS, nil},
		{"best effort", Override{Reliability: "best_effort"}, rtps.QoS{Reliability: rtps.BestEffort, History: rtps.KeepLast, Depth: 10}, nil},
		{"profile then depth", Override{Profile: "sensor_data", Depth: 1}, rtps.QoS{Reliability: rtps.BestEffort, History: rtps.KeepLast, Depth: 1}, nil},
		{"latched", Override{Durability: "transient_local", Depth: 1}, rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: 1}, nil},
		{"keep all", Override{History: "keep_all"}, rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepAll, Depth: 10}, nil},
		{"unknown profile", Override{Profile: "fast"}, rtps.QoS{}, ErrUnknownProfile},
		{"bad reliability", Override{Reliability: "RELIABLE"}, rtps.QoS{}, ErrInvalidOverride},
		{"bad durability", Override{Durability: "transient"}, rtps.QoS{}, ErrInvalidOverride},
		{"bad history", Override{History: "last"}, rtps.QoS{}, ErrInvalidOverride},
		{"depth too big", Override{Depth: MaxDepth + 1}, rtps.QoS{}, ErrInvalidOverride},
		{"negative depth", Override{Depth: -1}, rtps.QoS{}, ErrInvalidOverride},
		{"depth with keep all", Override{History: "keep_all", Depth: 3}, rtps.QoS{}, ErrInvalidOverride},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.o.Apply(Default)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err == nil && got.QoS != tc.want {
				t.Fatalf("QoS = %+v, want %+v", got.QoS, tc.want)
			}
		})
	}
}

// Adapted matches every publisher: best effort when one is, transient
// local only when all are.
func TestAdaptedMatchesEveryPublisher(t *testing.T) {
	rel := rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal}
	be := rtps.QoS{Reliability: rtps.BestEffort, Durability: rtps.Volatile}
	for _, c := range []struct {
		pubs    []rtps.QoS
		rel     rtps.Reliability
		durable bool
	}{
		{nil, rtps.Reliable, false},
		{[]rtps.QoS{rel}, rtps.Reliable, true},
		{[]rtps.QoS{rel, be}, rtps.BestEffort, false},
		{[]rtps.QoS{be}, rtps.BestEffort, false},
	} {
		p := Adapted(c.pubs)
		if p.QoS.Reliability != c.rel || (p.QoS.Durability == rtps.TransientLocal) != c.durable || p.QoS.Depth != Default.QoS.Depth {
			t.Errorf("%+v: got %+v", c.pubs, p.QoS)
		}
	}
}
