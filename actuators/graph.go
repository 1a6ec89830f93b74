package actuators

import (
	"image"
	"time"
)

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
// response fields (field names and scalar types: bool, string, float64,
// int32, uint8, ...).
type ServiceType struct {
	Name     string         `json:"type"`
	Request  []ServiceField `json:"request"`
	Response []ServiceField `json:"response"`
}

// ServiceField is one scalar field of a request or response.
type ServiceField struct {
	Name string `json:"name"`
	Type string `json:"type"`
}
