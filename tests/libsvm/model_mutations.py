#!/usr/bin/env python3
"""Mutated model files against the patched loader (libsvm-patch/06-model-loader.patch) and model
structs against LIBSVM's Octave interface (07-matlab-model.patch).

Models trained here by the patched svm-train (the ppk kernel on documents with -b 1, ppk_norm on
three classes of Gaussians, RBF and a precomputed kernel on LIBSVM's heart_scale, an epsilon-SVR),
each mutated by a seeded generator: lines dropped, duplicated or swapped, header counts and values
replaced (0, -1, huge, off by one, garbage), tokens deleted, truncated files, bytes inserted. Every
case goes to svm-predict (each a process of its own, with a time limit) and, all in one process, to
LIBSVM's Python interface (svm_load_model, then svm_predict) on the same libsvm.so.3, and (given
MEXDIR) to its Octave interface (svmloadmodel, then svmpredict). Every case must be a clean refusal
(exit status 1 with a message naming the file; None from Python; an empty answer and a message
from Octave) or a model that predicts every test row with a finite label, Python's and Octave's
labels those of svm-predict: no crash, no hang. model_mutations.m adds seeded mutations of the
model structs themselves.

  model_mutations.py SVM_TRAIN SVM_PREDICT LIBDIR PYTHON_MODULE_DIR HEART_SCALE PPK [MEXDIR]
"""

import os
import random
import re
import subprocess
import sys
import tempfile

CASES_PER_MODEL = 150
OCTAVE_STRUCT_CASES = 600
SEED = 20261128


def run(*args, **kwargs):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)


def check(result, what):
    if result.returncode != 0:
        sys.exit(f"FAIL: {what}: {result.stderr}")


