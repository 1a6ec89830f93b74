package bridge

import (
	"fmt"
	"testing"
)

func TestPaginationWalksToTheEndInStableOrder(t *testing.T) {
	var items []string
	for i := 29; i >= 0; i-- {
		items = append(items, fmt.Sprintf("t%02d", i))
	}
	id := func(s string) string { return s }
	var got []string
	cur := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		p, err := Paginate(append([]string(nil), items...), id, cur, "q", 7)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 30 {
			t.Fatalf("total %d", p.Total)
		}
		got = append(got, p.Items...)
		if p.NextCursor == "" {
			break
		}
		cur = p.NextCursor
	}
	if len(got) != 30 || got[0] != "t00" || got[29] != "t29" {
		t.Fatalf("got %v", got)
	}
}

func TestInvalidCursorsAreInvalidArgument(t *testing.T) {
	id := func(s string) string { return s }
	for _, c := range []string{"garbage!", EncodeCursor("x", "other query"), "e30"} {
		_, err := Paginate([]string{"a"}, id, c, "q", 5)
		if c == "e30" { // "{}": a well-formed cursor for no query
			if err == nil {
				t.Fatalf("cursor for another query accepted")
			}
			continue
		}
		if err == nil || err.Code != CodeInvalidArgument || err.Rule != "cursor_valid" {
			t.Fatalf("cursor %q: %v", c, err)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add("")
	f.Add(EncodeCursor("a", "q"))
	f.Add("!!!!")
	f.Fuzz(func(t *testing.T, c string) {
		after, err := DecodeCursor("cursor", c, "q")
		if err != nil && err.Code != CodeInvalidArgument {
			t.Fatal(err)
		}
		_ = after
	})
}
