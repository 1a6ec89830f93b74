package udp

import (
	"errors"
	"testing"
)

func TestPortsFollowTheSpecFormula(t *testing.T) {
	p := DefaultPorts()
	for _, c := range []struct {
		domain, index           int
		mcast, meta, umc, uucst uint16
	}{
		{0, 0, 7400, 7410, 7401, 7411},
		{0, 1, 7400, 7412, 7401, 7413},
		{1, 0, 7650, 7660, 7651, 7661},
		{42, 3, 17900, 17916, 17901, 17917},
	} {
		got := [4]uint16{}
		var errs [4]error
		got[0], errs[0] = p.MetatrafficMulticast(c.domain)
		got[1], errs[1] = p.MetatrafficUnicast(c.domain, c.index)
		got[2], errs[2] = p.UserMulticast(c.domain)
		got[3], errs[3] = p.UserUnicast(c.domain, c.index)
		if want := [4]uint16{c.mcast, c.meta, c.umc, c.uucst}; got != want || errors.Join(errs[:]...) != nil {
			t.Errorf("domain %d index %d: got %v (%v), want %v", c.domain, c.index, got, errs, want)
		}
	}
}

func TestPortsOutOfRangeAreRefused(t *testing.T) {
	p := DefaultPorts()
	if _, err := p.MetatrafficMulticast(233); !errors.Is(err, ErrPort) {
		t.Errorf("domain 233: %v", err)
	}
	if _, err := p.MetatrafficUnicast(0, -1); !errors.Is(err, ErrPort) {
		t.Errorf("index -1: %v", err)
	}
	if v, err := p.UserUnicast(232, 0); err != nil || v != 65411 {
		t.Errorf("domain 232: %d %v", v, err)
	}
}
