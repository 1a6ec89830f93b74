package rosimage

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

func TestRawImagesDecodeInEverySupportedEncodingAndRefuseShortData(t *testing.T) {
	px := func(enc string, step int, data []byte, big bool) Raw {
		return Raw{Width: 2, Height: 1, Encoding: enc, Step: step, Data: data, BigEndian: big}
	}
	cases := []struct {
		m    Raw
		want color.Color
	}{
		{px("rgb8", 6, []byte{10, 20, 30, 0, 0, 0}, false), color.RGBA{10, 20, 30, 255}},
		{px("bgr8", 6, []byte{10, 20, 30, 0, 0, 0}, false), color.RGBA{30, 20, 10, 255}},
		{px("8UC3", 6, []byte{10, 20, 30, 0, 0, 0}, false), color.RGBA{30, 20, 10, 255}},
		{px("rgba8", 8, []byte{10, 20, 30, 40, 0, 0, 0, 0}, false), color.NRGBA{10, 20, 30, 40}},
		{px("bgra8", 8, []byte{10, 20, 30, 40, 0, 0, 0, 0}, false), color.NRGBA{30, 20, 10, 40}},
		{px("mono8", 2, []byte{99, 0}, false), color.Gray{99}},
		{px("8UC1", 2, []byte{99, 0}, false), color.Gray{99}},
		{px("mono16", 4, []byte{0x01, 0x02, 0, 0}, true), color.Gray16{0x0102}},
		{px("16UC1", 4, []byte{0x01, 0x02, 0, 0}, false), color.Gray16{0x0201}},
		{px("rgb8", 8, []byte{1, 2, 3, 9, 9, 9, 0, 0}, false), color.RGBA{1, 2, 3, 255}}, // padded rows
	}
	for _, c := range cases {
		img, err := Decode(c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Encoding, err)
		}
		r1, g1, b1, a1 := img.At(0, 0).RGBA()
		r2, g2, b2, a2 := c.want.RGBA()
		if [4]uint32{r1, g1, b1, a1} != [4]uint32{r2, g2, b2, a2} {
			t.Errorf("%s: pixel %v, want %v", c.m.Encoding, img.At(0, 0), c.want)
		}
	}
	for _, m := range []Raw{
		px("rgb8", 6, []byte{1, 2, 3}, false),                                             // short data
		px("rgb8", 3, make([]byte, 6), false),                                             // step below a row
		px("yuv422", 4, make([]byte, 4), false),                                           // unsupported
		px("32FC1", 8, make([]byte, 7), false),                                            // short depth
		{Width: 100000, Height: 1, Encoding: "mono8"},                                     // absurd size
		{Width: 2, Height: 8192, Step: 1 << 30, Encoding: "mono8", Data: make([]byte, 4)}, // step past the data
	} {
		if _, err := Decode(m); !errors.Is(err, ErrImage) {
			t.Errorf("%s %dx%d step %d: %v, want ErrImage", m.Encoding, m.Width, m.Height, m.Step, err)
		}
	}
	depth, err := Decode(Raw{Width: 2, Height: 1, Encoding: "32FC1", Step: 8, Data: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}})
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
		got, e, err := DecodeCompressed(data.Bytes())
		if err != nil || e != ext || got.Bounds().Dx() != 4 {
			t.Fatalf("%s: %v %s %v", ext, got, e, err)
		}
	}
	for _, bad := range [][]byte{[]byte("GIF89a"), {0xFF, 0xD8, 0}, []byte("\x89PNG\r\n")} {
		if _, _, err := DecodeCompressed(bad); !errors.Is(err, ErrImage) {
			t.Errorf("%q: %v, want ErrImage", bad, err)
		}
	}
}

// FuzzDecode: no raw header or data panics or allocates past MaxSide.
func FuzzDecode(f *testing.F) {
	f.Add(2, 1, 6, "rgb8", false, []byte{1, 2, 3, 4, 5, 6})
	f.Add(2, 1, 8, "32FC1", true, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40})
	f.Add(1, 2, 2, "mono16", false, []byte{1, 2})
	f.Fuzz(func(t *testing.T, w, h, step int, enc string, big bool, data []byte) {
		img, err := Decode(Raw{Width: w, Height: h, Step: step, Encoding: enc, BigEndian: big, Data: data})
		if err == nil && (img.Bounds().Dx() != w || img.Bounds().Dy() != h) {
			t.Fatalf("decoded %v for %dx%d", img.Bounds(), w, h)
		}
	})
}

// FuzzDecodeCompressed: no bytes panic the compressed decoder.
func FuzzDecodeCompressed(f *testing.F) {
	var p bytes.Buffer
	_ = png.Encode(&p, image.NewGray(image.Rect(0, 0, 2, 2)))
	f.Add(p.Bytes())
	f.Add([]byte{0xFF, 0xD8, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = DecodeCompressed(data)
	})
}
