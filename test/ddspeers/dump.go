package ddspeers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os/exec"

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
