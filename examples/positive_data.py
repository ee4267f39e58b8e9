#!/usr/bin/env python3
"""Real data for the Poisson, exponential and gamma rows of docs/priors-by-evidence.md.

  wine CSV          Debian python3-sklearn's wine_data.csv (UCI wine: 178 wines, 13 chemical
                    measurements, all > 0, 3 cultivars). Rows 1, 3, 5, ... are the training part,
                    rows 2, 4, 6, ... the test part; each wine is one example of one vector (qid
                    rows). Writes train.txt / test.txt (the raw measurements, for the per-wine
                    exponential and gamma fits) and train-standardised.txt / test-standardised.txt
                    (each measurement centred and scaled by the training part's mean and standard
                    deviation, for LIBSVM's RBF baseline).
  shift IN OUT      adds 1 to every value of qid rows (digits' jittered pixel coordinates, in
                    [-0.5, 7.5), become > 0 for the exponential and gamma fits).
  top-words K TRAIN TEST
                    word-count rows (examples/fortunes_documents.py) restricted to the K words most
                    frequent in TRAIN, renumbered 1..K by decreasing frequency; one example per
                    document (qid rows); writes train.txt and test.txt. A document left without a
                    word keeps an empty row (all K counts 0).
"""
import csv
import math
import sys


def wine(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    data = [([float(v) for v in r[:-1]], int(r[-1])) for r in rows]
    train, test = data[0::2], data[1::2]
    dim = len(data[0][0])
    mean = [sum(x[d] for x, _ in train) / len(train) for d in range(dim)]
    sd = [math.sqrt(sum((x[d] - mean[d]) ** 2 for x, _ in train) / (len(train) - 1)) for d in range(dim)]
    for name, part in (("train", train), ("test", test)):
        with open(name + ".txt", "w") as raw, open(name + "-standardised.txt", "w") as scaled:
            for q, (x, label) in enumerate(part, 1):
                raw.write("%d qid:%d %s\n" % (label, q, " ".join("%d:%g" % (d + 1, v) for d, v in enumerate(x))))
                scaled.write("%d %s\n" % (label, " ".join("%d:%.6f" % (d + 1, (v - mean[d]) / sd[d])
                                                          for d, v in enumerate(x))))


def shift(source, target):
    with open(source) as f, open(target, "w") as out:
        for line in f:
            words = line.split()
            out.write(" ".join(words[:2] + ["%s:%.4f" % (w.split(":")[0], float(w.split(":")[1]) + 1)
                                            for w in words[2:]]) + "\n")


def top_words(k, train, test):
    def read(path):
        with open(path) as f:
            return [(line.split()[0], {int(w.split(":")[0]): float(w.split(":")[1]) for w in line.split()[1:]})
                    for line in f]
    parts = {"train": read(train), "test": read(test)}
    totals = {}
    for _, counts in parts["train"]:
        for word, count in counts.items():
            totals[word] = totals.get(word, 0) + count
    kept = sorted(totals, key=lambda w: (-totals[w], w))[:k]
    index = {w: i + 1 for i, w in enumerate(kept)}
    for name, rows in parts.items():
        with open(name + ".txt", "w") as out:
            for q, (label, counts) in enumerate(rows, 1):
                features = sorted((index[w], c) for w, c in counts.items() if w in index)
                out.write("%s qid:%d %s\n" % (label, q, " ".join("%d:%g" % f for f in features)))


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "wine" and len(sys.argv) == 3:
        wine(sys.argv[2])
    elif command == "shift" and len(sys.argv) == 4:
        shift(sys.argv[2], sys.argv[3])
    elif command == "top-words" and len(sys.argv) == 5:
        top_words(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
