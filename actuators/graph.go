package actuators

import (
	"fmt"
	"image"
	"time"
)

// Bounds of Graph.SampleTopic, the same on every transport.
const (
	MaxSamples           = 100
	MaxSampleTimeout     = 10 * time.Second
	DefaultSampleTimeout = 2 * time.Second
)

// SampleBounds checks SampleTopic's n (at least 1, at most MaxSamples)
// and timeout (DefaultSampleTimeout when <= 0, at most MaxSampleTimeout).
func SampleBounds(n int, timeout time.Duration) (int, time.Duration, error) {
	if n < 1 {
		return 0, 0, fmt.Errorf("%w: n must be >= 1, got %d", ErrInvalidArgument, n)
	}
	if timeout <= 0 {
		timeout = DefaultSampleTimeout
	}
	return min(n, MaxSamples), min(timeout, MaxSampleTimeout), nil
}

// TopicInfo is one topic of the robot's graph.
type TopicInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Frame is one camera frame, decoded.
type Frame struct {
	Topic   string
	Type    string // the image message type (raw or compressed)
	Source  string // the message's encoding (rgb8, bgr8, mono16, ...) or compressed format
	Image   image.Image
	Raw     []byte // the compressed bytes as received (compressed images only)
	RawExt  string // "jpg" or "png" for Raw
	Stamp   time.Time
	FrameID string
}

// ServiceInfo is one service of the graph.
type ServiceInfo struct {
	Name      string   `json:"name"`
	Providers []string `json:"providers,omitempty"`
}

// ServiceType is a service type a transport can call, with its request and
// response fields (field names and types in ROS form: bool, string,
// float64, int32, uint8, "pkg/msg/X" for a nested message, with "[]",
// "[<=N]" or "[N]" for sequences and arrays).
type ServiceType struct {
	Name     string         `json:"type"`
	Request  []ServiceField `json:"request"`
	Response []ServiceField `json:"response"`
	// Messages defines every message type Request and Response nest, at
	// any depth, by its ROS name ("rcl_interfaces/msg/Parameter"); empty
	// when both are flat.
	Messages map[string][]ServiceField `json:"messages,omitempty"`
}

// ServiceField is one field of a request, a response or a nested message.
type ServiceField struct {
	Name string `json:"name"`
	Type string `json:"type"`
}
