#!/usr/bin/python3
"""Seeded, stratified K-fold splits of a file with one example per line.

The examples of each label (a line's first field) are shuffled by Python's random.Random(--seed),
labels taken in sorted order, and dealt to folds 1..K in turn, so every fold holds about 1/K of
each class. DIR/fold1 .. DIR/foldK each receive test.txt (the fold's lines) and train.txt (all
other lines), both in the input's line order. Lines are copied as bytes: any encoding and any
one-line-per-example format ('LABEL SEQUENCE' lines, LIBSVM rows without qid:) will do.

Usage: cv_folds.py INPUT DIR [--folds 5] [--seed 1]
"""
import argparse
import collections
import os
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="one example per line, the label first")
    parser.add_argument("directory", help="where fold1 .. foldK are written")
    parser.add_argument("--folds", type=int, default=5, help="the number of folds K >= 2 (5)")
    parser.add_argument("--seed", type=int, default=1, help="the shuffling seed (1)")
    args = parser.parse_args()

    with open(args.input, "rb") as data:
        lines = [line for line in data if line.strip()]
    by_label = collections.defaultdict(list)
    for number, line in enumerate(lines):
        by_label[line.split()[0]].append(number)
    if not 2 <= args.folds <= len(lines):
        sys.exit(f"cv_folds: --folds {args.folds}: expected 2 to {len(lines)} (the examples of {args.input})")

    generator = random.Random(args.seed)
    fold_of = {}
    dealt = 0
    for label in sorted(by_label):
        numbers = by_label[label]
        generator.shuffle(numbers)
        for number in numbers:
            fold_of[number] = dealt % args.folds
            dealt += 1
    for fold in range(args.folds):
        directory = os.path.join(args.directory, f"fold{fold + 1}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "train.txt"), "wb") as train, \
                open(os.path.join(directory, "test.txt"), "wb") as test:
            for number, line in enumerate(lines):
                (test if fold_of[number] == fold else train).write(line)


if __name__ == "__main__":
    main()
