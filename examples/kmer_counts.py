#!/usr/bin/env python3
"""k-mer spectrum features of 'LABEL SEQUENCE' lines, as LIBSVM rows.

For every k in 1..K, the relative frequency of each of the |alphabet|^k words of length k
among the sequence's overlapping k-mers (the spectrum kernel's features, normalised per k so
that sequences of different lengths compare). Indices: the k-mers of length 1 first, then of
length 2, ..., each block in lexicographic order of the alphabet.
"""
import argparse
import itertools
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input", help="'LABEL SEQUENCE' lines")
    parser.add_argument("--k", type=int, default=3, help="longest k-mer (3)")
    parser.add_argument("--alphabet", default="ACGT")
    args = parser.parse_args()
    index = {}
    for k in range(1, args.k + 1):
        for word in itertools.product(args.alphabet, repeat=k):
            index["".join(word)] = len(index) + 1
    with open(args.input) as lines:
        for number, line in enumerate(lines, 1):
            label, sequence = line.split()
            features = {}
            for k in range(1, args.k + 1):
                total = len(sequence) - k + 1
                for i in range(total):
                    word = sequence[i:i + k]
                    if word not in index:
                        sys.exit(f"{args.input}:{number}: symbol outside the alphabet {args.alphabet} in {word!r}")
                    features[index[word]] = features.get(index[word], 0) + 1.0 / total
            print(label, " ".join(f"{i}:{v:.10g}" for i, v in sorted(features.items())))


if __name__ == "__main__":
    main()
