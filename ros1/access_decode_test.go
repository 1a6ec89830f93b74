package ros1

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/actbridge/actbridge/actuators"
)

func TestXMLRPCValuesDecodeToJSONReadyTypes(t *testing.T) {
	reply := `<?xml version="1.0"?><methodResponse><params><param><value><array><data>
<value><i4>1</i4></value><value><string>ok</string></value>
<value><struct>
  <member><name>gain</name><value><double>0.25</double></value></member>
  <member><name>on</name><value><boolean>1</boolean></value></member>
  <member><name>label</name><value> two words &amp; more </value></member>
  <member><name>list</name><value><array><data><value><int>3</int></value><value><string></string></value></data></array></value></member>
  <member><name>blob</name><value><base64>aGk=</base64></value></member>
  <member><name>inner</name><value><struct><member><name>x</name><value><int>-7</int></value></member></struct></value></member>
</struct></value>
</data></array></value></param></params></methodResponse>`
	got, err := decodeReply(strings.NewReader(reply))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(1), "ok", map[string]any{"gain": 0.25, "on": true, "label": " two words & more ",
		"list": []any{int64(3), ""}, "blob": []byte("hi"), "inner": map[string]any{"x": int64(-7)}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	deep := strings.Repeat("<value><array><data>", 40) + strings.Repeat("</data></array></value>", 40)
	if _, err := decodeReply(strings.NewReader(`<methodResponse><params><param>` + deep + `</param></params></methodResponse>`)); err == nil {
		t.Fatal("a 40-deep value decoded")
	}
}

func TestServiceRegistryHasStdSrvsAndRequestsAreBuiltStrictly(t *testing.T) {
	var names []string
	for _, st := range CallableServiceTypes() {
		names = append(names, st.Name)
	}
	if strings.Join(names, " ") != "std_srvs/Empty std_srvs/SetBool std_srvs/Trigger" {
		t.Fatalf("registry %v", names)
	}
	sb := serviceKinds["std_srvs/SetBool"]
	if !reflect.DeepEqual(sb.info.Request, []actuators.ServiceField{{Name: "data", Type: "bool"}}) || len(sb.info.Response) != 2 {
		t.Fatalf("SetBool fields %+v", sb.info)
	}
	var req std_srvs.SetBoolReq
	if err := fillRequest(reflect.ValueOf(&req).Elem(), map[string]any{"data": true}); err != nil || !req.Data {
		t.Fatalf("%v %+v", err, req)
	}
	for _, in := range []map[string]any{{}, {"data": "yes"}, {"data": true, "extra": 1}} {
		if err := fillRequest(reflect.ValueOf(&req).Elem(), in); err == nil {
			t.Errorf("%v accepted", in)
		}
	}
}
