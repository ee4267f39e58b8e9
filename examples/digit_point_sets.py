#!/usr/bin/env python3
"""Handwritten digits as sets of 2-D points, for measuring per-set Gaussian fits on real data.

Reads the 1,797 8x8 digit images (UCI optical digits test set) that Debian's python3-sklearn ships
as sklearn/datasets/data/digits.csv.gz: 64 intensities 0..16 and the label per line. Each image
becomes the set of its ink pixels (intensity >= --threshold) as points (column, row) with a
uniform jitter in [-0.5, 0.5) (the pixel's area), qid-grouped LIBSVM rows; with --points K only K
of them, drawn without replacement (few vectors per set, where per-set covariances degenerate).
Writes train.txt / test.txt (the first --train images, the rest), train-pixels.txt /
test-pixels.txt (the 64 intensities / 16, for LIBSVM's RBF baseline on the raw image) and
train-means.txt / test-means.txt (each set's mean).
With --rows, each image is instead the sequence of its 8 pixel rows, 8-D vectors of intensities / 16
(qid-grouped rows in order, for `ppk fit hmm`); the means files then hold each sequence's mean row.
"""
import argparse
import gzip
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("digits", help="path to digits.csv.gz")
    parser.add_argument("--threshold", type=int, default=8)
    parser.add_argument("--points", type=int, default=0, help="keep K points per set (0: all)")
    parser.add_argument("--train", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", action="store_true", help="each image as the sequence of its 8 pixel rows")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with gzip.open(args.digits, "rt") as f:
        images = [[int(float(v)) for v in line.split(",")] for line in f if line.strip()]
    splits = {"train": images[:args.train], "test": images[args.train:]}
    for name, rows in splits.items():
        with open(name + ".txt", "w") as sets, open(name + "-pixels.txt", "w") as pixels, \
                open(name + "-means.txt", "w") as means:
            for qid, row in enumerate(rows, 1):
                label, values = row[64], row[:64]
                if args.rows:
                    for r in range(8):
                        sets.write("%d qid:%d %s\n" % (label, qid, " ".join(
                            "%d:%.4f" % (c + 1, values[8 * r + c] / 16) for c in range(8) if values[8 * r + c])))
                    means.write("%d %s\n" % (label, " ".join(
                        "%d:%.6f" % (c + 1, sum(values[8 * r + c] for r in range(8)) / 128) for c in range(8))))
                    pixels.write("%d %s\n" % (label, " ".join("%d:%.4f" % (k + 1, v / 16)
                                                              for k, v in enumerate(values) if v)))
                    continue
                points = [(k % 8 + rng.random() - 0.5, k // 8 + rng.random() - 0.5)
                          for k, v in enumerate(values) if v >= args.threshold]
                if args.points and len(points) > args.points:
                    points = rng.sample(points, args.points)
                for x, y in points:
                    sets.write("%d qid:%d 1:%.4f 2:%.4f\n" % (label, qid, x, y))
                mx = sum(p[0] for p in points) / len(points)
                my = sum(p[1] for p in points) / len(points)
                means.write("%d 1:%.6f 2:%.6f\n" % (label, mx, my))
                pixels.write("%d %s\n" % (label, " ".join("%d:%.4f" % (k + 1, v / 16)
                                                          for k, v in enumerate(values) if v)))


if __name__ == "__main__":
    main()
