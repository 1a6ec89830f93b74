// Package urdf reads the parts of a URDF robot description that actbridge
// uses: links, joints with their type, parent and child, limits, safety
// controllers, mimic tags, origins and axes, and the links' box, cylinder
// and sphere collision shapes (the workspace check's). It is pure (bytes in, values
// out) and bounded against hostile input; safety takes its limits from it
// and kinematics its chains. Its validity rules follow urdfdom's for what it
// reads, except that a malformed <origin> or <axis> is reported on the joint
// (Joint.GeometryErr), and a malformed collision shape on it
// (Collision.Err), rather than refusing the document, so the limits a
// robot already runs with do not depend on geometry nothing else reads.
package urdf
