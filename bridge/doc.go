// Package bridge is the ROS-agnostic tool layer: tool contracts, the
// registry and discovery, three-layer validation, structured errors, result
// clipping and pagination, resource locks, the call pipeline, previews and
// confirmation, and the MCP front.
package bridge
