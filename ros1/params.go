package ros1

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros1/roslink"
)

// Bounds of the parameter calls.
const (
	paramTimeout  = 5 * time.Second
	maxParamReply = 8 << 20
	maxParamDepth = 32
)

// ParamNames lists every parameter on the master, sorted.
func (r *Robot) ParamNames(ctx context.Context) ([]string, error) {
	v, err := r.paramCall(ctx, "getParamNames")
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("getParamNames: unexpected answer %T", v)
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, nil
}

// GetParam reads one parameter of any type: bool, int64, float64, string,
// []byte, []any (list) or map[string]any (a namespace or dict).
// goroslib's typed getters cannot read lists or dicts, so this speaks the
// master's XML-RPC itself.
func (r *Robot) GetParam(ctx context.Context, name string) (any, error) {
	return r.paramCall(ctx, "getParam", name)
}

// SetParam stores a bool, int, float64 or string parameter.
func (r *Robot) SetParam(_ context.Context, name string, value any) error {
	n := r.link.Node()
	if n == nil {
		return fmt.Errorf("%w: no ROS node", actuators.ErrNotConnected)
	}
	switch v := value.(type) {
	case bool:
		return roslink.SetParamBool(n, name, v)
	case int:
		return roslink.SetParamInt(n, name, v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s: not a finite number", actuators.ErrInvalidArgument, name)
		}
		return roslink.SetParamFloat64(n, name, v)
	case string:
		return roslink.SetParamString(n, name, v)
	}
	return fmt.Errorf("%w: %s: cannot set a %T", actuators.ErrInvalidArgument, name, value)
}

// paramCall sends one Parameter API call (caller id first, then args) and
// returns the value of a successful answer.
func (r *Robot) paramCall(ctx context.Context, method string, args ...string) (any, error) {
	var body bytes.Buffer
	body.WriteString(`<?xml version="1.0"?><methodCall><methodName>` + method + `</methodName><params>`)
	for _, a := range append([]string{r.bus.name}, args...) {
		body.WriteString("<param><value><string>")
		_ = xml.EscapeText(&body, []byte(a))
		body.WriteString("</string></value></param>")
	}
	body.WriteString("</params></methodCall>")
	ctx, cancel := context.WithTimeout(ctx, paramTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.bus.master+"/RPC2", &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/xml")
	resp, err := r.bus.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", actuators.ErrNotConnected, method, err)
	}
	defer resp.Body.Close()
	reply, err := decodeReply(io.LimitReader(resp.Body, maxParamReply))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	// ROS master answers [code, status message, value]; code 1 is success.
	if len(reply) != 3 {
		return nil, fmt.Errorf("%s: answer has %d parts, want 3", method, len(reply))
	}
	code, _ := reply[0].(int64)
	if code != 1 {
		msg, _ := reply[1].(string)
		if method == "getParam" && code == -1 {
			return nil, fmt.Errorf("%w: %s", actuators.ErrParamNotSet, args[0])
		}
		return nil, fmt.Errorf("%s: master code %d: %s", method, code, msg)
	}
	return reply[2], nil
}

// decodeReply reads a methodResponse whose single param is an array.
func decodeReply(rd io.Reader) ([]any, error) {
	dec := xml.NewDecoder(rd)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("bad XML-RPC answer: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "fault":
			return nil, errors.New("XML-RPC fault")
		case "value":
			v, err := decodeXMLValue(dec, 0)
			if err != nil {
				return nil, err
			}
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("answer is a %T, want an array", v)
			}
			return list, nil
		}
	}
}

// decodeXMLValue reads the content of a <value> element up to its end tag.
func decodeXMLValue(dec *xml.Decoder, depth int) (any, error) {
	if depth > maxParamDepth {
		return nil, errors.New("XML-RPC value nested too deep")
	}
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.EndElement: // </value> with bare text: a string
			return text.String(), nil
		case xml.StartElement:
			v, err := decodeTyped(dec, t.Name.Local, depth)
			if err != nil {
				return nil, err
			}
			if err := skipTo(dec, "value"); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
}

func decodeTyped(dec *xml.Decoder, typ string, depth int) (any, error) {
	switch typ {
	case "array":
		var out []any
		for {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.StartElement:
				if t.Name.Local == "value" {
					v, err := decodeXMLValue(dec, depth+1)
					if err != nil {
						return nil, err
					}
					out = append(out, v)
				}
			case xml.EndElement:
				if t.Name.Local == "array" {
					if out == nil {
						out = []any{}
					}
					return out, nil
				}
			}
		}
	case "struct":
		out := map[string]any{}
		name := ""
		for {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case "name":
					s, err := elementText(dec)
					if err != nil {
						return nil, err
					}
					name = s
				case "value":
					v, err := decodeXMLValue(dec, depth+1)
					if err != nil {
						return nil, err
					}
					out[name] = v
				}
			case xml.EndElement:
				if t.Name.Local == "struct" {
					return out, nil
				}
			}
		}
	}
	raw, err := elementText(dec)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSpace(raw)
	switch typ {
	case "int", "i4", "i8":
		return strconv.ParseInt(s, 10, 64)
	case "double":
		return strconv.ParseFloat(s, 64)
	case "boolean":
		return s == "1" || s == "true", nil
	case "base64":
		return base64.StdEncoding.DecodeString(s)
	case "string":
		return raw, nil
	case "dateTime.iso8601":
		return s, nil
	}
	return nil, fmt.Errorf("XML-RPC type %q not supported", typ)
}

// elementText reads character data up to the current element's end.
func elementText(dec *xml.Decoder) (string, error) {
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("unexpected <%s>", t.Name.Local)
		}
	}
}

func skipTo(dec *xml.Decoder, end string) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if e, ok := tok.(xml.EndElement); ok && e.Name.Local == end {
			return nil
		}
	}
}
