#!/usr/bin/python3
"""Words of four languages from Debian's spelling word lists, as 'LABEL SEQUENCE' lines.

A real sequence-classification set that we did not generate: which language is a word from, given
its letters? Short sequences (6 to 15 symbols by default) over an alphabet of about 35 letters, the
setting where one hidden Markov model fitted per example overfits (issue 24). The words come from
Debian 12's word-list packages, /usr/share/dict/ (apt-get install wamerican wngerman wfrench ...):

    english     wamerican    american-english  (SCOWL, size 50)
    german      wngerman     ngerman           (the new German spelling, from igerman98)
    french      wfrench      french            (inflected forms included)
    italian     witalian     italian
    dutch       wdutch       dutch             (OpenTaal)
    spanish     wspanish     spanish
    portuguese  wportuguese  portuguese        (European Portuguese)
    swedish     wswedish     swedish           (ISO-8859-1 encoded)

Class k is the k-th of --languages (1-based, in the order given). Deterministic throughout:
  * a word is a line of the list: NFC-normalised, lower-cased (German nouns and proper names
    included), kept only if every character is a letter (entries with apostrophes, such as the
    English possessives "ridge's", hyphens, digits or spaces are dropped) and its length is within
    --min-length..--max-length letters;
  * accents (--accents): keep (the default) keeps every accented letter as a symbol of its own
    (é, è and e are three symbols; ß is one); the ligatures œ and æ become oe and ae. fold removes
    the accents (Unicode NFD, combining marks dropped; ß -> ss, ø -> o, œ -> oe, æ -> ae), leaving
    the 26 letters a-z;
  * a word found in more than one of the chosen languages' lists (after the steps above) is
    dropped from all of them: its label would be ambiguous;
  * each language's words are sorted and --per-language of them drawn by Python's
    random.Random(--seed).sample; the lines of all languages are then shuffled by the same
    generator.

Encoding of the output: ppk reads a sequence's symbols as bytes, one symbol per byte, so the lines
are written in ISO-8859-1 (Latin-1), where each of these letters is one byte; a word holding a
letter outside Latin-1 is an error naming the list and line. `iconv -f latin1` shows the file.
--alphabet FILE writes the symbols found in the whole output, sorted, on one line (for
`ppk fit hmm --alphabet-from FILE` and `examples/kmer_counts.py --alphabet-from FILE`): a fixed
inventory of letters, so that every cross-validation fold numbers the symbols alike.

Where the data came from (package, version, file, counts) is printed on standard error.

Usage: word_languages.py [--languages english german french italian] [--per-language 300]
                         [--min-length 6] [--max-length 15] [--accents keep|fold] [--seed 1]
                         [--directory /usr/share/dict] [--alphabet FILE] [-o OUTPUT]
"""
import argparse
import os
import random
import subprocess
import sys
import unicodedata

# language -> (Debian package, file in /usr/share/dict, the file's encoding)
LISTS = {
    "english": ("wamerican", "american-english", "utf-8"),
    "german": ("wngerman", "ngerman", "utf-8"),
    "french": ("wfrench", "french", "utf-8"),
    "italian": ("witalian", "italian", "utf-8"),
    "dutch": ("wdutch", "dutch", "utf-8"),
    "spanish": ("wspanish", "spanish", "utf-8"),
    "portuguese": ("wportuguese", "portuguese", "utf-8"),
    "swedish": ("wswedish", "swedish", "latin-1"),
}
LIGATURES = {"œ": "oe", "æ": "ae"}
FOLDED = {"ß": "ss", "ø": "o", "đ": "d", "ł": "l", "ı": "i"}  # letters that NFD leaves whole


def fold(word):
    """The word with its accents removed (NFD, combining marks dropped) and ligatures spelt out."""
    letters = "".join(LIGATURES.get(c, FOLDED.get(c, c)) for c in word)
    return "".join(c for c in unicodedata.normalize("NFD", letters) if not unicodedata.combining(c))


