package graph

import "errors"

// Errors of this package; compare with errors.Is.
var (
	// ErrInfoType means a definition of ParticipantEntitiesInfo lacks the
	// fields rmw_dds_common gives it.
	ErrInfoType = errors.New("graph: not a ParticipantEntitiesInfo type")
	// ErrInfo means a ros_discovery_info sample cannot be read.
	ErrInfo = errors.New("graph: bad ros_discovery_info sample")
)
