package rosimage_test

import (
	"fmt"

	"github.com/actbridge/actbridge/rosimage"
)

// A 2x1 bgr8 frame, one blue and one red pixel, as a camera driver sends it.
func ExampleDecode() {
	img, err := rosimage.Decode(rosimage.Raw{Width: 2, Height: 1, Step: 6, Encoding: "bgr8",
		Data: []byte{255, 0, 0, 0, 0, 255}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, g, b, _ := img.At(0, 0).RGBA()
	fmt.Println(img.Bounds().Dx(), r>>8, g>>8, b>>8)
	// Output: 2 0 0 255
}
