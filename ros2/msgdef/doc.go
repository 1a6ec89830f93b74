// Package msgdef parses ROS 2 interface definitions (.msg, .srv and
// .action text) and resolves them, nested types included, into run-time
// [cdr.Struct] descriptions.
//
// Parsing follows rosidl's .msg grammar: ROS 2 primitive names, bounded
// strings, fixed arrays, bounded and unbounded sequences, nested types by
// package, constants (parsed, never serialized), default values and
// comments. A message without fields gets rosidl's one-byte dummy field
// "structure_needs_at_least_one_member", as it does on the wire. An action
// brings the types rosidl derives from it ([ActionTypes]: SendGoal,
// GetResult, FeedbackMessage), and [Registry.TypeHash] gives a type's
// RIHS01 hash; [Registry.Describe] gives its type description, and
// [FromDescription] builds and proves the types a description received
// from a node gives.
package msgdef