def read_words(path, encoding, args):
    """The set of words of one list, normalised as described above; a bad letter is an error."""
    words = set()
    with open(path, encoding=encoding) as lines:
        for number, line in enumerate(lines, 1):
            word = unicodedata.normalize("NFC", line.strip()).lower()
            if not word.isalpha():
                continue
            word = fold(word) if args.accents == "fold" else "".join(LIGATURES.get(c, c) for c in word)
            if not args.min_length <= len(word) <= args.max_length:
                continue
            try:
                word.encode("latin-1")
            except UnicodeEncodeError:
                sys.exit(f"word_languages: {path}:{number}: the word {word!r} holds a letter outside ISO-8859-1 "
                         f"(ppk reads one byte per symbol); expected a language of --languages "
                         f"{', '.join(LISTS)} or --accents fold")
            words.add(word)
    return words


def package_version(package):
    """The installed version of a Debian package, as dpkg reports it ('unknown' without dpkg)."""
    try:
        return subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", nargs="+", default=["english", "german", "french", "italian"],
                        choices=sorted(LISTS), help="the languages (classes 1, 2, ...)")
    parser.add_argument("--per-language", type=int, default=300, help="words drawn per language (300)")
    parser.add_argument("--min-length", type=int, default=6, help="fewest letters of a word (6)")
    parser.add_argument("--max-length", type=int, default=15, help="most letters of a word (15)")
    parser.add_argument("--accents", choices=["keep", "fold"], default="keep", help="keep or fold accents (keep)")
    parser.add_argument("--seed", type=int, default=1, help="the sampling seed (1)")
    parser.add_argument("--directory", default="/usr/share/dict", help="where the word lists are")
    parser.add_argument("--alphabet", help="write the symbols found, sorted, to this file (one line)")
    parser.add_argument("-o", "--output", default="-", help="where to write the lines ('-': standard output)")
    args = parser.parse_args()
    if len(set(args.languages)) != len(args.languages):
        parser.error(f"--languages: a language is given twice in {' '.join(args.languages)}")
    if args.per_language < 1:
        parser.error(f"--per-language: expected a number of words >= 1, not {args.per_language}")
    if not 1 <= args.min_length <= args.max_length:
        parser.error(f"--min-length {args.min_length} --max-length {args.max_length}: expected 1 <= min <= max")

    words = {}
    for language in args.languages:
        package, name, encoding = LISTS[language]
        path = os.path.join(args.directory, name)
        if not os.path.exists(path):
            sys.exit(f"word_languages: {path} is missing; install Debian's {package} package "
                     f"(apt-get install {package})")
        words[language] = read_words(path, encoding, args)
    shared = set()
    for i, language in enumerate(args.languages):
        for other in args.languages[i + 1:]:
            shared |= words[language] & words[other]

    generator = random.Random(args.seed)
    lines = []
    print(f"word_languages: {args.per_language} words per language, {args.min_length}-{args.max_length} letters, "
          f"lower-cased, accents {args.accents == 'keep' and 'kept' or 'folded'}, seed {args.seed}; "
          f"{len(shared)} words in more than one list dropped", file=sys.stderr)
    for label, language in enumerate(args.languages, start=1):
        package, name, _ = LISTS[language]
        candidates = sorted(words[language] - shared)
        if len(candidates) < args.per_language:
            sys.exit(f"word_languages: {language} has {len(candidates)} words of {args.min_length}-{args.max_length} "
                     f"letters in no other list; expected at least --per-language {args.per_language}")
        chosen = generator.sample(candidates, args.per_language)
        lines += [(label, word) for word in chosen]
        print(f"  class {label}: {language:<10} Debian package {package} {package_version(package)}, "
              f"{os.path.join(args.directory, name)}: {len(candidates)} candidate words, {len(chosen)} drawn",
              file=sys.stderr)
    generator.shuffle(lines)

    symbols = sorted({c for _, word in lines for c in word})
    print(f"  {len(lines)} words, alphabet of {len(symbols)} symbols: {''.join(symbols)}", file=sys.stderr)
    text = "".join(f"{label} {word}\n" for label, word in lines)
    if args.output == "-":
        sys.stdout.buffer.write(text.encode("latin-1"))
    else:
        with open(args.output, "w", encoding="latin-1") as output:
            output.write(text)
    if args.alphabet:
        with open(args.alphabet, "w", encoding="latin-1") as output:
            output.write("".join(symbols) + "\n")


if __name__ == "__main__":
    main()
