package bench

import (
	"math"
	"testing"
)

func TestParseTopReadsTotalAndRows(t *testing.T) {
	out := []byte(`File: actbridge
Type: inuse_space
Showing nodes accounting for 3.50MB, 100% of 3.50MB total
Showing top 3 nodes out of 57
      flat  flat%   sum%        cum   cum%
    1.50MB 42.86% 42.86%     1.50MB 42.86%  go.etcd.io/bbolt.(*DB).mmap
  512.01kB 14.29% 57.14%   512.01kB 14.29%  bufio.NewReaderSize (inline)
         0     0% 57.14%        1MB 28.57%  main.main
`)
	top, total := parseTop(out)
	if math.Abs(total-3.5) > 1e-9 {
		t.Errorf("total %v MB, want 3.5", total)
	}
	want := []string{"go.etcd.io/bbolt.(*DB).mmap 1.50MB (42.86%)", "bufio.NewReaderSize (inline) 512.01kB (14.29%)", "main.main 0 (0%)"}
	if len(top) != len(want) {
		t.Fatalf("rows %q, want %q", top, want)
	}
	for i := range want {
		if top[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, top[i], want[i])
		}
	}
}
