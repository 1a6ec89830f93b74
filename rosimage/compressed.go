package rosimage

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
)

// DecodeCompressed decodes a sensor_msgs/CompressedImage's JPEG or PNG
// bytes, told apart by their magic number (the format field is free
// text), after checking the declared size. ext is "jpg" or "png".
func DecodeCompressed(data []byte) (img image.Image, ext string, err error) {
	var decodeConfig func(*bytes.Reader) (image.Config, error)
	var decode func(*bytes.Reader) (image.Image, error)
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		ext = "jpg"
		decodeConfig = func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) }
		decode = func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		ext = "png"
		decodeConfig = func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) }
		decode = func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }
	default:
		return nil, "", fmt.Errorf("%w: compressed image is neither JPEG nor PNG", ErrImage)
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", ErrImage, ext, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSide || cfg.Height > MaxSide {
		return nil, "", fmt.Errorf("%w: compressed image of %dx%d pixels", ErrImage, cfg.Width, cfg.Height)
	}
	if img, err = decode(bytes.NewReader(data)); err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", ErrImage, ext, err)
	}
	return img, ext, nil
}
