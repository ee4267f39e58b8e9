"""examples/documents_demo.py, the Python documents demo, runs end to end (on 150 + 150 documents) and
prints its table: the three PPKSVCCV rows (the last with the kernel and rho it chose) and
scikit-learn's three SVC rows, each with a C of the grid and accuracies in percent. The PPKSVCCV rows
are checked against LIBSVM's programs on the same documents: ``ppk fit multinomial`` rows,
``svm-train`` on each of scikit-learn's 5 stratified training folds and ``svm-predict`` on the fold's
rest give the cross-validated accuracy of every C, whose best (the first on ties) is the C and the CV
accuracy printed; ``svm-train`` with that C on all training rows and ``svm-predict`` on the test rows
give the test accuracy printed. The search over kernels and rho includes both fixed settings, so its
CV accuracy is at least theirs."""

import os
import re
import subprocess
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold

GRID = (0.1, 1, 10, 100, 1000)


def program(name):
    return os.environ[name]


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, args))}: {result.stderr}"
    return result.stdout


def accuracy(train_rows, test_rows, kernel, rho, C, directory):
    """svm-train -t KERNEL -g RHO -c C on train_rows, then the percentage of test_rows svm-predict gets right."""
    train, test, model = directory / "train.rows", directory / "test.rows", directory / "model"
    train.write_text("".join(train_rows))
    test.write_text("".join(test_rows))
    run(program("PPK_SVM_TRAIN"), "-q", "-t", kernel, "-g", rho, "-c", C, train, model)
    run(program("PPK_SVM_PREDICT"), test, model, directory / "predicted")
    predicted = np.loadtxt(directory / "predicted", ndmin=1)
    truth = np.array([float(row.split()[0]) for row in test_rows])
    return 100 * np.mean(predicted == truth)


def test_the_python_documents_demo_runs_and_equals_libsvms_programs(tmp_path):
    demo = os.path.join(os.environ["PPK_SOURCE_DIR"], "examples", "documents_demo.py")
    result = subprocess.run([sys.executable, demo, "--n-train", "150", "--n-test", "150"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    rows = re.findall(r"^(PPKSVCCV.+?|SVC .+?)\s+(\S+)\s+([\d.]+)%\s+([\d.]+)%$", result.stdout, re.MULTILINE)
    assert [row[0].split(",")[0].split(":")[0] for row in rows] == ["PPKSVCCV multinomial"] * 2 + [
        "PPKSVCCV's choice", "SVC linear on counts", "SVC RBF on counts (gamma='scale')", "SVC RBF after MinMaxScaler"]
    choice = re.fullmatch(r"PPKSVCCV's choice: (ppk|ppk_norm), rho=(0.1|0.25|0.5|0.75|1)", rows[2][0])
    assert choice
    for _, c, cv, test in rows:
        assert float(c) in GRID and 0 <= float(cv) <= 100 and 0 <= float(test) <= 100

    # The demo's documents (make_documents.py, seed 1) as ppk fit's rows.
    run(sys.executable, os.path.join(os.environ["PPK_SOURCE_DIR"], "examples", "make_documents.py"), "--seed", 1,
        "--vocabulary", 3000, "--n-train", 150, "--n-test", 150, "--train", tmp_path / "train.txt",
        "--test", tmp_path / "test.txt")
    for part in ("train", "test"):
        run(program("PPK_TOOL"), "fit", "multinomial", "--dim", 3000, tmp_path / f"{part}.txt",
            "-o", tmp_path / f"{part}.ppk")
    train = (tmp_path / "train.ppk").read_text().splitlines(True)
    test = (tmp_path / "test.ppk").read_text().splitlines(True)
    labels = np.array([float(row.split()[0]) for row in train])
    folds = list(StratifiedKFold(5).split(np.zeros((len(labels), 1)), labels))

    def cross_validated(kernel, rho, C):
        # GridSearchCV's mean_test_score: the mean of the folds' accuracies
        return np.mean([accuracy([train[i] for i in fit], [train[i] for i in held], kernel, rho, C, tmp_path)
                        for fit, held in folds])

    settings = [("ppk", 0.5), ("ppk_norm", 1.0), (choice.group(1), float(choice.group(2)))]
    for (name, c, cv, test_accuracy), (kernel, rho) in zip(rows[:3], settings):
        scores = [cross_validated(kernel, rho, C) for C in GRID]
        best = int(np.argmax(scores))  # the first of the best
        assert float(c) == GRID[best], (name, scores)
        assert abs(float(cv) - scores[best]) < 0.006, (name, scores)
        assert abs(float(test_accuracy) - accuracy(train, test, kernel, rho, GRID[best], tmp_path)) < 0.006, name
    assert float(rows[2][2]) >= max(float(rows[0][2]), float(rows[1][2]))
