package ros1

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"reflect"
	"strings"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
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

func TestRawImagesDecodeInEverySupportedEncodingAndRefuseShortData(t *testing.T) {
	px := func(enc string, step uint32, data []byte, big uint8) *sensor_msgs.Image {
		return &sensor_msgs.Image{Width: 2, Height: 1, Encoding: enc, Step: step, Data: data, IsBigendian: big}
	}
	cases := []struct {
		m    *sensor_msgs.Image
		want color.Color
	}{
		{px("rgb8", 6, []byte{10, 20, 30, 0, 0, 0}, 0), color.RGBA{10, 20, 30, 255}},
		{px("bgr8", 6, []byte{10, 20, 30, 0, 0, 0}, 0), color.RGBA{30, 20, 10, 255}},
		{px("rgba8", 8, []byte{10, 20, 30, 40, 0, 0, 0, 0}, 0), color.NRGBA{10, 20, 30, 40}},
		{px("mono8", 2, []byte{99, 0}, 0), color.Gray{99}},
		{px("mono16", 4, []byte{0x01, 0x02, 0, 0}, 1), color.Gray16{0x0102}},
		{px("16UC1", 4, []byte{0x01, 0x02, 0, 0}, 0), color.Gray16{0x0201}},
		{px("rgb8", 8, []byte{1, 2, 3, 9, 9, 9, 0, 0}, 0), color.RGBA{1, 2, 3, 255}}, // padded rows
	}
	for _, c := range cases {
		img, err := decodeRaw(c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Encoding, err)
		}
		r1, g1, b1, a1 := img.At(0, 0).RGBA()
		r2, g2, b2, a2 := c.want.RGBA()
		if [4]uint32{r1, g1, b1, a1} != [4]uint32{r2, g2, b2, a2} {
			t.Errorf("%s: pixel %v, want %v", c.m.Encoding, img.At(0, 0), c.want)
		}
	}
	for _, m := range []*sensor_msgs.Image{
		px("rgb8", 6, []byte{1, 2, 3}, 0),             // short data
		px("rgb8", 3, make([]byte, 6), 0),             // step below a row
		px("yuv422", 4, make([]byte, 4), 0),           // unsupported
		{Width: 100000, Height: 1, Encoding: "mono8"}, // absurd size
	} {
		if _, err := decodeRaw(m); err == nil {
			t.Errorf("%+v decoded", m.Encoding)
		}
	}
	depth, err := decodeRaw(&sensor_msgs.Image{Width: 2, Height: 1, Encoding: "32FC1", Step: 8, Data: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}})
	if err != nil || depth.At(0, 0).(color.Gray).Y != 0 || depth.At(1, 0).(color.Gray).Y != 255 {
		t.Fatalf("depth %v %v", depth, err)
	}
}

func TestCompressedImagesDecodeByMagicNumber(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	var j, p bytes.Buffer
	_ = jpeg.Encode(&j, img, nil)
	_ = png.Encode(&p, img)
	for data, ext := range map[*bytes.Buffer]string{&j: "jpg", &p: "png"} {
		got, e, err := decodeCompressed(data.Bytes())
		if err != nil || e != ext || got.Bounds().Dx() != 4 {
			t.Fatalf("%s: %v %s %v", ext, got, e, err)
		}
	}
	if _, _, err := decodeCompressed([]byte("GIF89a")); err == nil {
		t.Fatal("a GIF decoded")
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
