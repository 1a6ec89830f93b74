package ros2face

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
)

// The sim's own interface package, actbridge_sim_msgs: types no distro
// set holds, as a robot's vendor package is. A client learns them from
// the sim node's ~/get_type_description (Jazzy and later).
//
//go:embed interfaces
var interfaces embed.FS

// ServiceSetLED is the sim node's service of a type outside the distro
// sets, with a request nesting messages (relative to the node).
const (
	ServiceSetLED = "set_led"
	TypeSetLED    = "actbridge_sim_msgs/srv/SetLed"
	// StatusLED is the one LED SetLed sets.
	StatusLED = "status"
)

// AddInterfaces adds the sim's own interface package, actbridge_sim_msgs,
// to a distro's set: the face's own, or a client's that knows the types
// beforehand (tests).
func AddInterfaces(set *msgs.Set) error {
	sub, err := fs.Sub(interfaces, "interfaces")
	if err != nil {
		return err
	}
	return set.AddFS(sub, "sim/ros2face/interfaces")
}

// led is the sim's status LED: the colours it cycles through.
type led struct {
	mu     sync.Mutex
	colors []*cdr.Message // actbridge_sim_msgs/msg/LedColor
	hz     float32
}

// serveLED starts /<sim>/set_led on the sim's node.
func (f *face) serveLED(self *node.Node) error {
	types, err := service.ResolveTypes(f.set, TypeSetLED)
	if err != nil {
		return err
	}
	full, err := resolve(self, "~/"+ServiceSetLED)
	if err != nil {
		return err
	}
	srv, err := service.NewServer(f.ctx.Participant(), types, full, f.led.handler(types, f.logf), service.Options{Endpoints: self.Announce})
	if err != nil {
		return fmt.Errorf("%s: %w", full, err)
	}
	f.servers = append(f.servers, srv)
	return nil
}

// handler sets the LED and answers what it showed before; another LED
// than "status" or a negative rate is success=false and changes nothing.
func (l *led) handler(types service.Types, logf func(string, ...any)) service.Handler {
	return func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
		rep := cdr.Zero(types.Response)
		fl := fields{m: rep}
		name, _ := req.Get("led").(string)
		colors, _ := req.Get("colors").([]*cdr.Message)
		hz, _ := req.Get("blink_hz").(float32)
		l.mu.Lock()
		defer l.mu.Unlock()
		fl.set("previous", append([]*cdr.Message{}, l.colors...))
		switch {
		case name != StatusLED:
			fl.set("message", fmt.Sprintf("no LED %q (the sim has %q)", name, StatusLED))
		case !(hz >= 0):
			fl.set("message", fmt.Sprintf("blink_hz %g: want 0 or more", hz))
		default:
			l.colors, l.hz = colors, hz
			fl.set("success", true)
			fl.set("message", fmt.Sprintf("%s LED: %d colours at %g Hz", name, len(colors), hz))
			logf("simrobot: %s LED set: %d colours at %g Hz", name, len(colors), hz)
		}
		return rep, fl.err
	}
}
