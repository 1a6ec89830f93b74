package param

import "errors"

// Errors of this package; compare with errors.Is.
var (
	// ErrValueType means a Go value has no ROS 2 parameter type, or a
	// ParameterValue's type field does not say which field holds it.
	ErrValueType = errors.New("param: not a parameter value")
	// ErrNotDeclared means the node answered a get or describe with
	// nothing: rclcpp does so when one of the names is not declared.
	ErrNotDeclared = errors.New("param: a parameter is not declared")
	// ErrReply means a node's reply does not answer the request (a
	// different count of values than names asked for).
	ErrReply = errors.New("param: reply does not match the request")
	// ErrDeclaration means a Server was given a declaration rclcpp would
	// refuse: no name, a name twice, or a statically typed one unset.
	ErrDeclaration = errors.New("param: invalid declaration")
)
