// Package service is ROS 2 services over an rtps.Participant, client and
// server, in both rmw dialects: rmw_cyclonedds's 16-octet in-band request
// header and rmw_fastrtps's related sample identity (DDS-RPC's, sent as
// PID 0x0083 and Fast DDS's older 0x800f, read from either).
//
// A client picks the dialect per server, from the vendor of the
// participant owning the server's request reader: CycloneDDS (01.10)
// gets the in-band header, every other vendor, this library's own 01.ab
// included, the sample identity. A server answers each request in the
// dialect of the client's vendor by the same rule. The sample identity is
// the default because it is the standard's (DDS-RPC) and leaves the
// payload as the message alone.
//
// A call goes to one server. While more than one participant serves the
// service, a call naming none sends nothing (ErrAmbiguousServer, naming
// them; ErrMixedDialects too when their dialects differ): two robots on
// one domain without namespaces, or a crashed server whose lease still
// runs next to its restarted successor. A call naming a participant
// (ExchangeWith) writes its request to that server's reader alone (the
// others get a GAP), and only that participant's reply counts; replies
// from any other are ignored and counted (Foreign).
//
// A call sends its request once, after the server is ready: its request
// reader matched and ACKNACKing our writer, its reply writer matched, and
// our announcements acknowledged by its participant. It never resends; a
// failed call says whether the request was delivered, and one given up
// before the server acknowledged it is withdrawn from the writer's
// history, so a link that heals later never delivers it. test/ros2rpc
// proves both dialects against CycloneDDS and Fast DDS nodes.
//
// Names are taken fully expanded ("/ns/svc"); the package knows nothing
// of nodes: Options.Endpoints lets a node list the endpoints made here in
// ros_discovery_info.
package service
