package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

func (rt *ROSTools) servicePatterns() []string {
	var out []string
	for _, r := range rt.Policy.Services {
		out = append(out, r.Pattern)
	}
	return out
}

// actionService reports whether name is one of an action's hidden services
// (ROS 2 puts them under <action>/_action/).
func actionService(name string) bool {
	return strings.Contains(name+"/", "/_action/")
}

func (rt *ROSTools) servicesList() *Tool {
	return &Tool{
		Name: "services_list", Group: "services", Tier: TierRead, Title: "List callable ROS services", TouchesRobot: true, Idempotent: true,
		Description: Describe("Lists the allowlisted ROS services that are running now, with their type, tier and whether the bridge can call that type; sorted by name, paginated.",
			"before service_call, to learn names, types and tiers.",
			"services outside the allowlist (never listed); calling one (service_call).",
			"none; asks the ROS master and probes each listed service for its type (no request to it is sent; over ROS 2 a type outside the distro's set is asked of its node's ~/get_type_description, read-only).",
			"{items: [{name, type, tier, callable, confirmed_by}], total, next_cursor}; at most `limit` (default 20) per page. With the operator's token every service is listed, each with planner_allowed (tier only on allowed ones)."),
		Input: Object("", map[string]*Schema{
			"prefix": {Type: "string", Description: "Only services whose name starts with this. Default all.", MaxLength: Int(256), Pattern: `^/[A-Za-z0-9_/~]*$`},
			"limit":  Integer("Items per page. Default 20.", 1, 100),
			"cursor": Str("next_cursor from the previous page. Default: first page.", 512),
		}),
		Output: pageOut("Services: name, type, tier, callable, confirmed_by (operator: also planner_allowed)."),
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Prefix, Cursor string
				Limit          int
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			all, err := rt.ROS.Services(ctx)
			if err != nil {
				return nil, rosUnavailable(accessError(err, ""), "listing services")
			}
			var sel []actuators.ServiceInfo
			for _, s := range all {
				if _, ok := rt.serviceRule(s.Name); listed(c.Role, ok) && strings.HasPrefix(s.Name, in.Prefix) {
					sel = append(sel, s)
				}
			}
			page, perr := Paginate(sel, func(s actuators.ServiceInfo) string { return s.Name }, in.Cursor, QueryKey("services", in.Prefix, c.Role), in.Limit)
			if perr != nil {
				return nil, perr
			}
			out := Page[map[string]any]{Items: []map[string]any{}, Total: page.Total, NextCursor: page.NextCursor}
			for _, s := range page.Items {
				rule, allowed := rt.serviceRule(s.Name)
				item := markReach(map[string]any{"name": s.Name, "providers": s.Providers}, c.Role, allowed)
				if allowed {
					item["tier"] = string(rule.Tier)
				}
				pctx, cancel := context.WithTimeout(ctx, time.Second)
				typ, terr := rt.ROS.ServiceType(pctx, s.Name)
				cancel()
				item["type"] = typ
				if terr != nil {
					item["note"] = "type probe failed: " + clipRunes(AsError(accessError(terr, "service")).Message, 120)
				}
				if allowed && rule.Tier == TierIrreversible {
					item["confirmed_by"] = string(confirmRole(rule))
				}
				out.Items = append(out.Items, item)
			}
			// The probes may have taught the transport new types. A failed
			// probe left the type empty: not callable.
			cat := rt.services()
			for _, item := range out.Items {
				typ, _ := item["type"].(string)
				_, item["callable"] = cat.exact[typ]
				if why, ok := cat.refused[typ]; ok {
					item["note"] = "not callable: " + clipRunes(why, 200)
				}
			}
			return out, nil
		},
	}
}

func confirmRole(r ServiceRule) Role {
	if r.Confirm == RolePlanner {
		return RolePlanner
	}
	return RoleOperator
}

func serviceOut() *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
		"service":    {Type: "string", Description: "The service."},
		"type":       {Type: "string", Description: "Its type."},
		"tier":       {Type: "string", Description: "read, write or irreversible."},
		"response":   {Description: "The response fields (read and write tiers)."},
		"elapsed_s":  {Type: "number", Description: "How long the call took."},
		"preview_id": {Type: "string", Description: "Irreversible tier: pass to motion_confirm to send exactly this request. Single use."},
		"expires_at": {Type: "string", Description: "Irreversible tier: when the preview expires."},
	}, Required: []string{"service", "type", "tier"}}
}

