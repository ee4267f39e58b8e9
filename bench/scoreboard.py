#!/usr/bin/python3
"""The real-data scoreboard (issue 48, item 4): plain baselines against ppk's routes on real sequences.

Data sets (all shipped by Debian 12 packages; scripts/install-evaluation-deps.sh installs them):
  splice     primate splice junctions, r-cran-mlbench's DNA (StatLog: 3,186 sequences of 60 bases,
             classes ei / ie / n); StatLog's split: the first 2,000 rows train, the other 1,186 test
  promoters  E. coli promoters, r-cran-kernlab's promotergene (106 sequences of 57 bases, + / -)
  words      words of four languages, examples/word_languages.py at its defaults (1,200 words)
  proteins   protein families: the unaligned sequences (gaps stripped) of HMMER's tutorial and
             test-suite Pfam seeds fn3, Pkinase, RRM_1 and the 45 globins of globins45.fa
             (hmmer-doc, hmmer-examples; 260 sequences)
A set without a published split is scored by stratified outer cross-validation (examples/cv_folds.py,
seed 1), 10-fold for sets of fewer than 500 sequences (promoters, proteins), 5-fold otherwise (words):
every sequence is tested once, by a model that never saw it. Every setting of every route is
chosen on the training part of each split only, by LIBSVM's 5-fold cross-validation (svm-train -v 5
or `ppk select -v 5`, which use the same folds); the held-out accuracy is over the test parts.

Routes (ROUTES below: a route is a name, the variants of its fit, a function that writes the rows
of the training and test parts for one variant, both against one pool decided on the training part,
and the selector whose grid it searches):
  plain baselines: linear and RBF SVMs on one-hot positions (aligned sets) and on k-mer spectra
  (relative frequencies of the 1-mers .. k-mers, examples/kmer_counts.py, k in 1, 2, 3 chosen by
  cross-validation), by svm-train over grid.py's ranges at coarser steps;
  ppk routes: per-sequence HMMs, HMMs adapted from a pooled HMM, the pooled HMM's Fisher scores,
  Markov chains of order k (homogeneous, and position-specific on aligned sets), and the combined
  kernel of a Markov chain and an adapted HMM of each sequence, its weights chosen by ppk select.

Output: the Markdown tables on standard output (and in FILE with -o): held-out accuracy per set and
route with the settings chosen, the best plain baseline against the best ppk route per set, and the
wall time of each route (the only part that changes from run to run). Every fit is seeded and every
fold is fixed (LIBSVM draws its folds from glibc's unseeded rand()), so a rerun prints the same
accuracy tables.

Usage: bench/scoreboard.py [--build BUILD_DIR] [--sets splice,promoters,words,proteins] [--routes KEY,...]
                           [--quick] [--work DIR] [-o FILE]
  --routes  run only these routes (keys: onehot-linear onehot-rbf kmer-linear kmer-rbf hmm adapted
            fisher markov markov-aligned combined)
  --quick   small grids, for a smoke test only: its figures are not the scoreboard's
  --work    keep the working files in DIR (default: a temporary folder, removed at the end); each
            route's result is kept there and reused by a later run with the same grid, so that runs
            of some routes, even at the same time, add up to the whole scoreboard
"""
import argparse
import collections
import concurrent.futures
import csv
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
EXAMPLES = os.path.join(SOURCE, "examples")
SEED = 1
INNER_FOLDS = 5
SMALL_SET = 500  # sets of fewer sequences get 10 outer folds, others 5


def grids(quick):
    """The grids every set and route shares (exponents of 2 for C and gamma). LIBSVM's grid.py
    searches C = 2^-5, 2^-3, .., 2^15 and gamma = 2^3, 2^1, .., 2^-15; here the same ranges at steps
    of 2^3 (C up to 2^13), to stay fast. ppk select: ppk_norm only (the unnormalised kernel between
    HMMs scales geometrically with T, and LIBSVM's solver crawls on it at large C: docs/scoreboard.md),
    rho 0.25, 0.5 (Bhattacharyya), 1 (expected likelihood). k-mer spectra up to k; the adapted HMMs'
    relevance tau; the Markov chains' orders."""
    if quick:
        return {"C": [-1, 5], "gamma": [-6, -3], "rho": ["1"], "k": [1, 2], "relevance": ["16"],
                "order": [1], "kernels": ["ppk_norm"]}
    return {"C": list(range(-5, 14, 3)), "gamma": list(range(3, -16, -3)), "rho": ["0.25", "0.5", "1"],
            "k": [1, 2, 3], "relevance": ["4", "16", "64"], "order": [1, 2, 3], "kernels": ["ppk_norm"]}