def base_models(work, svm_train, ppk, heart_scale):
    """(name, model text, test rows path) for each base model."""
    rng = random.Random(SEED)
    documents = work / "documents.txt"
    with open(documents, "w") as out:
        for i in range(60):
            label = 1 if i % 2 else -1
            words = {rng.randrange(1, 40) + (0 if label > 0 else 30): rng.randint(1, 4) for _ in range(12)}
            out.write(f"{label} " + " ".join(f"{w}:{c}" for w, c in sorted(words.items())) + "\n")
    check(run(ppk, "fit", "multinomial", "--dim", 80, documents, "-o", work / "documents.ppk"), "ppk fit")
    points = work / "points.txt"
    with open(points, "w") as out:
        for group in range(45):
            label = group % 3 + 1
            for _ in range(6):
                out.write(f"{label} qid:{group + 1} 1:{rng.gauss(label, 1):.6g} 2:{rng.gauss(-label, 1):.6g}\n")
    check(run(ppk, "fit", "gaussian", "--cov", "iso", points, "-o", work / "points.ppk"), "ppk fit gaussian")
    precomputed = work / "precomputed.txt"
    with open(heart_scale) as source:
        rows = [line.split() for line in source][:60]
    vectors = [{int(f.split(":")[0]): float(f.split(":")[1]) for f in row[1:]} for row in rows]
    with open(precomputed, "w") as out:
        for i, row in enumerate(rows):
            values = [sum(v * vectors[j].get(k, 0.0) for k, v in vectors[i].items()) for j in range(len(rows))]
            out.write(f"{row[0]} 0:{i + 1} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(values)) + "\n")
    trained = []
    for name, rows_path, options in [
        ("ppk-b1", work / "documents.ppk", ["-t", "ppk", "-g", 0.5, "-b", 1]),
        ("ppk_norm-3class", work / "points.ppk", ["-t", "ppk_norm", "-g", 0.5]),
        ("rbf", heart_scale, ["-t", 2]),
        ("precomputed", precomputed, ["-t", 4]),
        ("svr", heart_scale, ["-s", 3, "-t", 1, "-d", 2]),
    ]:
        model = work / f"{name}.model"
        check(run(svm_train, "-q", *options, rows_path, model), f"svm-train {name}")
        trained.append((name, model.read_text(), rows_path))
    return trained


def big_classes(text, k):
    """text's header claiming k classes, every array of the right length, and total_sv a quarter of
    the file's size: within what lines of one coefficient could hold, not lines of k - 1."""
    lines = []
    for line in text.split("SV\n", 1)[0].splitlines():
        key = line.split()[0]
        if key == "nr_class":
            line = f"nr_class {k}"
        elif key in ("rho", "probA", "probB"):
            line = key + " 0" * (k * (k - 1) // 2)
        elif key in ("label", "nr_sv"):
            line = key + "".join(f" {i}" for i in range(k))
        lines.append(line)
    total = len("\n".join(lines)) // 4
    lines = [f"total_sv {total}" if line.startswith("total_sv") else line for line in lines]
    lines = [("nr_sv " + " ".join(["0"] * (k - 1) + [str(total)])) if line.startswith("nr_sv") else line
             for line in lines]
    return "\n".join(lines) + "\nSV\n"


def mutations(text, rng):
    """One mutated copy of a model's text."""
    lines = text.split("\n")
    header_end = next(i for i, line in enumerate(lines) if line == "SV")
    kind = rng.randrange(10)
    if kind == 0:  # a line dropped
        del lines[rng.randrange(len(lines))]
    elif kind == 1:  # a line duplicated
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 2:  # two lines swapped
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind in (3, 4):  # a header value replaced
        i = rng.randrange(header_end)
        words = lines[i].split()
        if len(words) > 1:
            k = rng.randrange(1, len(words))
            words[k] = rng.choice(["0", "-1", "1", "2", "3", "4", "2147483647", "-2147483648", "99999999999",
                                   "1e308", "nan", "inf", "x", "", "1.5", str(int(float(words[k]) + 1))
                                   if words[k].lstrip("-").replace(".", "", 1).isdigit() else "7"])
            lines[i] = " ".join(words)
    elif kind == 5:  # a token deleted from a support vector or the header
        i = rng.randrange(len(lines))
        words = lines[i].split(" ")
        if words:
            del words[rng.randrange(len(words))]
            lines[i] = " ".join(words)
    elif kind == 6:  # a support vector's field corrupted
        i = rng.randrange(header_end + 1, max(header_end + 2, len(lines)))
        if i < len(lines) and lines[i]:
            words = lines[i].split(" ")
            k = rng.randrange(len(words))
            words[k] = rng.choice(["0:1", "-5:1", "3", "1:nan", "1:inf", ":", "1:", "99999999999:1", "2:1 1:1",
                                   "1e309", "abc", "0:0"])
            lines[i] = " ".join(words)
    elif kind == 7:  # truncated at a random byte
        cut = rng.randrange(len(text))
        return text[:cut]
    elif kind == 8:  # random bytes inserted
        at = rng.randrange(len(text))
        return text[:at] + "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randint(1, 6))) + text[at:]
    else:  # a header line moved behind SV or SV moved up
        i = rng.randrange(header_end)
        line = lines.pop(i)
        lines.insert(rng.randrange(len(lines)), line)
    return "\n".join(lines)


def main():
    svm_train, svm_predict, libdir, module_dir, heart_scale, ppk = sys.argv[1:7]
    mexdir = sys.argv[7] if len(sys.argv) > 7 and sys.argv[7] else None
    from pathlib import Path
    work = Path(tempfile.mkdtemp(prefix="model-mutations-"))
    trained = base_models(work, svm_train, ppk, heart_scale)
    rng = random.Random(SEED)
    cases = []
    for name, text, rows in trained:
        for n in range(CASES_PER_MODEL):
            path = work / f"{name}.{n}.model"
            path.write_text(mutations(text, rng))
            cases.append((path, rows, "-b 1" if name == "ppk-b1" and n % 2 else "", path.with_suffix(".out")))
    test_rows = {}
    for _, _, rows in trained:
        with open(rows) as source:
            test_rows[rows] = sum(1 for line in source if line.strip())

    # hand-made cases: the message names the file, its line and what is wrong
    rbf = next(text for name, text, _ in trained if name == "rbf")
    header, body = rbf.split("SV\n", 1)
    header_lines = header.splitlines()
    nr_class_line = next(i for i, line in enumerate(header_lines) if line.startswith("nr_class"))
    rho_line = next(i for i, line in enumerate(header_lines) if line.startswith("rho"))
    total = int(next(line for line in header_lines if line.startswith("total_sv")).split()[1])
    swapped = list(header_lines)
    swapped[nr_class_line], swapped[rho_line] = swapped[rho_line], swapped[nr_class_line]
    for text, line, fragment in [
        ("\n".join(swapped) + "\nSV\n" + body, min(nr_class_line, rho_line) + 1, "rho before nr_class"),
        (rbf.replace("nr_class 2", "nr_class 1000000000"), nr_class_line + 1, "nr_class '1000000000' is not a whole number from 1 to"),
        (rbf.replace("nr_class 2", "nr_class -1"), nr_class_line + 1, "nr_class '-1'"),
        (rbf.replace(f"total_sv {total}", f"total_sv {total + 1}"), len(header_lines) + 1, "nr_sv sums to"),
        # an allocation bomb: 300 classes (their rho, label and nr_sv lines fit) and as many support
        # vectors as the file has bytes would be 299 coefficients each
        (big_classes(rbf, 300), None, "lines of 299 coefficients each cannot fit in a file of"),
        (header + "SV\n" + "\n".join(body.splitlines()[:-1]) + "\n", len(header_lines) + 1 + total,
         f"total_sv is {total}, but the file has {total - 1} support vectors"),
        (header + "SV\n" + body.replace(" 1:", " 1:nan_", 1), len(header_lines) + 2, "is not index:value"),
        (header + "SV\n" + body + body.splitlines()[0] + "\n", len(header_lines) + 2 + total, "a line after the"),
        (rbf.replace("gamma", "gama", 1), None, "unknown keyword 'gama'"),
        # read_model_header takes a built-in type by name only: "kernel_type 2" passed the header check
        # and the loader then failed without a message (found by fuzz_libsvm_model)
        (rbf.replace("kernel_type rbf", "kernel_type 2"), None, "a built-in type is given by its name, 'rbf'"),
        # a NUL byte ended the header check's line early while fscanf read on: a second rho behind it
        # reached read_model_header unchecked (found by fuzz_libsvm_model)
        ("\n".join(header_lines[:rho_line + 1]) + " \0rho 1\n" + "\n".join(header_lines[rho_line + 1:])
         + "\nSV\n" + body, rho_line + 1, "a NUL byte (a model file is text)"),
        (header + "SV\n" + body.replace(" 1:", " 1:0\0 2:", 1), len(header_lines) + 2, "a NUL byte"),
    ]:
        path = work / "handmade.model"
        path.write_text(text)
        result = run(svm_predict, heart_scale, path, work / "out")
        where = f"{path}:{line}: " if line else f"{path}:"
        if result.returncode != 1 or where not in result.stderr or fragment not in result.stderr:
            sys.exit(f"FAIL: expected exit 1 and '{where}...{fragment}', got {result.returncode}: {result.stderr}")
    # a precomputed model whose serial lies beyond the test rows: svm-predict refuses the row
    precomputed_text = next(text for name, text, _ in trained if name == "precomputed")
    precomputed_rows = next(rows for name, _, rows in trained if name == "precomputed")
    path = work / "far_serial.model"
    head, svs = precomputed_text.split("SV\n", 1)
    first = svs.split("\n", 1)
    path.write_text(head + "SV\n" + re.sub(r" 0:\d+", " 0:100000", first[0], count=1) + "\n" + first[1])
    result = run(svm_predict, precomputed_rows, path, work / "out")
    if result.returncode != 1 or "needs the entry at its serial 100000" not in result.stderr:
        sys.exit(f"FAIL: a precomputed serial beyond the row: {result.returncode}: {result.stderr}")
    print("hand-made bad models: each refused, the message naming its line and what is wrong; a precomputed "
          "serial beyond the test row refused at prediction")

    refused = predicted = loaded = 0
    for path, rows, probability, out_path in cases:
        try:
            result = run(svm_predict, *probability.split(), rows, path, out_path, timeout=20)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: svm-predict hangs on {path}")
        if result.returncode < 0:
            sys.exit(f"FAIL: svm-predict crashed (signal {-result.returncode}) on {path}\n{result.stderr}")
        if "can't open model file" not in result.stderr:
            loaded += 1
        if result.returncode == 0:
            out = out_path.read_text().split("\n")
            labels = [line for line in out[1 if probability else 0:] if line]
            if len(labels) != test_rows[rows]:
                sys.exit(f"FAIL: {path}: svm-predict wrote {len(labels)} labels for {test_rows[rows]} rows")
            for line in labels:
                if line.split()[0] in ("nan", "-nan", "inf", "-inf"):
                    sys.exit(f"FAIL: {path}: svm-predict predicted {line}")
            predicted += 1
        elif not result.stderr.strip():
            sys.exit(f"FAIL: {path}: svm-predict exited with status {result.returncode} and no message")
        else:
            out_path.unlink(missing_ok=True)
            refused += 1
    print(f"svm-predict: {len(cases)} mutated models, {refused} refused with a message, {predicted} predicted, "
          "0 crashes, 0 hangs")

    # LIBSVM's Python interface, every case in one process (a crash fails the run): the labels of
    # svm-predict (without -b 1; with it, as svm-predict writes them with %g)
    script = """
import os, sys
from svmutil import svm_load_model, svm_predict, svm_read_problem
cases = [line.split('\\t') for line in open(sys.argv[1]).read().splitlines()]
problems = {}
loaded = 0
for path, rows, probability, out in cases:
    model = svm_load_model(path)
    if model is None:
        continue
    if rows not in problems:
        problems[rows] = svm_read_problem(rows)
    y, x = problems[rows]
    labels, _, _ = svm_predict(y, x, model, '-q')
    assert len(labels) == len(y), path
    if out != '-' and not probability:
        theirs = [float(line.split()[0]) for line in open(out).read().splitlines()]
        assert labels == theirs, f'{path}: the labels of svm-predict differ'
    loaded += 1
print(loaded)
"""
    with open(work / "cases.tsv", "w") as out:
        for path, rows, probability, out_path in cases:
            out.write(f"{path}\t{rows}\t{probability}\t{out_path if out_path.exists() else '-'}\n")
    environment = dict(os.environ, LD_LIBRARY_PATH=libdir, PYTHONPATH=module_dir)
    result = subprocess.run(["/usr/bin/python3", "-c", script, str(work / "cases.tsv")], capture_output=True,
                            text=True, env=environment, timeout=600)
    if result.returncode != 0:
        sys.exit(f"FAIL: LIBSVM's Python interface on the mutated models: exit {result.returncode}\n"
                 f"{result.stderr[-2000:]}")
    if int(result.stdout.split()[-1]) != loaded:
        sys.exit(f"FAIL: Python loaded {result.stdout.split()[-1]} models where svm-predict loaded {loaded}")
    print(f"Python (svmutil): the same {loaded} models loaded and predicted (the labels of svm-predict), the others "
          "None, 0 crashes")
    if mexdir:
        with open(work / "bases.tsv", "w") as out:
            for name, _, rows in trained:
                out.write(f"{work / (name + '.model')}\t{rows}\n")
        try:
            result = subprocess.run(
                ["octave-cli", "--no-gui", "--norc", "--quiet", Path(__file__).with_suffix(".m"), mexdir,
                 work / "cases.tsv", work / "bases.tsv", svm_predict, work, str(OCTAVE_STRUCT_CASES)],
                capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"), timeout=900)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: LIBSVM's Octave interface hangs on the mutated models")
        if result.returncode != 0:
            sys.exit(f"FAIL: LIBSVM's Octave interface on the mutated models: exit {result.returncode}\n"
                     f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
        print(result.stdout.strip())
    if refused < len(cases) // 2:
        sys.exit(f"FAIL: only {refused} of {len(cases)} mutations refused: the generator mutates too little")


if __name__ == "__main__":
    main()
