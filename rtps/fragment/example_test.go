package fragment_test

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps/fragment"
	"github.com/actbridge/actbridge/rtps/wire"
)

// A 3000-octet sample in fragments of 1344 octets (CycloneDDS's default),
// the last arriving first.
func Example() {
	r := fragment.New(fragment.Limits{})
	w := wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x103}
	sample := make([]byte, 3000)
	for _, start := range []uint32{3, 1, 2} {
		off := int(start-1) * 1344
		end := min(off+1344, len(sample))
		out, _ := r.Add(w, &wire.DataFrag{WriterSN: 1, FragmentStart: start, Fragments: 1, FragmentSize: 1344, SampleSize: 3000, Payload: sample[off:end]})
		missing, _ := r.Missing(fragment.Key{Writer: w, SN: 1})
		fmt.Println(len(out.Payload), missing.Members())
	}
	// Output:
	// 0 [1 2]
	// 0 [2]
	// 3000 []
}