// services is the catalogue service_call checks requests against, rebuilt
// when the transport lists a type it did not before (a probe taught it);
// service_call's listing is then set to the shape built from it.
func (rt *ROSTools) services() *serviceCatalog {
	types := rt.ROS.ServiceTypes()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cat != nil && rt.cat.covers(types) {
		return rt.cat
	}
	rt.cat = newServiceCatalog(types)
	if rt.listing != nil {
		// Under mu, so the last catalogue built is the one listed. An error
		// keeps the old shape; every call still gets the exact check.
		_ = rt.listing.Set(serviceCallShape(rt.cat))
	}
	return rt.cat
}

// serviceCallListing is service_call's listing, made once from the
// catalogue as it is when the tool is declared.
func (rt *ROSTools) serviceCallListing() *Listing {
	rt.services()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.listing == nil { // the catalogue of now: a type learned since services() is in it
		rt.listing = NewListing(serviceCallShape(rt.cat))
	}
	return rt.listing
}

func serviceCallShape(cat *serviceCatalog) Shape {
	return Shape{Description: serviceCallDescription(cat), Input: serviceCallInput(cat)}
}

func serviceCallDescription(cat *serviceCatalog) string {
	return Describe("Calls an allowlisted ROS service with a request checked against the service's type ("+strings.Join(cat.offered, ", ")+"). The robot config gives each service a tier: read and write services are called at once; an irreversible one returns a preview and is sent only by motion_confirm(preview_id), exactly once. services_list learns the types of the robot's services; this list then grows.",
		"a node offers an action as a service (status query, LED switch, odometry reset, set_parameters) and services_list shows it.",
		"motions (use the motion tools); services outside the allowlist or of other types (refused).",
		"read: none; write: whatever the service changes (reversible by design); irreversible: none until confirmed, then what the service does. A request that timed out may still have run: read state before retrying.",
		"read/write: {service, type, tier, response, elapsed_s}; irreversible: a preview {preview_id, service, type, request, expires_at, confirmed_by} (under 1 KB).")
}

func serviceCallInput(cat *serviceCatalog) *Schema {
	return Object("", map[string]*Schema{
		"service":   {Type: "string", Description: "The service, e.g. /simrobot/status.", MaxLength: Int(256), Pattern: rosNamePattern},
		"request":   cat.request,
		"timeout_s": Num("Longest wait for the response in seconds. Default: the service's timeout in the robot config (5 s if none).", 0.1, 60),
	}, "service")
}

// serviceCall is declared once; its description and input schema are its
// listing's, which grows with the service types the transport learns.
func (rt *ROSTools) serviceCall() *Tool {
	return &Tool{
		Name: ServiceCallTool, Group: "services", Tier: TierIrreversible, Title: "Call a ROS service", TouchesRobot: true,
		Listing: rt.serviceCallListing(),
		Output:  serviceOut(),
		Errors:  []Code{CodeInvalidArgument, CodeNotFound, CodePermissionDenied, CodeEstopLatched, CodeUnavailable, CodeInternal},
		Semantic: func(_ context.Context, c *Call) error {
			name, _ := c.Values["service"].(string)
			if actionService(name) {
				e := RuleError(CodePermissionDenied, "not_action_internal", "service",
					"an action's own services (send_goal, cancel_goal, get_result) are never called directly, whatever access.services allows: a goal sent there would run untracked, unpreviewed and could be sent twice; nothing was sent")
				e.Expected, e.Actual, e.Retryable = "a service outside any /_action/ namespace", name, false
				return e.WithHint("move actuators with their preview tools and motion_confirm; robot_stop and motion_cancel cancel goals")
			}
			if _, ok := rt.serviceRule(name); !ok {
				return notAllowed("service_allowed", "service", "service", name, "access.services", rt.servicePatterns()).
					WithHint("services_list shows the services you may call")
			}
			return nil
		},
		Ready: func(_ context.Context, c *Call) error {
			rule, _ := rt.serviceRule(c.Values["service"].(string))
			if rule.Tier == TierIrreversible && rt.Previewer != nil {
				return rt.Previewer.estopReady(context.Background(), c)
			}
			return nil
		},
		Call: rt.callService,
	}
}