def run(command, **options):
    """Runs a command; on failure, stops with the command and its standard error."""
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if result.returncode != 0:
        sys.exit(f"scoreboard: {' '.join(command)} exited with {result.returncode}:\n{result.stderr}")
    return result.stdout


def package_version(package):
    """The installed version of a Debian package, or a message naming the package to install."""
    result = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout:
        sys.exit(f"scoreboard: the Debian package {package} is missing: bash scripts/install-evaluation-deps.sh")
    return result.stdout


# ---- the data sets -------------------------------------------------------------------------------
# Each loader returns (examples, alphabet, notes): examples a list of (label, sequence), labels
# 1, 2, ..; notes say where the data came from.

def r_data_frame(package, dataset, work):
    """The rows of an R package's data set as lists of strings (first row: the column names),
    written to CSV by Rscript and read back."""
    path = os.path.join(work, f"{dataset}.{os.getpid()}.csv")
    run(["Rscript", "-e", f"suppressMessages(library({package})); data({dataset}); "
         f"write.csv({dataset}, '{path}', row.names = FALSE)"])
    with open(path, newline="") as rows:
        return list(csv.reader(rows))


# mlbench's documentation of DNA (?DNA): "The nucleotides A,C,G,T were given indicator values as
# follows: A -> 1 0 0, C -> 0 1 0, G -> 0 0 1, T -> 0 0 0". load_splice checks the coding against
# the splice-site consensus (docs/scoreboard.md).
DNA_CODING = {("1", "0", "0"): "A", ("0", "1", "0"): "C", ("0", "0", "1"): "G", ("0", "0", "0"): "T"}
DNA_CLASSES = ["ei", "ie", "n"]


def load_splice(work):
    version = package_version("r-cran-mlbench")
    rows = r_data_frame("mlbench", "DNA", work)
    header, rows = rows[0], rows[1:]
    if len(header) != 181 or header[180] != "Class" or len(rows) != 3186:
        sys.exit(f"scoreboard: mlbench's DNA: expected 3,186 rows of 180 indicators and Class, "
                 f"got {len(rows)} rows of columns {header[:3]}..{header[-2:]}")
    examples = []
    for number, row in enumerate(rows, 1):
        bases = []
        for position in range(60):
            triple = tuple(row[3 * position:3 * position + 3])
            if triple not in DNA_CODING:
                sys.exit(f"scoreboard: mlbench's DNA row {number}, position {position + 1}: indicators "
                         f"{' '.join(triple)}, expected one of the documented codes")
            bases.append(DNA_CODING[triple])
        examples.append((DNA_CLASSES.index(row[180]) + 1, "".join(bases)))
    check_splice_consensus(examples)
    return examples, "ACGT", (f"r-cran-mlbench {version}, data(DNA): {len(examples)} sequences of 60 bases, "
                              f"classes 1 = ei, 2 = ie, 3 = n")


def check_splice_consensus(examples):
    """The documented coding, checked against biology it knows nothing of: the junction lies between
    positions 30 and 31, so nearly every exon-intron (donor) site reads GT at 31-32 and nearly every
    intron-exon (acceptor) site AG at 29-30, and neither pair is special in class n."""
    def share(label, start, pair):
        sequences = [s for c, s in examples if c == label]
        return sum(s[start:start + 2] == pair for s in sequences) / len(sequences)
    if share(1, 30, "GT") < 0.95 or share(2, 28, "AG") < 0.95 or share(3, 30, "GT") > 0.2:
        sys.exit("scoreboard: mlbench's DNA does not show GT donors / AG acceptors under the documented coding")


