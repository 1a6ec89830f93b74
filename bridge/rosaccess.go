package bridge

import (
	"context"
	"errors"
	"image"
	"time"
)

// ErrServiceNotSent is wrapped by CallService errors that happened before
// the request left the bridge (no provider, type mismatch at the handshake).
var ErrServiceNotSent = errors.New("service request not sent")

// ROSAccess is the rest of ROS the guarded tools reach: parameters,
// services, camera frames and topic watches. It is separate from Robot so a
// robot without it still gets the motion tools. Implementations return
// *Error values for refusals they can name (not found, unsupported type,
// unreachable); the tools check every allowlist before calling.
type ROSAccess interface {
	// ParamNames lists every parameter name on the master.
	ParamNames(ctx context.Context) ([]string, error)
	// GetParam reads one parameter as JSON-ready values (bool, int64,
	// float64, string, []any, map[string]any, []byte).
	GetParam(ctx context.Context, name string) (any, error)
	// SetParam stores a bool, int, float64 or string.
	SetParam(ctx context.Context, name string, value any) error

	// Services lists the services the master knows, with their providers.
	Services(ctx context.Context) ([]ServiceInfo, error)
	// ServiceType asks a service's provider for its type (a probe: no
	// request is sent).
	ServiceType(ctx context.Context, name string) (string, error)
	// ServiceTypes are the service types CallService can send.
	ServiceTypes() []ServiceType
	// CallService sends one request, already checked against the type, and
	// waits at most timeout for the response. An error wrapping
	// ErrServiceNotSent means the request never left the bridge.
	CallService(ctx context.Context, name, typ string, request map[string]any, timeout time.Duration) (map[string]any, error)

	// Snapshot waits for one frame of an image topic.
	Snapshot(ctx context.Context, topic string, timeout time.Duration) (Frame, error)
	// WatchTopic calls fn with every message of a topic as JSON-ready values
	// until ctx ends, subscribing again after a master restart.
	WatchTopic(ctx context.Context, topic string, fn func(msg any)) error
}

// ServiceInfo is one service of the ROS graph.
type ServiceInfo struct {
	Name      string   `json:"name"`
	Providers []string `json:"providers,omitempty"`
}

// ServiceType is a service type the bridge can call, with its request and
// response fields (ROS names and scalar ROS types: bool, string, float64,
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

// Frame is one camera frame, decoded.
type Frame struct {
	Topic   string
	Type    string // sensor_msgs/Image or sensor_msgs/CompressedImage
	Source  string // the message's encoding (rgb8, bgr8, mono16, ...) or compressed format
	Image   image.Image
	Raw     []byte // the compressed bytes as received (CompressedImage only)
	RawExt  string // "jpg" or "png" for Raw
	Stamp   time.Time
	FrameID string
}
