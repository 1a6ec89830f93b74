#!/usr/bin/python3
"""Drives /move_base with rospy's actionlib.SimpleActionClient.

Usage: move_base_client.py X Y YAW [TIMEOUT_S]
Prints "state=<n> pose=<x>,<y>,<yaw>" and exits 0 when the goal SUCCEEDED (3).
"""
import math
import sys

import actionlib
import rospy
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal
from nav_msgs.msg import Odometry


def main():
    x, y, yaw = (float(a) for a in sys.argv[1:4])
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
    rospy.init_node("move_base_client", anonymous=True, disable_signals=True)
    client = actionlib.SimpleActionClient("move_base", MoveBaseAction)
    if not client.wait_for_server(rospy.Duration(timeout)):
        print("no /move_base server within %.0fs" % timeout)
        return 2
    goal = MoveBaseGoal()
    goal.target_pose.header.frame_id = "odom"
    goal.target_pose.header.stamp = rospy.Time.now()
    goal.target_pose.pose.position.x = x
    goal.target_pose.pose.position.y = y
    goal.target_pose.pose.orientation.z = math.sin(yaw / 2)
    goal.target_pose.pose.orientation.w = math.cos(yaw / 2)
    client.send_goal(goal)
    if not client.wait_for_result(rospy.Duration(timeout)):
        print("no result within %.0fs, state=%d" % (timeout, client.get_state()))
        return 3
    state = client.get_state()
    odom = rospy.wait_for_message("odom", Odometry, timeout=timeout)
    p, q = odom.pose.pose.position, odom.pose.pose.orientation
    got_yaw = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
    print("state=%d pose=%.3f,%.3f,%.3f" % (state, p.x, p.y, got_yaw))
    return 0 if state == 3 else 1


if __name__ == "__main__":
    sys.exit(main())
