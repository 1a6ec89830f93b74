// Package rosimage decodes the camera messages of ROS 1 and ROS 2 alike:
// sensor_msgs/Image in its common raw encodings, and
// sensor_msgs/CompressedImage holding JPEG or PNG. Every size a message
// declares is checked against its bytes, and against MaxSide, before a
// pixel is read or an image allocated: the bytes come from the network.
package rosimage
