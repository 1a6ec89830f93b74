// Package notice lists what the actbridge binaries carry of other people's
// work and under which licence: the Go modules they link and the ROS
// interface definitions they embed. NOTICE at the repository's root is
// Render's output; TestNOTICEIsCurrent keeps it true, and
// `go test ./notice -update` rewrites it.
package notice
