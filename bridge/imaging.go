package bridge

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Encoded is an image encoded for the planner.
type Encoded struct {
	Data    []byte
	MIME    string
	Format  string // jpeg or png
	Width   int
	Height  int
	Quality int // JPEG quality; 0 for PNG
}

// jpegQualities are tried in order before the image is made smaller.
var jpegQualities = []int{85, 70, 55, 40}

// minEncodedSide stops the downscaling: smaller than this, an image shows
// nothing a planner can use.
const minEncodedSide = 16

// EncodeToBudget scales img down to at most maxWidth pixels wide (keeping
// its aspect) and encodes it as format ("jpeg" or "png") in at most
// maxBytes, lowering the JPEG quality and then halving the size until it
// fits. Images are never scaled up.
func EncodeToBudget(img image.Image, format string, maxWidth, maxBytes int) (Encoded, error) {
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 {
		return Encoded{}, fmt.Errorf("empty image")
	}
	w, h := b.Dx(), b.Dy()
	if maxWidth > 0 && w > maxWidth {
		h = max(1, h*maxWidth/w)
		w = maxWidth
	}
	src := toRGBA(img)
	for {
		scaled := src
		if w != b.Dx() || h != b.Dy() {
			scaled = downscale(src, w, h)
		}
		qs := jpegQualities
		if format == "png" {
			qs = []int{0}
		}
		for _, q := range qs {
			var buf bytes.Buffer
			var err error
			if format == "png" {
				err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, scaled)
			} else {
				err = jpeg.Encode(&buf, scaled, &jpeg.Options{Quality: q})
			}
			if err != nil {
				return Encoded{}, err
			}
			if buf.Len() <= maxBytes {
				mime := "image/jpeg"
				if format == "png" {
					mime = "image/png"
				} else {
					format = "jpeg"
				}
				return Encoded{Data: buf.Bytes(), MIME: mime, Format: format, Width: w, Height: h, Quality: q}, nil
			}
		}
		if w/2 < minEncodedSide || h/2 < minEncodedSide {
			return Encoded{}, fmt.Errorf("even a %dx%d %s is over %d bytes", w, h, format, maxBytes)
		}
		w, h = w/2, h/2
	}
}

func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Bounds().Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// downscale averages the source pixels under each target pixel (a box
// filter: no aliasing from skipped rows, unlike nearest neighbour).
func downscale(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var sum [4]int
			for sy := y0; sy < y1; sy++ {
				row := src.Pix[sy*src.Stride:]
				for sx := x0; sx < x1; sx++ {
					p := row[sx*4 : sx*4+4]
					sum[0] += int(p[0])
					sum[1] += int(p[1])
					sum[2] += int(p[2])
					sum[3] += int(p[3])
				}
			}
			n := (y1 - y0) * (x1 - x0)
			d := out.Pix[y*out.Stride+x*4:]
			for i := range 4 {
				d[i] = uint8(sum[i] / n)
			}
		}
	}
	return out
}

// Images hands encoded images from a tool to the MCP front, which attaches
// them to the tool's result as image content: the result JSON carries only
// an image_ref, never pixels. An image not taken within a minute (the call
// went through tools_batch or the console) is dropped.
type Images struct {
	mu    sync.Mutex
	items map[string]storedImage
	order []string
	now   func() time.Time
}

type storedImage struct {
	data []byte
	mime string
	at   time.Time
}

const (
	maxPendingImages = 16
	imageTTL         = time.Minute
)

// NewImages returns an empty hand-over.
func NewImages() *Images { return &Images{items: map[string]storedImage{}, now: time.Now} }

// Put keeps an image and returns its ref.
func (im *Images) Put(data []byte, mime string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	ref := "img-" + hex.EncodeToString(b)
	im.mu.Lock()
	defer im.mu.Unlock()
	now := im.now()
	for len(im.order) > 0 && (len(im.order) >= maxPendingImages || now.Sub(im.items[im.order[0]].at) > imageTTL) {
		delete(im.items, im.order[0])
		im.order = im.order[1:]
	}
	im.items[ref] = storedImage{data: data, mime: mime, at: now}
	im.order = append(im.order, ref)
	return ref
}

// Take returns and forgets an image.
func (im *Images) Take(ref string) ([]byte, string, bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	it, ok := im.items[ref]
	if !ok {
		return nil, "", false
	}
	delete(im.items, ref)
	for i, r := range im.order {
		if r == ref {
			im.order = append(im.order[:i], im.order[i+1:]...)
			break
		}
	}
	return it.data, it.mime, true
}

// AddTo appends to a successful tools/call result whose structured
// content names an image_ref that image, as image content. The Front calls
// it on every result it renders (Front.Images).
func (im *Images) AddTo(ctr *mcp.CallToolResult) {
	if im == nil || ctr == nil || ctr.IsError || ctr.StructuredContent == nil {
		return
	}
	raw, ok := ctr.StructuredContent.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(ctr.StructuredContent)
	}
	if !bytes.Contains(raw, []byte(`"image_ref"`)) {
		return // most results: no need to decode them
	}
	var top struct {
		Ref string `json:"image_ref"`
	}
	if json.Unmarshal(raw, &top) != nil || top.Ref == "" {
		return
	}
	if data, mime, ok := im.Take(top.Ref); ok {
		ctr.Content = append(ctr.Content, &mcp.ImageContent{Data: data, MIMEType: mime})
	}
}
