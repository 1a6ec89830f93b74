// Package console is the operator's page: the robot at a glance, pending
// previews with approve and deny, an always-working STOP and an e-stop
// reset with a confirmation step. It is served at /console, with its
// assets embedded (no CDN, no external network), and polls a small JSON
// API every second:
//
//	GET  /console/api/state        robot_describe, joints_read, motions in flight and
//	                               recently ended with who confirmed them (motions_list,
//	                               motion_status; events_read catches motions that ran
//	                               between two reads), and the pending previews: a plot per
//	                               joint with the share of each limit used, a map for
//	                               the base (plot.go, basemap.go: SVG built here), the
//	                               request of a service call
//	POST /console/api/approve      {"preview_id"}  motion_confirm as the operator
//	POST /console/api/deny         {"preview_id"}  the preview can never run
//	POST /console/api/stop         {"reason"?}     robot_stop (the STOP button posts to
//	                               /stop, the same handler, ServeStop)
//	POST /console/api/estop_reset  {"event"}       estop_reset of that event
//
// Every read and action runs through the bridge's pipeline, as MCP calls
// do, so audit, locks and validation apply; approve is motion_confirm, so
// an approval is bound to the preview id exactly as any confirm is. Deny
// is recorded in the store (inflight.Store.DenyPreview) and reported to the
// pipeline's observer as "preview_deny".
//
// Who may do what: the state needs the planner or the operator token
// (else 401); approve, deny and reset need the operator token (the
// planner's gets 403 permission_denied). STOP works with either token or
// none: a stop button that asks for credentials is not a stop button, and
// stopping only ever makes the robot safer (the reset needs the operator).
// In the loopback demo (no token configured) a loopback peer that
// addresses the bridge by a loopback name sees the state as the planner
// without a token; the operator still needs the token serve wrote to
// operator.token in its data dir, so no other local process is the
// operator. Actions must be JSON from the page's own origin, so another
// site open in the operator's browser cannot trigger them.
package console
