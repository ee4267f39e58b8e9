#!/usr/bin/env python3
"""Synthetic sets of 2-D points for the sets demo, in LIBSVM format.

Each example is a set (a point cloud) of 5 to 20 points, written as consecutive rows
'label qid:N 1:x 2:y' (the SVMlight grouping that `ppk fit` reads). Both classes draw the
cloud's centre from the same N(0, 0.5^2 I), so the set means carry no information; the
classes differ in the cloud's shape: an elongated Gaussian (standard deviations 1.2 and
0.3) whose long axis points at 45 degrees (+1) or -45 degrees (-1), each tilted by a random
N(0, (15 degrees)^2). Writes train.txt and test.txt in the working directory, and
train-means.txt and test-means.txt with each set's mean as one row, for the baseline of an
ordinary kernel on the means.
"""
import argparse
import math
import random


def point_cloud(rng, label):
    centre = (rng.gauss(0, 0.5), rng.gauss(0, 0.5))
    angle = math.radians((45 if label > 0 else -45) + rng.gauss(0, 15))
    c, s = math.cos(angle), math.sin(angle)
    points = []
    for _ in range(rng.randint(5, 20)):
        u, v = rng.gauss(0, 1.2), rng.gauss(0, 0.3)
        points.append((centre[0] + c * u - s * v, centre[1] + s * u + c * v))
    return points


def write_split(rng, count, sets_path, means_path):
    with open(sets_path, "w") as sets, open(means_path, "w") as means:
        for qid in range(1, count + 1):
            label = 1 if qid % 2 else -1
            points = point_cloud(rng, label)
            for x, y in points:
                sets.write(f"{label} qid:{qid} 1:{x:.6f} 2:{y:.6f}\n")
            mx = sum(p[0] for p in points) / len(points)
            my = sum(p[1] for p in points) / len(points)
            means.write(f"{label} 1:{mx:.6f} 2:{my:.6f}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sets", type=int, nargs=2, default=[200, 200], metavar=("TRAIN", "TEST"),
                    help="the number of training and test sets")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for split, count in zip(["train", "test"], args.sets):
        write_split(rng, count, f"{split}.txt", f"{split}-means.txt")


if __name__ == "__main__":
    main()