def load_promoters(work):
    version = package_version("r-cran-kernlab")
    rows = r_data_frame("kernlab", "promotergene", work)
    header, rows = rows[0], rows[1:]
    if header[0] != "Class" or len(header) != 58 or len(rows) != 106:
        sys.exit(f"scoreboard: kernlab's promotergene: expected 106 rows of Class and 57 bases, got "
                 f"{len(rows)} rows of {len(header)} columns")
    examples = []
    for number, row in enumerate(rows, 1):
        sequence = "".join(row[1:]).upper()
        if row[0] not in "+-" or set(sequence) - set("ACGT"):
            sys.exit(f"scoreboard: kernlab's promotergene row {number}: expected + or - and the bases a, c, g, t")
        examples.append((1 if row[0] == "+" else 2, sequence))
    return examples, "ACGT", (f"r-cran-kernlab {version}, data(promotergene): {len(examples)} sequences of 57 "
                              f"bases, classes 1 = + (promoter), 2 = -")


def load_words(work):
    lines = os.path.join(work, f"words.{os.getpid()}.txt")
    alphabet = os.path.join(work, f"words.{os.getpid()}.alphabet")
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "word_languages.py"), "--alphabet", alphabet,
                             "-o", lines], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"scoreboard: examples/word_languages.py: {result.stderr}")
    with open(lines, encoding="latin-1") as text:
        examples = [(int(label), word) for label, word in (line.split() for line in text)]
    with open(alphabet, encoding="latin-1") as text:
        symbols = text.read().strip()
    return examples, symbols, "examples/word_languages.py at its defaults:\n" + result.stderr.rstrip()


TUTORIAL = "/usr/share/doc/hmmer/tutorial"
TESTSUITE = "/usr/share/doc/hmmer/examples/testsuite"
# class, family, file, package
PROTEIN_FAMILIES = [(1, "fn3 (Pfam PF00041, fibronectin type III)", f"{TUTORIAL}/fn3.sto", "hmmer-doc"),
                    (2, "Pkinase (Pfam PF00069, protein kinase)", f"{TUTORIAL}/Pkinase.sto", "hmmer-doc"),
                    (3, "globins", f"{TUTORIAL}/globins45.fa", "hmmer-doc"),
                    (4, "RRM_1 (Pfam PF00076, RNA recognition motif)", f"{TESTSUITE}/RRM_1.sto.gz", "hmmer-examples")]


def read_sequences(path):
    """{name: sequence} of a Stockholm alignment (its blocks joined, the gaps '.' and '-' dropped,
    insert columns' lower case raised) or of a FASTA file."""
    sequences = collections.OrderedDict()
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as text:
        name = None
        for line in text:
            if path.endswith(".fa"):
                if line.startswith(">"):
                    name = line[1:].split()[0]
                    sequences[name] = ""
                else:
                    sequences[name] += line.strip()
            elif line.strip() and not line.startswith(("#", "//")):
                name, aligned = line.split()
                sequences[name] = sequences.get(name, "") + aligned
    return {name: "".join(c for c in s if c not in ".-").upper() for name, s in sequences.items()}


def load_proteins(work):
    examples, notes = [], []
    for label, family, path, package in PROTEIN_FAMILIES:
        version = package_version(package)
        sequences = read_sequences(path)
        lengths = [len(s) for s in sequences.values()]
        examples += [(label, s) for s in sequences.values()]
        notes.append(f"  class {label}: {family}, {package} {version}, {path}: {len(sequences)} sequences of "
                     f"{min(lengths)}-{max(lengths)} residues")
    symbols = "".join(sorted({c for _, s in examples for c in s}))
    return examples, symbols, "\n".join(notes)


DataSet = collections.namedtuple("DataSet", "name title aligned load holdout")
DATA_SETS = [DataSet("splice", "primate splice junctions", True, load_splice, 2000),
             DataSet("promoters", "E. coli promoters", True, load_promoters, None),
             DataSet("words", "words of four languages", False, load_words, None),
             DataSet("proteins", "protein families", False, load_proteins, None)]


def splits(data, examples, work):
    """(train, test) lists of examples: the published split, or stratified outer folds
    (examples/cv_folds.py, seed SEED)."""
    if data.holdout:
        return [(examples[:data.holdout], examples[data.holdout:])]
    source, folds = os.path.join(work, "all.txt"), os.path.join(work, f"outer.{os.getpid()}")
    write_lines(source, examples)
    count = outer_folds(examples)
    run([sys.executable, os.path.join(EXAMPLES, "cv_folds.py"), source, folds, "--folds", str(count), "--seed", str(SEED)])
    result = [tuple(read_lines(os.path.join(folds, f"fold{fold}", part)) for part in ("train.txt", "test.txt"))
              for fold in range(1, count + 1)]
    shutil.rmtree(folds)
    return result


