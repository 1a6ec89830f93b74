// Package bridgetest runs `actbridge serve` as a child process of a test
// and talks to it as a planner does: it waits, within a bound, for
// /healthz to say ready, connects MCP clients (with a bearer token when
// given) and calls tools, returning their structured results.
//
// The process is stopped by its pid when the test ends; nothing here
// knows which transport the bridge serves.
package bridgetest
