package sim

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
)

// The camera: a fixed test pattern, raw and JPEG-compressed, that the
// faces publish at CameraHz of wall time, stamped with simulated time.
const (
	CameraFrame  = "camera_optical_frame"
	CameraWidth  = 320
	CameraHeight = 240
	CameraHz     = 5
)

// TestPattern draws the camera's picture: eight colour bars over a grey
// ramp, with a black cross at the centre, so scaling and channel order
// are easy to check in a decoded snapshot.
func TestPattern(w, h int) *image.RGBA {
	bars := []color.RGBA{{255, 255, 255, 255}, {255, 255, 0, 255}, {0, 255, 255, 255}, {0, 255, 0, 255},
		{255, 0, 255, 255}, {255, 0, 0, 255}, {0, 0, 255, 255}, {0, 0, 0, 255}}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := bars[x*len(bars)/w]
			if y >= h*2/3 {
				g := uint8(255 * x / max(w-1, 1))
				c = color.RGBA{g, g, g, 255}
			}
			if (abs(x-w/2) < 2 && abs(y-h/2) < h/8) || (abs(y-h/2) < 2 && abs(x-w/2) < w/8) {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// CameraPictures is the camera's picture as rgb8 rows and as JPEG, encoded
// once by each face.
func CameraPictures() (rgb8, jpg []byte) {
	img := TestPattern(CameraWidth, CameraHeight)
	raw := make([]byte, 0, CameraWidth*CameraHeight*3)
	for i := 0; i < len(img.Pix); i += 4 {
		raw = append(raw, img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	return raw, b.Bytes()
}