func (rt *ROSTools) callService(ctx context.Context, c *Call) (any, error) {
	var in struct {
		Service  string         `json:"service"`
		Request  map[string]any `json:"request"`
		TimeoutS float64        `json:"timeout_s"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	rule, _ := rt.serviceRule(in.Service)
	timeout := rule.Timeout
	if timeout <= 0 {
		timeout = defaultServiceTimeout
	}
	if in.TimeoutS > 0 {
		timeout = time.Duration(in.TimeoutS * float64(time.Second))
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	typ, err := rt.ROS.ServiceType(pctx, in.Service)
	cancel()
	if err != nil {
		return nil, rosUnavailable(accessError(err, "service"), "asking "+in.Service+" for its type")
	}
	if rule.Type != "" && typ != rule.Type {
		e := RuleError(CodePermissionDenied, "service_type_allowed", "service",
			fmt.Sprintf("%s is of type %s, but the robot config allows it only as %s; nothing was sent", in.Service, typ, rule.Type))
		e.Expected, e.Actual, e.Retryable = rule.Type, typ, false
		return nil, e
	}
	cat := rt.services() // the probe may have taught the transport typ
	exact, ok := cat.exact[typ]
	if !ok {
		why := "which this bridge cannot call"
		if r, refused := cat.refused[typ]; refused {
			why = "which this bridge does not offer: " + clipRunes(r, 200)
		}
		e := RuleError(CodeInvalidArgument, "service_type_supported", "service",
			fmt.Sprintf("%s is of type %s, %s; nothing was sent", in.Service, typ, why))
		e.Expected, e.Actual, e.Retryable = "a service of type "+strings.Join(cat.offered, ", "), typ, false
		return nil, e
	}
	reqVals, _ := c.Values["request"].(map[string]any)
	if reqVals == nil {
		reqVals = map[string]any{}
	}
	exact.DropNullOptionals(reqVals) // a union member's anyOf left them
	if verr := exact.Validate(reqVals); verr != nil {
		if verr.Field == "(arguments)" {
			verr.Field = "request"
		} else {
			verr.Field = "request." + verr.Field
		}
		verr.Message += " (the request does not match " + typ + "); nothing was sent"
		return nil, verr
	}
	req := plainJSON(reqVals).(map[string]any)
	if rule.Tier == TierIrreversible {
		return rt.previewService(ctx, c, in.Service, typ, req, timeout)
	}
	start := time.Now()
	resp, err := rt.ROS.CallService(ctx, in.Service, typ, req, timeout)
	if err != nil {
		if errors.Is(err, actuators.ErrAmbiguousServer) {
			return nil, ambiguousError(in.Service, "request not sent: "+clipRunes(err.Error(), 400))
		}
		if errors.Is(err, actuators.ErrServiceNotSent) {
			return nil, StateError(CodeUnavailable, "request not sent: "+clipRunes(err.Error(), 200), "when the service is provided again", "nothing was sent")
		}
		e := StateError(CodeUnavailable, "no answer from "+in.Service+": "+clipRunes(err.Error(), 200),
			"retry once the service answers", "the request was sent but not answered: it may have run")
		e.Retryable = rule.Tier == TierRead
		return nil, e.WithHint("read the state the service changes before calling it again")
	}
	return map[string]any{"service": in.Service, "type": typ, "tier": string(rule.Tier), "response": resp,
		"elapsed_s": round3(time.Since(start).Seconds())}, nil
}

func (rt *ROSTools) previewService(ctx context.Context, c *Call, name, typ string, req map[string]any, timeout time.Duration) (any, error) {
	if rt.Previewer == nil {
		return nil, StateError(CodeUnavailable, "no preview store", "never", "irreversible services cannot be previewed here")
	}
	g := previewGoal{Start: map[string]float64{}, Service: &serviceGoal{Service: name, Type: typ,
		Definition: definitionNamed(rt.ROS, typ), Request: req, TimeoutS: timeout.Seconds()}}
	return rt.Previewer.issue(ctx, c, ServiceActuator(name), g, map[string]any{
		"service": name, "type": typ, "tier": string(TierIrreversible), "request": req, "duration_s": timeout.Seconds(),
		"warnings": []string{"the bridge cannot undo what this service does"},
		"impact":   map[string]any{"services_called": []string{name}, "actuators_touched": []string{}},
	})
}
