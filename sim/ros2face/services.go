package ros2face

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
)

// The sim's own std_srvs/Trigger services, under its node, as the ROS 1
// face's: /<name>/goals answers the goal log as JSON, /<name>/collisions
// the collision log, /<name>/apply_faults
// puts the faults.* parameters in force, /<name>/clear_faults heals the
// robot and resets them.
const typeTrigger = "std_srvs/srv/Trigger"

// services starts the sim node's Trigger services.
func (f *face) services(self *node.Node) error {
	types, err := service.ResolveTypes(f.set, typeTrigger)
	if err != nil {
		return err
	}
	for name, answer := range map[string]func() (string, error){
		"goals": func() (string, error) {
			b, err := json.Marshal(f.r.Goals())
			return string(b), err
		},
		"collisions": func() (string, error) {
			b, err := json.Marshal(f.r.Collisions())
			return string(b), err
		},
		"apply_faults": f.applyFaults,
		"clear_faults": f.clearFaults,
	} {
		full, err := resolve(self, "~/"+name)
		if err != nil {
			return err
		}
		srv, err := service.NewServer(f.ctx.Participant(), types, full, trigger(types, answer), service.Options{Endpoints: self.Announce})
		if err != nil {
			return fmt.Errorf("%s: %w", full, err)
		}
		f.servers = append(f.servers, srv)
	}
	return nil
}

// trigger answers a Trigger request with answer's message; its error
// is success=false with the error's text.
func trigger(types service.Types, answer func() (string, error)) service.Handler {
	return func(context.Context, *cdr.Message) (*cdr.Message, error) {
		msg, err := answer()
		rep := cdr.Zero(types.Response)
		fl := fields{m: rep}
		fl.set("success", err == nil)
		if err != nil {
			msg = err.Error()
		}
		fl.set("message", msg)
		return rep, fl.err
	}
}