def outer_folds(examples):
    return 10 if len(examples) < SMALL_SET else 5


def write_lines(path, examples):
    """Written whole under a temporary name, then renamed: two runs sharing --work never read half a file."""
    with open(f"{path}.{os.getpid()}", "w", encoding="latin-1") as out:
        out.writelines(f"{label} {sequence}\n" for label, sequence in examples)
    os.replace(f"{path}.{os.getpid()}", path)


def read_lines(path):
    with open(path, encoding="latin-1") as text:
        return [(int(label), sequence) for label, sequence in (line.split() for line in text)]


# ---- the rows of each route ----------------------------------------------------------------------
# rows_* (context, variant, train, test) -> (train rows, test rows): train and test are 'LABEL
# SEQUENCE' files; what is decided on data is decided on train alone and reused for test.

class Context:
    def __init__(self, build, alphabet_file, alphabet, work):
        self.bin = os.path.join(build, "bin")
        self.alphabet_file, self.alphabet, self.work = alphabet_file, alphabet, work

    def ppk(self, *arguments):
        return run([os.path.join(self.bin, "ppk"), *arguments])


def rows_one_hot(context, variant, train, test):
    """Position p, symbol a -> feature p |A| + a + 1, value 1: the aligned sequence's indicators."""
    index = {symbol: i for i, symbol in enumerate(context.alphabet)}
    outputs = []
    for path in (train, test):
        with open(path + ".onehot", "w") as out:
            for label, sequence in read_lines(path):
                features = " ".join(f"{p * len(index) + index[s] + 1}:1" for p, s in enumerate(sequence))
                out.write(f"{label} {features}\n")
        outputs.append(path + ".onehot")
    return outputs


def rows_spectrum(context, variant, train, test):
    outputs = []
    for path in (train, test):
        rows = run([sys.executable, os.path.join(EXAMPLES, "kmer_counts.py"), "--alphabet-from", context.alphabet_file,
                    "--k", str(variant["k"]), path])
        with open(f"{path}.k{variant['k']}", "w") as out:
            out.write(rows)
        outputs.append(f"{path}.k{variant['k']}")
    return outputs


HMM_INPUT = ["--format", "lines", "--alphabet-from"]


def rows_hmm(context, variant, train, test):
    """One HMM per sequence, ppk fit hmm --states auto (JMLR 2004 section 8.2's rule per sequence)."""
    options = ["--states", "auto", "--seed", str(SEED), *HMM_INPUT, context.alphabet_file]
    context.ppk("fit", "hmm", *options, "--save-pooled", train + ".hmm.pool", train, "-o", train + ".hmm")
    context.ppk("fit", "hmm", *options, "--pooled-from", train + ".hmm.pool", test, "-o", test + ".hmm")
    return train + ".hmm", test + ".hmm"


def pooled_hmm(context, train):
    """One HMM of all training sequences, --states auto (held-out likelihood), kept in a pool file
    shared by the adapted and the Fisher routes of one split; (pool, states chosen)."""
    pool = train + ".pooled.pool"
    if not os.path.exists(pool):
        context.ppk("fit", "hmm", "--pooled", "--states", "auto", "--seed", str(SEED), *HMM_INPUT,
                    context.alphabet_file, "--save-pooled", pool, train, "-o", os.devnull)
    return pool


def pooled_states(pool):
    with open(pool) as text:
        return int(json.load(text)["chosen"]["states"]["value"])


def rows_adapted(context, variant, train, test):
    """Every sequence adapted from the pooled HMM (MAP, Dirichlet priors of TAU pseudo-counts)."""
    pool = pooled_hmm(context, train)
    outputs = []
    for path in (train, test):
        output = f"{path}.adapted{variant['relevance']}"
        context.ppk("fit", "hmm", "--adapt-from", pool, "--relevance", variant["relevance"], *HMM_INPUT,
                    context.alphabet_file, path, "-o", output)
        outputs.append(output)
    variant["states"] = pooled_states(pool)
    return outputs


