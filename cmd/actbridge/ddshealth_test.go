package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/actbridge/actbridge/rtps"
)

// TestEveryDDSCounterIsExported: each counter of the participant's
// bounds reaches /metrics under a name of its own, with its value.
func TestEveryDDSCounterIsExported(t *testing.T) {
	var s rtps.Stats
	v := reflect.ValueOf(&s).Elem()
	counters := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Uint64 {
			counters++
			f.SetUint(uint64(100 + i))
		}
	}
	s.ReceiveBytes, s.ReceiveBytesPeak = 7, 9
	h := ddsHealth(s)
	if len(h.Refused) != counters || h.ReceiveBytes != 7 || h.ReceiveBytesPeak != 9 {
		t.Fatalf("%d of %d counters exported: %+v", len(h.Refused), counters, h)
	}
	var values []uint64
	for _, n := range h.Refused {
		values = append(values, n)
	}
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.Uint64 && !slices.Contains(values, uint64(100+i)) {
			t.Errorf("rtps.Stats.%s is not exported", v.Type().Field(i).Name)
		}
	}
}
