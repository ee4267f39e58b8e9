#!/usr/bin/env python3
"""Debian's fortune cookies as a labelled corpus of short English documents, in LIBSVM count rows.

The corpus ships with Debian 12's fortunes package (apt-get install fortunes; fortune-mod's data,
/usr/share/games/fortunes/): plain-text files of entries separated by lines holding only '%'. A
document is one entry (quotation, joke, definition, verse, ...), about 30 words; its class is the
file it comes from. The files used by default are those of the package with at least 100 entries,
less the three with no subject (cookie, fortunes, miscellaneous: grab-bags of every topic); the
small ones (ascii-art, debian, goedel, magic, medicine, news, paradoxum, pets, pratchett, tao,
translate-me) are left out. Class k is the k-th of FILES (1-based, the order given).
Attributions ("-- Mark Twain") are part of the entry, as in the files.

Deterministic throughout: words are the maximal runs of letters a-z after lower-casing; an entry
with no word is dropped, and so is every copy of a word sequence found in more than one file (83
of them in the default files; a sequence repeated within one file is kept once). The documents
are ordered by the SHA-1 of their words joined by single spaces (a fixed, seed-free shuffle); the
first TRAIN of them form the training part and the next TEST the test part. Vocabulary, dropped
test words, skipped empty test documents and the tf-idf rows are as in examples/wordnet_glosses.py
(whose writer this uses).

Usage: fortunes_documents.py [--directory DIR] [--files F ...] [--train-size 4000] [--test-size 2000]
                             --train TRAIN --test TEST [--tfidf-train F --tfidf-test F] [--vocabulary F]
"""
import argparse
import collections
import hashlib
import os
import re
import sys

from wordnet_glosses import WORD, add_split_arguments, write_corpus

FILES = ("art computers definitions disclaimer drugs education ethnic food humorists kids knghtbrd law "
         "linux linuxcookie literature love men-women people perl platitudes politics riddles science "
         "songs-poems sports startrek wisdom work zippy").split()
SEPARATOR = re.compile(r"^%\s*$", re.M)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--directory", default="/usr/share/games/fortunes")
    parser.add_argument("--files", nargs="+", default=FILES, help="the files (classes 1, 2, ...)")
    add_split_arguments(parser, train_size=4000, test_size=2000)
    args = parser.parse_args()

    labels = collections.defaultdict(set)  # word sequence -> the classes holding it
    for label, name in enumerate(args.files, start=1):
        with open(os.path.join(args.directory, name), encoding="utf-8") as data:
            for entry in SEPARATOR.split(data.read()):
                words = tuple(WORD.findall(entry.lower()))
                if words:
                    labels[words].add(label)
    documents = []
    for words, holders in labels.items():
        if len(holders) == 1:
            key = hashlib.sha1(" ".join(words).encode()).hexdigest()
            documents.append((key, next(iter(holders)), list(words)))
    documents.sort()
    train = documents[: args.train_size]
    rest = documents[args.train_size :]

    test, skipped, vocabulary = write_corpus(train, rest, args)
    words = sum(len(d[2]) for d in train)
    shared = sum(1 for holders in labels.values() if len(holders) > 1)
    print(f"fortunes_documents: {len(train)} training and {len(test)} test documents of {len(documents)}, "
          f"{len(args.files)} classes, vocabulary {len(vocabulary)}, {words / len(train):.1f} words per training "
          f"document; {shared} word sequences in several files dropped; {skipped} test documents with no "
          f"vocabulary word skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