def rows_fisher(context, variant, train, test):
    """The pooled HMM's Fisher scores, scaled by the training part's empirical Fisher information."""
    pool = pooled_hmm(context, train)
    for path in (train, test):
        context.ppk("fit", "hmm", "--fisher-from", pool, *HMM_INPUT, context.alphabet_file, path, "-o", path + ".fisher")
    variant["states"] = pooled_states(pool)
    return train + ".fisher", test + ".fisher"


def rows_markov(context, variant, train, test):
    """Markov chains of order K (position-specific with --aligned), smoothed toward the training
    part's pooled chain, beta chosen with C by cross-validation on the training part (ppk fit markov
    --alpha auto; issue 48 items 1-2). Homogeneous chains of sequences of different lengths are
    compared over one T, which --alpha auto needs: the median training sequence's (ppk select then
    searches T/4, T/2 and T)."""
    options = ["--order", str(variant["order"]), "--aligned" if variant["aligned"] else "--homogeneous",
               "--alpha", "auto", "--alphabet-from", context.alphabet_file]
    lengths = sorted(len(sequence) for _, sequence in read_lines(train))
    if not variant["aligned"] and lengths[0] != lengths[-1]:
        options += ["--length", str(lengths[len(lengths) // 2] - 1)]
    name = f"markov{variant['order']}{'a' if variant['aligned'] else ''}"
    context.ppk("fit", "markov", *options, "--save-pooled", f"{train}.{name}.pool", train, "-o", f"{train}.{name}")
    # the test part takes the order, layout, alphabet, base and beta from the pool; its rows keep their
    # own T (n - 1), and the model ppk select trains compares every row at the T it chose
    context.ppk("fit", "markov", "--pooled-from", f"{train}.{name}.pool", test, "-o", f"{test}.{name}")
    return f"{train}.{name}", f"{test}.{name}"


MARKOV_TABLE = 2 ** 12  # the largest A^(k+1) of the markov routes' orders (routes())
COMBINED_WEIGHTS = "1:0,0.75:0.25,0.5:0.5,0.25:0.75,0:1"  # (Markov chain : adapted HMM)


def rows_combined(context, variant, train, test):
    """Two models of each sequence in one row (ppk combine): the Markov chain of the markov route's
    default order (position-specific on aligned sets) and the HMM adapted from the pooled HMM at the
    middle relevance; their weights are chosen by ppk select --weights. The parts' files are kept
    beside the rows, for the test rows to be combined again at the chosen weights."""
    lengths = {len(sequence) for _, sequence in read_lines(train)}
    aligned = len(lengths) == 1  # as ppk fit markov decides by default
    markov = {"order": 0 if aligned else 1, "aligned": aligned}
    adapted = {"relevance": "16"}
    parts = list(zip(rows_markov(context, markov, train, test), rows_adapted(context, adapted, train, test)))
    variant.update(order=markov["order"], states=adapted["states"], relevance=adapted["relevance"])
    outputs = []
    for path, files in zip((train, test), parts):
        output = f"{path}.combined"
        context.ppk("combine", *files, "-o", output)
        with open(output + ".parts", "w") as out:
            json.dump(files, out)
        outputs.append(output)
    return outputs


# ---- the selectors -------------------------------------------------------------------------------
# A selector's select(context, train_rows) -> (cv accuracy, cell, model) and
# predict(context, cell, model, train_rows, test_rows) -> predicted labels.

def power(exponent):
    return f"2^{exponent}"


def svm_accuracy(context, options, rows):
    output = run([os.path.join(context.bin, "svm-train"), "-q", "-v", str(INNER_FOLDS), *options, rows])
    return float(re.search(r"Cross Validation Accuracy = ([0-9.]+)%", output).group(1))


def svm_predict(context, options, rows, test_rows):
    model, predictions = test_rows + ".model", test_rows + ".predictions"
    run([os.path.join(context.bin, "svm-train"), "-q", *options, rows, model])
    run([os.path.join(context.bin, "svm-predict"), test_rows, model, predictions])
    with open(predictions) as text:
        return [int(float(line)) for line in text]


class SvmGrid:
    """LIBSVM's own kernels searched by svm-train -v: linear over C, RBF over C x gamma; the first
    best cell in grid order."""

    def __init__(self, kernels, grid):
        self.cells = []
        for kernel in kernels:
            for c in grid["C"]:
                if kernel == "linear":
                    self.cells.append((("-t", "0", "-c", str(2.0 ** c)), f"linear C {power(c)}"))
                else:
                    self.cells += [(("-t", "2", "-c", str(2.0 ** c), "-g", str(2.0 ** g)),
                                    f"RBF C {power(c)} γ {power(g)}") for g in grid["gamma"]]
        self.signature = repr(self.cells)

    def select(self, context, rows):
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
            scores = list(pool.map(lambda cell: svm_accuracy(context, cell[0], rows), self.cells))
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return scores[best], self.cells[best], None

    def predict(self, context, cell, model, rows, test_rows):
        return svm_predict(context, cell[0], rows, test_rows)


class PpkSelect:
    """ppk select over kernel type, rho, T (its default: T/4, T/2 and T of the shortest row), the
    weights of combined rows (--weights, when given) and C; the best cell's model (ppk select -o)
    predicts the test rows with svm-predict, the test rows of combined parts combined again at the
    weights chosen."""

    def __init__(self, grid, weights=None):
        self.options = ["-t", ",".join(grid["kernels"]), "-g", ",".join(grid["rho"]),
                        "-c", ",".join(str(2.0 ** c) for c in grid["C"])]
        if weights:
            self.options += ["--weights", weights]
        self.signature = repr(self.options)

    def select(self, context, rows):
        model = rows + ".select.model"
        output = context.ppk("select", "-q", "-v", str(INNER_FOLDS), *self.options, "-o", model, rows)
        best = re.search(r"^best: -t (\S+) -g (\S+)(?: -d (\S+))?(?: --weights (\S+))? -c (\S+): "
                         r"Cross Validation Accuracy = ([0-9.]+)%", output, re.M)
        kernel, rho, length, weights, c, accuracy = best.groups()
        exponent = round(math.log2(float(c)))
        setting = (f"{kernel} ρ {rho}{f' T {length}' if length else ''}"
                   f"{f' weights {weights}' if weights else ''} C {power(exponent)}")
        return float(accuracy), (weights, setting), model

    def predict(self, context, cell, model, rows, test_rows):
        weights = cell[0]
        if weights:
            with open(test_rows + ".parts") as text:
                parts = json.load(text)
            context.ppk("combine", "--weights", weights.replace(":", ","), *parts, "-o", test_rows)
        predictions = test_rows + ".predictions"
        run([os.path.join(context.bin, "svm-predict"), test_rows, model, predictions])
        with open(predictions) as text:
            return [int(float(line)) for line in text]


# ---- the routes ----------------------------------------------------------------------------------

Route = collections.namedtuple("Route", "key name kind applies variants rows selector")


def routes(context, grid):
    """The table of routes, in the order of the scoreboard's rows. key: its name for --routes;
    kind: 'plain' or 'ppk'; applies:
    which sets (aligned or all); variants: the fit's settings searched (each is one more selector
    run; the best cross-validated variant wins, the first of equals)."""
    spectrum = [{"k": k} for k in grid["k"]]
    adapted = [{"relevance": tau} for tau in grid["relevance"]]
    # A chain's kernel costs T A^(k+1) per pair, its pooled base dense: the orders of at most
    # MARKOV_TABLE entries per step (DNA: 1-3; 20 amino acids and more, or the words' 39 letters: 1).
    orders = [k for k in grid["order"] if len(context.alphabet) ** (k + 1) <= MARKOV_TABLE] or grid["order"][:1]
    return [
        Route("onehot-linear", "one-hot, linear", "plain", "aligned", [{}], rows_one_hot, SvmGrid(["linear"], grid)),
        Route("onehot-rbf", "one-hot, RBF", "plain", "aligned", [{}], rows_one_hot, SvmGrid(["rbf"], grid)),
        Route("kmer-linear", "k-mer spectrum, linear", "plain", "all", spectrum, rows_spectrum, SvmGrid(["linear"], grid)),
        Route("kmer-rbf", "k-mer spectrum, RBF", "plain", "all", spectrum, rows_spectrum, SvmGrid(["rbf"], grid)),
        Route("hmm", "HMM per sequence", "ppk", "all", [{}], rows_hmm, PpkSelect(grid)),
        Route("adapted", "HMM adapted from pooled", "ppk", "all", adapted, rows_adapted, PpkSelect(grid)),
        Route("fisher", "Fisher scores of pooled HMM", "ppk", "all", [{}], rows_fisher, SvmGrid(["linear", "rbf"], grid)),
        Route("markov", "Markov chain", "ppk", "all", [{"order": k, "aligned": False} for k in orders],
              rows_markov, PpkSelect(grid)),
        Route("markov-aligned", "Markov chain, position-specific", "ppk", "aligned",
              [{"order": k, "aligned": True} for k in [0] + orders[:-1]], rows_markov, PpkSelect(grid)),
        Route("combined", "Markov chain + adapted HMM, combined", "ppk", "all", [{}], rows_combined,
              PpkSelect(grid, weights=COMBINED_WEIGHTS)),
    ]


def describe(variant, cell):
    settings = []
    if "k" in variant:
        settings.append(f"k {variant['k']}")
    if "order" in variant:
        settings.append(f"order {variant['order']}")
    if "states" in variant:
        settings.append(f"{variant['states']} states")
    if "relevance" in variant:
        settings.append(f"τ {variant['relevance']}")
    return ", ".join(settings + [cell[1]])


def evaluate(context, route, train, test):
    """One split: every variant's rows and selection; the best variant's model on the test part.
    Returns (predicted labels, setting chosen)."""
    best = None
    for variant in route.variants:
        variant = dict(variant)
        train_rows, test_rows = route.rows(context, variant, train, test)
        accuracy, cell, model = route.selector.select(context, train_rows)
        if best is None or accuracy > best[0]:
            best = (accuracy, variant, cell, model, train_rows, test_rows)
    _, variant, cell, model, train_rows, test_rows = best
    return route.selector.predict(context, cell, model, train_rows, test_rows), describe(variant, cell)


# ---- the tables ----------------------------------------------------------------------------------

def score_set(data, build, grid, work, keys):
    """Every route (of keys, if given) on every split of one set: [(route, accuracy, standard error,
    chosen, (wall seconds, CPU seconds))]. A route's result is kept in WORK/results/KEY.json with its
    variants, grid and splits; a later run on the same --work reuses it if they are the same, so a
    long scoreboard can be run in parts (--routes) and printed whole."""
    examples, alphabet, notes = data.load(work)
    print(f"scoreboard: {data.name}: {notes}", file=sys.stderr)
    alphabet_file = os.path.join(work, "alphabet.txt")
    with open(f"{alphabet_file}.{os.getpid()}", "w", encoding="latin-1") as out:
        out.write(alphabet + "\n")
    os.replace(f"{alphabet_file}.{os.getpid()}", alphabet_file)
    parts = splits(data, examples, work)
    for number, (train, test) in enumerate(parts, 1):
        write_lines(os.path.join(work, f"split{number}.train"), train)
        write_lines(os.path.join(work, f"split{number}.test"), test)
    context = Context(build, alphabet_file, alphabet, work)
    results = []
    os.makedirs(os.path.join(work, "results"), exist_ok=True)
    table = routes(context, grid)
    unknown = set(keys or []) - {route.key for route in table}
    if unknown:
        sys.exit(f"scoreboard: --routes {','.join(sorted(unknown))}: expected keys of "
                 f"{', '.join(route.key for route in table)}")
    for route in table:
        if route.applies == "aligned" and not data.aligned or keys and route.key not in keys:
            continue
        kept = os.path.join(work, "results", route.key + ".json")
        signature = repr((route.variants, route.selector.signature, [len(test) for _, test in parts]))
        if os.path.exists(kept):
            with open(kept) as text:
                result = json.load(text)
            if result["signature"] == signature:
                results.append((route, *result["result"][:3], tuple(result["result"][3])))
                continue
        started, cpu = time.monotonic(), os.times()
        correct = total = 0
        chosen = collections.Counter()
        for number, (train, test) in enumerate(parts, 1):
            predicted, setting = evaluate(context, route, os.path.join(work, f"split{number}.train"),
                                          os.path.join(work, f"split{number}.test"))
            correct += sum(p == label for p, (label, _) in zip(predicted, test))
            total += len(test)
            chosen[setting] += 1
        now = os.times()
        seconds = (time.monotonic() - started, now.children_user + now.children_system + now.user + now.system
                   - cpu.children_user - cpu.children_system - cpu.user - cpu.system)
        accuracy = correct / total
        error = math.sqrt(accuracy * (1 - accuracy) / total)  # the binomial standard error
        setting, count = max(chosen.items(), key=lambda item: (item[1], -list(chosen).index(item[0])))
        if len(parts) > 1:
            setting += f" ({count}/{len(parts)} splits)"
        print(f"scoreboard: {data.name}: {route.name}: {100 * accuracy:.1f}% in {seconds[0]:.0f} s", file=sys.stderr)
        results.append((route, accuracy, error, setting, seconds))
        with open(kept + ".partial", "w") as out:
            json.dump({"signature": signature, "result": [accuracy, error, setting, seconds]}, out)
        os.replace(kept + ".partial", kept)
    protocol = (f"{data.holdout} / {len(examples) - data.holdout}" if data.holdout else
                f"{len(examples)}, {len(parts)}-fold")
    return protocol, results


def tables(scores, quick):
    lines = ["## Held-out accuracy" + (" (--quick: reduced grids, not the scoreboard)" if quick else ""), "",
             "| set | examples (train / test) | route | held-out accuracy | s.e. | chosen on the training part |",
             "|---|---|---|---|---|---|"]
    for data, (protocol, results) in scores:
        for route, accuracy, error, setting, _ in results:
            lines.append(f"| {data.name} | {protocol} | {route.name} | {100 * accuracy:.1f}% | {100 * error:.1f} | "
                         f"{setting} |")
    lines += ["", "## Best plain baseline against best ppk route", "",
              "| set | best plain baseline | best ppk route | ppk − plain (points) |", "|---|---|---|---|"]
    for data, (_, results) in scores:
        best = {}
        for kind in ("plain", "ppk"):
            candidates = [r for r in results if r[0].kind == kind]
            if candidates:
                best[kind] = max(candidates, key=lambda r: (r[1], -candidates.index(r)))
        if len(best) < 2:  # --routes left out every route of a kind
            continue
        difference = round(100 * best["ppk"][1], 1) - round(100 * best["plain"][1], 1)  # of the figures shown
        verdict = "win" if difference > 0 else "level" if difference == 0 else "loss"
        lines.append(f"| {data.name} | {best['plain'][0].name} {100 * best['plain'][1]:.1f}% | "
                     f"{best['ppk'][0].name} {100 * best['ppk'][1]:.1f}% | {difference:+.1f} ({verdict}) |")
    lines += ["", "## Wall time of each route (every split's fits, selection and test; CPU: all processes)", "",
              "| set | route | wall seconds | CPU seconds |", "|---|---|---|---|"]
    for data, (_, results) in scores:
        lines += [f"| {data.name} | {route.name} | {wall:.0f} | {cpu:.0f} |" for route, _, _, _, (wall, cpu) in results]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"), help="the build folder (./build)")
    parser.add_argument("--sets", default=",".join(d.name for d in DATA_SETS),
                        help="comma-separated sets to run (all: %(default)s)")
    parser.add_argument("--routes", help="comma-separated route keys to run (all: onehot-linear, onehot-rbf, "
                        "kmer-linear, kmer-rbf, hmm, adapted, fisher, markov, markov-aligned, combined)")
    parser.add_argument("--quick", action="store_true", help="small grids: a smoke test, not the scoreboard")
    parser.add_argument("--work", help="keep the working files in this folder")
    parser.add_argument("-o", "--output", help="also write the tables to this file")
    args = parser.parse_args()
    names = args.sets.split(",")
    known = {d.name: d for d in DATA_SETS}
    for name in names:
        if name not in known:
            parser.error(f"--sets: unknown set {name!r}; expected some of {', '.join(known)}")
    for program in ("ppk", "svm-train", "svm-predict"):
        if not os.access(os.path.join(args.build, "bin", program), os.X_OK):
            parser.error(f"--build {args.build}: bin/{program} is missing; build first (docs/building.md)")
    os.environ["OMP_NUM_THREADS"] = str(os.cpu_count())
    work = args.work or tempfile.mkdtemp(prefix="scoreboard-")
    grid = grids(args.quick)
    scores = []
    try:
        for name in names:
            folder = os.path.join(work, name)
            os.makedirs(folder, exist_ok=True)
            scores.append((known[name], score_set(known[name], args.build, grid, folder,
                                                  args.routes.split(",") if args.routes else None)))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    text = tables(scores, args.quick)
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
