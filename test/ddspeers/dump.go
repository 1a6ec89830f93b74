package ddspeers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os/exec"
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// Sample is a value to serialize and the byte order to serialize it in.
type Sample struct {
	Msg    *cdr.Message
	Endian cdr.Endianness
}

// Dump has the peer at path serialize each sample with its vendor's
// generated code, in one run, and returns the bytes, encapsulation header
// first.
func Dump(ctx context.Context, path string, samples []Sample) ([][]byte, error) {
	var in bytes.Buffer
	for _, s := range samples {
		if err := writeSample(&in, s.Msg, s.Endian); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, path, "dump")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ddspeers: %s dump: %w: %s", path, err, stderr.Bytes())
	}
	var res [][]byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		b, err := hex.DecodeString(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("ddspeers: %s dump line %d: %w", path, len(res)+1, err)
		}
		res = append(res, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ddspeers: %s dump: %w", path, err)
	}
	if len(res) != len(samples) {
		return nil, fmt.Errorf("ddspeers: %s dumped %d samples of %d: %s", path, len(res), len(samples), stderr.Bytes())
	}
	return res, nil
}

// CompareEncodings is the byte-exact check, one subtest per vendor
// (CycloneDDS, Fast DDS 2.9, Fast DDS 3 when its root is there): each
// sample, encoded by package cdr, equals what the vendor's generated code
// makes of it, and cdr decodes the vendor's bytes back to the sample.
func CompareEncodings(t *testing.T, p *Peers, samples []Sample) {
	t.Helper()
	for _, vendor := range []struct{ name, bin string }{{"cyclonedds", p.Cyclone}, {"fastdds", p.Fast}, {"fastdds3", p.Fast3(t)}} {
		t.Run(vendor.name, func(t *testing.T) {
			SkipMissing(t, vendor.bin)
			theirs, err := Dump(t.Context(), vendor.bin, samples)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range samples {
				ours, err := cdr.Encode(s.Msg, s.Endian)
				if err != nil {
					t.Fatalf("%s: %v", s.Msg.Type.Name(), err)
				}
				if !bytes.Equal(ours, theirs[i]) {
					t.Errorf("%s endian %d sample %s:\nours   %x\ntheirs %x", s.Msg.Type.Name(), s.Endian, s.Msg.AppendJSON(nil), ours, theirs[i])
					continue
				}
				back, err := cdr.Decode(s.Msg.Type, theirs[i])
				if err != nil {
					t.Errorf("%s: decoding theirs: %v", s.Msg.Type.Name(), err)
				} else if !reflect.DeepEqual(back, s.Msg) {
					t.Errorf("%s: decoded %s, sent %s", s.Msg.Type.Name(), back.AppendJSON(nil), s.Msg.AppendJSON(nil))
				}
			}
		})
	}
}
