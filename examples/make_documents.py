#!/usr/bin/env python3
"""Synthetic bag-of-words documents for the demo, in LIBSVM format (label index:count).

Two classes of documents over one vocabulary. Every document mixes a shared
Zipf-distributed background with a little of its class's topic (a set of words
of its own) and of a distractor topic drawn at random; document lengths vary
over two orders of magnitude, as web pages do (JMLR 2004, section 8.1 used WebKB).
"""
import argparse
import math
import random


def zipf(n, s=1.1):
    w = [1.0 / (r ** s) for r in range(1, n + 1)]
    total = sum(w)
    return [x / total for x in w]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocabulary", type=int, default=3000)
    ap.add_argument("--topic-words", type=int, default=60)
    ap.add_argument("--train", required=True, help="output file for the training documents")
    ap.add_argument("--test", required=True, help="output file for the test documents")
    ap.add_argument("--n-train", type=int, default=400)
    ap.add_argument("--n-test", type=int, default=600)
    ap.add_argument("--document-seed", type=int,
                    help="draw the documents from this seed (the topics still from --seed): training and "
                         "test sets of one vocabulary and topics drawn apart, e.g. a fixed test set for "
                         "training sets of any size; default: continue --seed's stream")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    V = args.vocabulary
    background = zipf(V)
    rng.shuffle(background)
    words = list(range(V))
    rng.shuffle(words)
    k = args.topic_words
    # topic 0 and 1 are the classes' topics; topics 2..5 are distractors
    topics = [words[i * k:(i + 1) * k] for i in range(6)]
    if args.document_seed is not None:
        rng.seed(args.document_seed)

    def document(label):
        length = int(math.exp(rng.uniform(math.log(15), math.log(1500))))
        own = rng.uniform(0.02, 0.12)
        distractor = rng.uniform(0.0, 0.3)
        other = topics[rng.randrange(2, 6)]
        mine = topics[0 if label > 0 else 1]
        weights = [(1 - own - distractor) * b for b in background]
        for w in mine:
            weights[w] += own / k
        for w in other:
            weights[w] += distractor / k
        counts = {}
        for w in rng.choices(range(V), weights=weights, k=length):
            counts[w] = counts.get(w, 0) + 1
        return "%d %s" % (label, " ".join("%d:%d" % (w + 1, c) for w, c in sorted(counts.items())))

    for path, n in ((args.train, args.n_train), (args.test, args.n_test)):
        with open(path, "w") as f:
            for i in range(n):
                f.write(document(1 if i % 2 == 0 else -1) + "\n")


if __name__ == "__main__":
    main()
