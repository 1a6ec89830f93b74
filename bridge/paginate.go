package bridge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
)

// Page is the shape of every list result: a stable slice, the total and an
// opaque cursor to the next page (empty at the end).
type Page[T any] struct {
	Items      []T    `json:"items"`
	Total      int    `json:"total"`
	NextCursor string `json:"next_cursor"`
}

// cursor is what an opaque cursor encodes: the sort key of the last item
// returned and a digest of the query so a cursor cannot be replayed against
// another list.
type cursor struct {
	After string `json:"a"`
	Query string `json:"q"`
}

// EncodeCursor makes an opaque cursor.
func EncodeCursor(after, query string) string {
	b, _ := json.Marshal(cursor{After: after, Query: query})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a cursor made for the same query; anything else is
// invalid_argument (layer 2: the cursor rule).
func DecodeCursor(field, c, query string) (string, *Error) {
	if c == "" {
		return "", nil
	}
	bad := func(why string) *Error {
		e := RuleError(CodeInvalidArgument, "cursor_valid", field, "invalid cursor: "+why)
		e.Expected = "a next_cursor returned by the previous page of the same query"
		e.Actual = quote(c)
		e.Hint = "omit the cursor to start from the first page"
		return e
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) > 4096 {
		return "", bad("not a cursor this tool issued")
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil {
		return "", bad("not a cursor this tool issued")
	}
	if cur.Query != query {
		return "", bad("it belongs to a different query")
	}
	return cur.After, nil
}

// Paginate sorts items by key (stable order), then returns the page after
// the cursor's key, at most limit long.
func Paginate[T any](items []T, key func(T) string, cursorStr, query string, limit int) (Page[T], *Error) {
	after, cerr := DecodeCursor("cursor", cursorStr, query)
	if cerr != nil {
		return Page[T]{}, cerr
	}
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	start := 0
	if after != "" {
		start = sort.Search(len(items), func(i int) bool { return key(items[i]) > after })
	}
	if limit <= 0 {
		limit = 50
	}
	end := min(start+limit, len(items))
	p := Page[T]{Items: items[start:end], Total: len(items)}
	if p.Items == nil {
		p.Items = []T{}
	}
	if end < len(items) && end > start {
		p.NextCursor = EncodeCursor(key(items[end-1]), query)
	}
	return p, nil
}

// QueryKey digests the parameters that define a list, for cursor binding.
func QueryKey(parts ...any) string { return fmt.Sprint(parts...) }
