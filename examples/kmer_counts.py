#!/usr/bin/env python3
"""k-mer spectrum features of 'LABEL SEQUENCE' lines, as LIBSVM rows.

For every k in 1..K, the relative frequency of each of the |alphabet|^k words of length k
among the sequence's overlapping k-mers (the spectrum kernel's features, normalised per k so
that sequences of different lengths compare). Indices: the k-mers of length 1 first, then of
length 2, ..., each block in lexicographic order of the alphabet. With --sqrt every feature is
replaced by its square root (for K = 1: the square-root composition, whose linear kernel is the
Bhattacharyya coefficient between the sequences' symbol frequencies).

A symbol is one byte, as `ppk fit hmm` reads it: the input is read as ISO-8859-1, so each byte is
one character (plain ASCII such as ACGT reads alike). The alphabet is --alphabet or the one line of
--alphabet-from FILE (as written by `ppk fit hmm --save-alphabet` or examples/word_languages.py).
"""
import argparse
import itertools
import math
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="'LABEL SEQUENCE' lines")
    parser.add_argument("--k", type=int, default=3, help="longest k-mer (3)")
    alphabet = parser.add_mutually_exclusive_group()
    alphabet.add_argument("--alphabet", default="ACGT", help="the symbols in index order (ACGT)")
    alphabet.add_argument("--alphabet-from", metavar="FILE", help="read the alphabet from FILE's one line")
    parser.add_argument("--sqrt", action="store_true", help="write the square roots of the frequencies")
    args = parser.parse_args()
    if args.alphabet_from:
        with open(args.alphabet_from, encoding="latin-1") as symbols:
            args.alphabet = symbols.read().strip()
    index = {}
    for k in range(1, args.k + 1):
        for word in itertools.product(args.alphabet, repeat=k):
            index["".join(word)] = len(index) + 1
    with open(args.input, encoding="latin-1") as lines:
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
            if args.sqrt:
                features = {i: math.sqrt(v) for i, v in features.items()}
            print(label, " ".join(f"{i}:{v:.10g}" for i, v in sorted(features.items())))


if __name__ == "__main__":
    main()
