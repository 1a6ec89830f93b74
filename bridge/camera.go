package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

func (rt *ROSTools) cameraSnapshot() *Tool {
	return &Tool{
		Name: "camera_snapshot", Group: "camera", Tier: TierRead, Title: "Take a camera snapshot", TouchesRobot: true,
		Description: Describe("Takes the next frame of an allowlisted camera topic (sensor_msgs/Image or CompressedImage) and returns it as MCP image content, scaled down and JPEG- or PNG-encoded to fit max_bytes; the full frame is saved as a file.",
			"you need to see the scene: check where objects are, confirm a grasp, look for obstacles.",
			"numbers a topic already gives (topic_sample); video (one frame per call, rate limited).",
			"none on the robot; a short subscription and a file under the data dir.",
			"the image as image content plus {topic, width, height, image: {format, width, height, bytes, quality}, path, stamp}; the image is at most max_bytes (default 64 KB) encoded, before base64."),
		Input: Object("", map[string]*Schema{
			"topic":     {Type: "string", Description: "Camera topic, e.g. /camera/image_raw.", MinLength: Int(1), MaxLength: Int(256), Pattern: rosNamePattern},
			"max_bytes": Integer(fmt.Sprintf("Largest encoded image in bytes. Default %d.", defaultImageBytes), 4096, 1<<20),
			"max_width": Integer("Widest image in pixels (the frame is scaled down, keeping its aspect). Default 640.", 16, 4096),
			"format":    Enum("Encoding: jpeg (photos) or png (sharp edges, larger). Default jpeg.", "jpeg", "png"),
			"timeout_s": Num("Longest wait for a frame in seconds. Default 3.", 0.1, 10),
		}, "topic"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"topic":     {Type: "string", Description: "The topic."},
			"width":     {Type: "integer", Description: "Width of the full frame."},
			"height":    {Type: "integer", Description: "Height of the full frame."},
			"image":     {Type: "object", Description: "The attached image: format, mime, width, height, bytes, quality."},
			"path":      {Type: "string", Description: "The full frame saved under the data dir."},
			"image_ref": {Type: "string", Description: "Id of the image content attached to this result."},
		}, Required: []string{"topic", "width", "height", "image", "path"}},
		Errors:   []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal, CodePermissionDenied},
		Semantic: topicAllowed(rt.Policy.Topics),
		Call:     rt.snapshot,
	}
}

func (rt *ROSTools) snapshot(ctx context.Context, c *Call) (any, error) {
	var in struct {
		Topic    string  `json:"topic"`
		MaxBytes int     `json:"max_bytes"`
		MaxWidth int     `json:"max_width"`
		Format   string  `json:"format"`
		TimeoutS float64 `json:"timeout_s"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	if in.MaxBytes == 0 {
		in.MaxBytes = defaultImageBytes
	}
	if in.MaxWidth == 0 {
		in.MaxWidth = 640
	}
	if in.TimeoutS == 0 {
		in.TimeoutS = 3
	}
	f, err := rt.ROS.Snapshot(ctx, in.Topic, time.Duration(in.TimeoutS*float64(time.Second)))
	if err != nil {
		return nil, rosUnavailable(accessError(err, "topic"), "reading a frame of "+in.Topic)
	}
	path, serr := rt.saveFrame(f)
	if serr != nil {
		return nil, Errf(CodeInternal, "could not save the frame: %v", serr)
	}
	enc, eerr := EncodeToBudget(f.Image, in.Format, in.MaxWidth, in.MaxBytes)
	if eerr != nil {
		e := RuleError(CodeInvalidArgument, "image_fits_budget", "max_bytes", "the frame does not fit: "+eerr.Error())
		e.Expected = "a larger max_bytes"
		return nil, e
	}
	out := map[string]any{"topic": in.Topic, "type": f.Type, "source_encoding": f.Source,
		"width": f.Image.Bounds().Dx(), "height": f.Image.Bounds().Dy(), "path": path, "frame_id": f.FrameID,
		"image": map[string]any{"format": enc.Format, "mime": enc.MIME, "width": enc.Width, "height": enc.Height, "bytes": len(enc.Data), "quality": enc.Quality},
		"note":  "the image is attached to this result as image content; the full frame is at path"}
	if !f.Stamp.IsZero() {
		out["stamp"] = f.Stamp.UTC().Format(time.RFC3339Nano)
	}
	if rt.Images != nil {
		out["image_ref"] = rt.Images.Put(enc.Data, enc.MIME)
	}
	return out, nil
}

// saveFrame writes the full frame under <data>/snapshots: the bytes as
// received for a compressed image, lossless PNG otherwise. Only the newest
// maxSnapshotFiles are kept.
func (rt *ROSTools) saveFrame(f actuators.Frame) (string, error) {
	dir := filepath.Join(rt.DataDir, "snapshots")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	topic := strings.Trim(strings.ReplaceAll(f.Topic, "/", "_"), "_")
	base := time.Now().UTC().Format("20060102T150405.000Z") + "-" + topic + "-" + hex.EncodeToString(b)
	var path string
	if len(f.Raw) > 0 && f.RawExt != "" {
		path = filepath.Join(dir, base+"."+f.RawExt)
		if err := os.WriteFile(path, f.Raw, 0o640); err != nil {
			return "", err
		}
	} else {
		path = filepath.Join(dir, base+".png")
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o640)
		if err != nil {
			return "", err
		}
		werr := png.Encode(fh, f.Image)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", werr
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > maxSnapshotFiles {
		for _, old := range ents[:len(ents)-maxSnapshotFiles] { // names start with the time
			_ = os.Remove(filepath.Join(dir, old.Name()))
		}
	}
	return path, nil
}
