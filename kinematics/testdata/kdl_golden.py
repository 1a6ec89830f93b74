#!/usr/bin/python3
"""Writes fk_kdl.json: poses of every link and the tool Jacobian of several
URDF chains at fixed joint vectors, computed by Orocos KDL (Debian's
python3-pykdl), as an independent check of package kinematics.

The URDF is read here with ElementTree, not with the Go parser, and each
URDF joint becomes two KDL segments: a fixed one whose tip is the joint's
<origin> (KDL's Rotation.RPY is URDF's roll-pitch-yaw about fixed axes),
then the joint itself about or along <axis> (KDL normalises it).

Run from this directory:  /usr/bin/python3 kdl_golden.py > fk_kdl.json
"""
import json
import math
import random
import xml.etree.ElementTree as ET

import PyKDL as K

CHAINS = [
    ("twist.urdf", "world", "tool"),
    ("twist.urdf", "base", "slide"),
    ("../../launch/simrobot.urdf", "base_link", "gripper_base_link"),
    ("../../launch/simrobot.urdf", "base_footprint", "gripper_finger_link"),
    ("../../safety/testdata/ab6.urdf", "base_link", "tool0"),
]


def vec(el, attr, default):
    if el is None or el.get(attr) is None:
        return default
    return [float(x) for x in el.get(attr).split()]


def chain_joints(path, base, tool):
    robot = ET.parse(path).getroot()
    by_child = {j.find("child").get("link"): j for j in robot.findall("joint")}
    joints, link = [], tool
    while link != base:
        j = by_child[link]
        joints.append(j)
        link = j.find("parent").get("link")
    return list(reversed(joints))


def build(joints):
    chain = K.Chain()
    movable, bounds, links = [], [], []
    for j in joints:
        o = j.find("origin")
        xyz, rpy = vec(o, "xyz", [0, 0, 0]), vec(o, "rpy", [0, 0, 0])
        chain.addSegment(K.Segment(K.Joint(K.Joint.Fixed), K.Frame(K.Rotation.RPY(*rpy), K.Vector(*xyz))))
        kind = j.get("type")
        if kind == "fixed":
            jt = K.Joint(K.Joint.Fixed)
        else:
            axis = K.Vector(*vec(j.find("axis"), "xyz", [1, 0, 0]))
            t = K.Joint.TransAxis if kind == "prismatic" else K.Joint.RotAxis
            jt = K.Joint(j.get("name"), K.Vector(0, 0, 0), axis, t)
            movable.append(j.get("name"))
            lim = j.find("limit")
            if kind == "continuous":
                bounds.append((-2 * math.pi, 2 * math.pi))
            else:
                bounds.append((float(lim.get("lower")), float(lim.get("upper"))))
        chain.addSegment(K.Segment(jt, K.Frame.Identity()))
        links.append(j.find("child").get("link"))
    return chain, movable, bounds, links


def main():
    rnd = random.Random(36)
    cases = []
    for path, base, tool in CHAINS:
        joints = chain_joints(path, base, tool)
        chain, movable, bounds, links = build(joints)
        n = len(movable)
        vectors = [[0.0] * n, [lo for lo, _ in bounds], [hi for _, hi in bounds]]
        vectors += [[rnd.uniform(lo, hi) for lo, hi in bounds] for _ in range(5)]
        fk = K.ChainFkSolverPos_recursive(chain)
        jac = K.ChainJntToJacSolver(chain)
        for qv in vectors:
            q = K.JntArray(n)
            for i, v in enumerate(qv):
                q[i] = v
            poses = []
            for k in range(len(links)):
                f = K.Frame()
                fk.JntToCart(q, f, 2 * (k + 1))
                poses.append({"p": [f.p[i] for i in range(3)],
                              "r": [f.M[i, j] for i in range(3) for j in range(3)]})
            J = K.Jacobian(n)
            jac.JntToJac(q, J)
            cases.append({
                "urdf": path, "base": base, "tool": tool, "joints": movable,
                "links": [base] + links, "q": qv,
                "poses": poses,
                "jacobian": [[J[r, c] for c in range(n)] for r in range(6)],
            })
    print('{"generator": "kdl_golden.py, PyKDL (Orocos KDL) 1.5.1", "cases": [')
    print(",\n".join(json.dumps(c) for c in cases))
    print("]}")


main()
