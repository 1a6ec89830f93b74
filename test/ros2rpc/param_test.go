package ros2rpc

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/test/ddspeers"
)

func TestRemoteParametersOfEachVendorsNode(t *testing.T) {
	ns, set, vendors := setup(t)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			domain := 112 + i
			ctx := servicetest.Timeout(t, 60*time.Second)
			srv := ddspeers.StartParamServer(t, ns, v.bin, "controller",
				[]string{"speed=double:0.5", "frame=string:base", "enabled=bool:true", "count=int:3"},
				"--namespace", "/arm", "--read-only", "count", "--domain", strconv.Itoa(domain))
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			c, err := param.NewClient(servicetest.Participant(t, domain), set, "/arm/controller", service.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			defer func() {
				if t.Failed() {
					t.Logf("server stdout:\n%s\nstderr:\n%s", srv.Stdout(), srv.Stderr())
				}
			}()
			names, err := c.List(ctx, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"speed", "frame", "enabled", "count"} {
				if !slices.Contains(names, want) {
					t.Fatalf("list %v lacks %q", names, want)
				}
			}
			vs, err := c.Get(ctx, "speed", "frame", "enabled", "count")
			if want := []any{0.5, "base", true, int64(3)}; err != nil || !reflect.DeepEqual(values(vs), want) {
				t.Fatalf("get %v %v, want %v", values(vs), err, want)
			}
			res, err := c.Set(ctx, param.Parameter{Name: "speed", Value: param.Value{V: 0.75}})
			if err != nil || len(res) != 1 || !res[0].Successful {
				t.Fatalf("set speed: %+v %v", res, err)
			}
			for _, refused := range []param.Parameter{
				{Name: "count", Value: param.Value{V: int64(4)}},      // read only
				{Name: "speed", Value: param.Value{V: "fast"}},        // another type
				{Name: "undeclared", Value: param.Value{V: int64(1)}}, // not declared
			} {
				res, err := c.Set(ctx, refused)
				if err != nil || len(res) != 1 || res[0].Successful || res[0].Reason == "" {
					t.Fatalf("set %s=%v: %+v %v, want refused with a reason", refused.Name, refused.Value.V, res, err)
				}
			}
			if vs, err := c.Get(ctx, "speed"); err != nil || vs[0].V != 0.75 {
				t.Fatalf("speed after set: %v %v", vs, err)
			}
			if _, err := c.Get(ctx, "speed", "undeclared"); !errors.Is(err, param.ErrNotDeclared) {
				t.Fatalf("get of an undeclared name: %v, want ErrNotDeclared", err)
			}
			ds, err := c.Describe(ctx, "speed", "count")
			if err != nil || ds[0].Name != "speed" || ds[0].Type != param.Double || ds[1].Type != param.Integer || !ds[1].ReadOnly || ds[0].ReadOnly {
				t.Fatalf("describe %+v %v", ds, err)
			}
			if line, ok := srv.Malformed(); ok {
				t.Fatalf("server refused our frame: %s", line)
			}
			evs, err := ddspeers.JSONLines[ddspeers.ParamEvent](srv.Stdout()) // the first line, its node, has no event
			if err != nil {
				t.Fatal(err)
			}
			sets := 0
			for _, e := range evs {
				if e.Event == "set" {
					sets++
				}
			}
			if sets != 4 {
				t.Fatalf("server saw %d sets, we made 4, each once", sets)
			}
		})
	}
}

func values(vs []param.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v.V
	}
	return out
}
