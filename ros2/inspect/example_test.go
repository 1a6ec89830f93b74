package inspect_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// robot plays another process on domain: node /arm/controller
// publishing a JointState every 20 ms, serving std_srvs Trigger on
// /arm/controller/home and parameters speed (0.5) and name ("ur5"),
// and node /arm/probe serving no parameters. Cancel ctx, then wait for
// done, to stop it.
func robot(ctx context.Context, domain int) (c *node.Context, done <-chan struct{}, err error) {
	c, err = node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain}})
	if err != nil {
		return nil, nil, err
	}
	n, err := c.NewNode("controller", "/arm")
	if err == nil {
		_, err = c.NewNode("probe", "/arm")
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	set, _ := msgs.Load(msgs.Jazzy)
	trigger, _ := service.ResolveTypes(set, "std_srvs/srv/Trigger")
	o := service.Options{Endpoints: n.Announce}
	_, err = service.NewServer(c.Participant(), trigger, "/arm/controller/home", func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
		rep := cdr.Zero(trigger.Response)
		rep.Set("success", true)
		rep.Set("message", "homed")
		return rep, nil
	}, o)
	if err == nil {
		_, err = param.NewServer(c.Participant(), set, "/arm/controller", []param.Declaration{
			{Name: "speed", Value: param.Value{V: 0.5}}, {Name: "name", Value: param.Value{V: "ur5"}}}, param.ServerOptions{Service: o})
	}
	var pub *node.Publisher
	if err == nil {
		pub, err = n.NewPublisher("joint_states", "sensor_msgs/msg/JointState", qos.Default)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			m := pub.New()
			m.Set("name", []string{"j1"})
			pub.Publish(m)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return c, stopped, nil
}

// open starts the robot and an inspector on domain; stop ends both.
func open(domain int) (in *inspect.Inspector, stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	r, done, err := robot(ctx, domain)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	in, err = inspect.Open(ctx, inspect.Options{Node: node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain}}, Timeout: 10 * time.Second})
	if err != nil {
		cancel()
		<-done
		r.Close()
		return nil, nil, err
	}
	return in, func() { in.Close(); cancel(); <-done; r.Close() }, nil
}

// The topics `ros2 topic list` shows, with each publisher's node.
func ExampleInspector_Topics() {
	in, stop, err := open(70)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	topics, err := in.Topics(context.Background(), inspect.HideHidden)
	for _, t := range topics {
		if len(t.Publishers) > 0 && t.Name == "/arm/joint_states" {
			fmt.Println(t.Name, t.Types, t.Publishers[0].Node)
		}
	}
	fmt.Println(err)
	// Output:
	// /arm/joint_states [sensor_msgs/msg/JointState] /arm/controller
	// <nil>
}

// The nodes of the graph, with their DDS vendor.
func ExampleInspector_Nodes() {
	in, stop, err := open(71)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	nodes, err := in.Nodes(context.Background())
	for _, n := range nodes {
		fmt.Println(n.FullName(), graph.VendorName(n.Vendor))
	}
	fmt.Println(err)
	// Output:
	// /arm/controller Go rtps
	// /arm/probe Go rtps
	// <nil>
}

// Three messages of a topic, decoded with the type its publisher
// announces.
func ExampleInspector_Echo() {
	in, stop, err := open(72)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	err = in.Echo(context.Background(), "/arm/joint_states", inspect.EchoOptions{Count: 3}, func(m *cdr.Message) error {
		fmt.Println(m.Get("name"))
		return nil
	})
	fmt.Println(err)
	// Output:
	// [j1]
	// [j1]
	// [j1]
	// <nil>
}

// One service call, the request as JSON, the type taken from the server.
func ExampleInspector_Call() {
	in, stop, err := open(73)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	rep, err := in.Call(context.Background(), "/arm/controller/home", "", []byte(`{}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(rep.AppendJSON(nil)))
	// Output: {"success":true,"message":"homed"}
}

// The services `ros2 service list` shows: a node's parameter services,
// not hidden, beside its own.
func ExampleInspector_Services() {
	in, stop, err := open(74)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	services, err := in.Services(context.Background(), inspect.HideHidden)
	for _, s := range services {
		fmt.Println(s.Name, s.Types)
	}
	fmt.Println(err)
	// Output:
	// /arm/controller/describe_parameters [rcl_interfaces/srv/DescribeParameters]
	// /arm/controller/get_parameter_types [rcl_interfaces/srv/GetParameterTypes]
	// /arm/controller/get_parameters [rcl_interfaces/srv/GetParameters]
	// /arm/controller/home [std_srvs/srv/Trigger]
	// /arm/controller/list_parameters [rcl_interfaces/srv/ListParameters]
	// /arm/controller/set_parameters [rcl_interfaces/srv/SetParameters]
	// /arm/controller/set_parameters_atomically [rcl_interfaces/srv/SetParametersAtomically]
	// <nil>
}

// A node's parameters and one value; a node without parameter services
// and a parameter the node lacks are errors that say so.
func ExampleInspector_Params() {
	in, stop, err := open(75)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	list, err := in.Params(ctx, "/arm/controller")
	fmt.Println(list, err)
	v, err := in.Param(ctx, "/arm/controller", "speed")
	fmt.Println(v.V, err)
	_, err = in.Param(ctx, "/arm/controller", "nope")
	fmt.Println(errors.Is(err, param.ErrNotDeclared))
	_, err = in.Params(ctx, "/arm/probe")
	fmt.Println(errors.Is(err, inspect.ErrNoParameters))
	// Output:
	// [name speed] <nil>
	// 0.5 <nil>
	// true
	// true
}

// Actions are found by their feedback topic, as ros2 action list finds
// them; the feedback's publisher serves the action.
func ExampleActions() {
	var prefix wire.GUIDPrefix
	prefix[0] = 7
	fb := wire.GUID{Prefix: prefix, Entity: 0x103}
	g := graph.Build([]rtps.ParticipantData{{Prefix: prefix, Vendor: wire.VendorCyclone, UserData: graph.ParticipantUserData("/")}},
		[]rtps.EndpointData{{GUID: fb, Writer: true, Topic: "rt/arm/fjt/_action/feedback",
			Type: "control_msgs::action::dds_::FollowJointTrajectory_FeedbackMessage_", Vendor: wire.VendorCyclone}}, nil)
	for _, a := range inspect.Actions(g) {
		fmt.Println(a.Name, a.Types, len(a.Servers))
	}
	fmt.Println(len(inspect.VisibleTopics(g, inspect.HideHidden)), len(inspect.VisibleTopics(g, inspect.IncludeHidden)))
	// Output:
	// /arm/fjt [control_msgs/action/FollowJointTrajectory] 1
	// 0 1
}
