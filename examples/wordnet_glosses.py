#!/usr/bin/env python3
"""WordNet's noun glosses as a labelled corpus of short English documents, in LIBSVM count rows.

The corpus ships with Debian 12's wordnet-base package (/usr/share/wordnet/data.noun, WordNet 3.0,
Princeton University): one line per noun synset. A document is the synset's words (underscores
split) and its gloss (the definition and its example sentences), about 15 words; its class is the
synset's lexicographer file (noun.animal, noun.artifact, ...: the field lex_filenum). The CLASSES
largest files are kept (default 20).

Deterministic throughout: the documents are ordered by the SHA-1 of their synset offset (a fixed,
seed-free shuffle); the first TRAIN of them form the training part and the next TEST the test part.
Words are the maximal runs of letters a-z after lower-casing. The vocabulary is every word of the
training part, numbered by falling training frequency (ties alphabetically), so index 1 is the
commonest word; test words outside it are dropped, and a test document left with no word is
skipped (counted on stderr). Rows are 'CLASS index:count ...' with CLASS the lex_filenum.
With --tfidf-train/--tfidf-test it also writes tf-idf rows (tf times log(n / df), df counted on the
training part, each row scaled to unit Euclidean length): the features a user of LIBSVM's own
kernels would try.

Usage: wordnet_glosses.py [--data data.noun] [--classes 20] [--train-size 8000] [--test-size 3000]
                          --train TRAIN --test TEST [--tfidf-train F --tfidf-test F] [--vocabulary F]
"""
import argparse
import collections
import hashlib
import math
import re
import sys

WORD = re.compile(r"[a-z]+")


def read_synsets(path):
    """(offset, lex_filenum, words) per noun synset of a WordNet data file."""
    synsets = []
    with open(path, encoding="latin-1") as data:
        for line in data:
            if line.startswith("  "):  # the licence header
                continue
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            offset, lex_file, word_count = fields[0], int(fields[1]), int(fields[3], 16)
            lemmas = " ".join(fields[4 + 2 * i].replace("_", " ") for i in range(word_count))
            synsets.append((offset, lex_file, WORD.findall((lemmas + " " + gloss).lower())))
    return synsets


def write_corpus(train, rest, args):
    """Writes a split corpus in the formats described above; returns (test, skipped, vocabulary).

    train and rest are lists of documents (key, label, words) in their final order; the test part
    is the first args.test_size documents of rest that keep a vocabulary word. args has the fields
    test_size, train, test, tfidf_train, tfidf_test and vocabulary of the options above (shared by
    examples/fortunes_documents.py).
    """
    frequency = collections.Counter(word for _, _, words in train for word in words)
    vocabulary = sorted(frequency, key=lambda word: (-frequency[word], word))
    index = {word: i + 1 for i, word in enumerate(vocabulary)}
    document_frequency = collections.Counter(word for _, _, words in train for word in set(words))

    def counts(words):
        return sorted(collections.Counter(index[w] for w in words if w in index).items())

    test, skipped = [], 0
    for document in rest:
        if len(test) == args.test_size:
            break
        if counts(document[2]):
            test.append(document)
        else:
            skipped += 1

    def write(path, part, tfidf):
        with open(path, "w") as out:
            for _, label, words in part:
                row = counts(words)
                if tfidf:
                    weights = [(i, c * math.log(len(train) / document_frequency[vocabulary[i - 1]])) for i, c in row]
                    norm = math.sqrt(sum(w * w for _, w in weights)) or 1.0
                    fields = " ".join(f"{i}:{w / norm:.6g}" for i, w in weights if w > 0)
                else:
                    fields = " ".join(f"{i}:{c}" for i, c in row)
                out.write(f"{label} {fields}\n")

    write(args.train, train, False)
    write(args.test, test, False)
    if args.tfidf_train:
        write(args.tfidf_train, train, True)
    if args.tfidf_test:
        write(args.tfidf_test, test, True)
    if args.vocabulary:
        with open(args.vocabulary, "w") as out:
            out.write("\n".join(vocabulary) + "\n")
    return test, skipped, vocabulary


def add_split_arguments(parser, train_size, test_size):
    """The options of write_corpus: the parts' sizes and the files written."""
    parser.add_argument("--train-size", type=int, default=train_size)
    parser.add_argument("--test-size", type=int, default=test_size)
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--tfidf-train")
    parser.add_argument("--tfidf-test")
    parser.add_argument("--vocabulary", help="write the vocabulary, one word a line, in index order")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="/usr/share/wordnet/data.noun")
    parser.add_argument("--classes", type=int, default=20)
    add_split_arguments(parser, train_size=8000, test_size=3000)
    args = parser.parse_args()

    synsets = read_synsets(args.data)
    sizes = collections.Counter(lex_file for _, lex_file, _ in synsets)
    kept = {lex_file for lex_file, _ in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))[: args.classes]}
    documents = [s for s in synsets if s[1] in kept]
    documents.sort(key=lambda s: hashlib.sha1(s[0].encode()).hexdigest())
    train = documents[: args.train_size]
    rest = documents[args.train_size :]

    test, skipped, vocabulary = write_corpus(train, rest, args)
    words = sum(len(d[2]) for d in train)
    print(f"wordnet_glosses: {len(train)} training and {len(test)} test documents, {len(kept)} classes, "
          f"vocabulary {len(vocabulary)}, {words / len(train):.1f} words per training document; "
          f"{skipped} test documents with no vocabulary word skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
