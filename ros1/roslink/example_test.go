package roslink_test

import (
	"context"
	"log"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/actbridge/actbridge/ros1/roslink"
)

func ExampleOpen() {
	env, err := roslink.EnvFromOS()
	if err != nil {
		log.Fatal(err)
	}
	link, err := roslink.Open(context.Background(), roslink.Config{Env: env, Name: "talker"},
		func(n *goroslib.Node) (func(), error) {
			pub, err := goroslib.NewPublisher(goroslib.PublisherConf{
				Node: n, Topic: "/chatter", Msg: &std_msgs.String{}, Latch: true,
			})
			if err != nil {
				return nil, err
			}
			pub.Write(&std_msgs.String{Data: "hello"})
			return pub.Close, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	defer link.Close()

	urdf, err := roslink.GetParamString(link.Node(), "/robot_description")
	if err != nil {
		log.Fatal(err)
	}
	_ = urdf
}
