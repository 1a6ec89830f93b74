// Package ros2mission runs the bridge's whole promise over ROS 2 against
// robots the bridge did not write: the scripted FollowJointTrajectory
// servers of CycloneDDS and Fast DDS (test/ddspeers), and `simrobot --ros
// 2`. Previews, confirmation, retries, SIGKILLs at each dispatch stage and
// at random moments, and a goal that ends while the bridge is down: the
// server's own log of goal UUIDs says no goal was ever sent twice.
//
// Every test runs inside a network namespace TestMain made (netns.Main);
// every DDS packet stays in it.
package ros2mission
