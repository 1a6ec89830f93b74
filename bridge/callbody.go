package bridge

import (
	"bytes"
	"errors"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request body is parsed once for admission and the tool: parseCallBody
// reads a JSON-RPC tools/call with the arguments' decoder (argsParser),
// which gives admission the method, the tool and the arguments' bytes, and
// gives the tool the arguments' values. Admission keeps those values under
// a ticket in the request's headers (parsedCalls), the only thing of a
// request that the MCP SDK hands on to the tool handler (it runs handlers
// in the session's context, not the request's, and takes no parsed
// message: its own parse of the body is its floor). The pipeline then
// decodes nothing again.

// envelopeMax is room for a call's JSON-RPC envelope beside its arguments.
const envelopeMax = 4 << 10

// errNotCall ends a body walk that is not a tools/call as admission reads
// one (parseToolCall would return nil for it).
var errNotCall = errors.New("not a tools/call")

// parseCallBody returns what parseToolCall returns for body, and the
// arguments' values as DecodeArgs would give them (nil when they are not
// an object, or are larger than a tool takes). A body the one pass cannot
// read (a duplicate key or nesting past the bound anywhere, invalid JSON)
// is read by parseToolCall alone, without values, so admission classifies
// every body as it always has. So is a body larger than any tool's
// arguments and their envelope: its values would only be refused.
func parseCallBody(body []byte) (*rpcCall, map[string]any) {
	if len(body) > maxArgBytes+envelopeMax {
		return parseToolCall(body), nil
	}
	c, values, err := walkCallBody(body)
	if err != nil && !errors.Is(err, errNotCall) {
		return parseToolCall(body), nil
	}
	return c, values
}

// walkCallBody reads body as one JSON object whose keys are matched exactly
// and at most once, as parseToolCall matches them.
func walkCallBody(body []byte) (*rpcCall, map[string]any, error) {
	p := argsParser{data: body}
	var c rpcCall
	var values map[string]any
	str := func(depth int, into *string) error { // a string or null, as json.Decoder reads into a string
		v, err := p.value(depth)
		if err != nil {
			return err
		}
		switch s := v.(type) {
		case string:
			*into = s
		case nil:
		default:
			return errNotCall
		}
		return nil
	}
	params := func(k string) error {
		switch k {
		case "name":
			return str(2, &c.Params.Name)
		case "arguments":
			p.skipSpace()
			start := p.pos
			v, err := p.value(2)
			if err != nil {
				return err
			}
			c.Params.Arguments = body[start:p.pos:p.pos]
			if m, ok := v.(map[string]any); ok && len(c.Params.Arguments) <= maxArgBytes {
				values = m
			}
			return nil
		}
		_, err := p.value(2)
		return err
	}
	top := func(k string) error {
		switch k {
		case "method":
			return str(1, &c.Method)
		case "params":
			if ch, err := p.peek(); err != nil || ch != '{' {
				return errNotCall
			}
			return p.fields(1, params)
		}
		_, err := p.value(1)
		return err
	}
	if ch, err := p.peek(); err != nil || ch != '{' {
		return nil, nil, errNotCall
	}
	if err := p.fields(0, top); err != nil {
		return nil, nil, err
	}
	if p.skipSpace(); p.pos < len(body) || c.Method != "tools/call" {
		return nil, nil, errNotCall
	}
	return &c, values, nil
}

// fields reads the object at pos (its '{' already peeked), calling field
// for each key, which must read the value; a repeated key is refused.
func (p *argsParser) fields(depth int, field func(key string) error) error {
	if depth > maxDepth {
		return errTooDeep
	}
	p.pos++ // '{'
	c, err := p.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		p.pos++
		return nil
	}
	var seen []string // a few keys: an envelope or its params
	for {
		if c != '"' {
			return p.invalid(p.pos, "looking for beginning of object key string")
		}
		k, err := p.objectKey()
		if err != nil {
			return err
		}
		for _, s := range seen {
			if s == k {
				return errors.New("duplicate key")
			}
		}
		seen = append(seen, k)
		if c, err = p.peek(); err != nil {
			return err
		}
		if c != ':' {
			return p.invalid(p.pos, "after object key")
		}
		p.pos++
		if err := field(k); err != nil {
			return err
		}
		if c, err = p.peek(); err != nil {
			return err
		}
		switch c {
		case ',':
			p.pos++
			if c, err = p.peek(); err != nil {
				return err
			}
		case '}':
			p.pos++
			return nil
		default:
			return p.invalid(p.pos, "after object key:value pair")
		}
	}
}

// parsedHeader carries, from admission to the tool handler, the ticket of
// the arguments admission decoded. Admission strips any a client sends,
// so only it can set one.
const parsedHeader = "X-Actbridge-Parsed"

// parsedCalls holds the arguments admission decoded, by ticket, until the
// tool handler takes them or the request ends.
type parsedCalls struct {
	*tickets[parsedArgs]
	// taken counts the calls that ran on admission's values (tests and
	// the bench read it).
	taken atomic.Uint64
}

type parsedArgs struct {
	raw    []byte
	values map[string]any
}

func newParsedCalls() *parsedCalls {
	return &parsedCalls{tickets: newTickets[parsedArgs](parsedHeader)}
}

// take returns the values admission decoded for req, once, if the SDK
// handed the tool the very bytes admission decoded them from; nil: the
// pipeline decodes the arguments itself.
func (pc *parsedCalls) take(req *mcp.CallToolRequest) map[string]any {
	if pc == nil || req.Extra == nil || req.Extra.Header == nil {
		return nil
	}
	a, _, ok := pc.claim(req.Extra.Header)
	if !ok || !bytes.Equal(a.raw, req.Params.Arguments) {
		return nil
	}
	pc.taken.Add(1)
	return a.values
}
