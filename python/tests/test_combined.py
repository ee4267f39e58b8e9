"""Combined rows in Python (docs/python.md, "Combined kernels"): ppk.combine gives `ppk combine`'s rows
byte for byte and ppk.gram their kernel, the weighted sum of the parts' ppk_norm matrices; its errors
name the models and rows; PPKSVC(weights=...) trains and predicts on the rows at those weights; and
PPKSVCCV's grid of weightings (each part's matrix computed once per (rho, T)) gives the split scores
of PPKSVC(weights=...) fitted per cell and fold, which computes every kernel again."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import ppk
from ppk.sklearn import PPKSVC, PPKSVCCV


def sequences(rng, n, length=12):
    """n 'LABEL SEQUENCE' examples: class 1 repeats its last symbol more often than class 2."""
    lines, labels = [], []
    for i in range(n):
        label = i % 2 + 1
        symbol, text = rng.integers(4), ""
        for _ in range(length):
            text += "ACGT"[symbol]
            if rng.random() > (0.8 if label == 1 else 0.35):
                symbol = rng.integers(4)
        lines.append(f"{label} {text}")
        labels.append(label)
    return lines, np.array(labels)


def bigram_counts(lines):
    """Each sequence's bigram counts (column 4 a + b for the bigram ab), a 2-D array."""
    counts = np.zeros((len(lines), 16))
    for i, line in enumerate(lines):
        text = line.split()[1]
        for a, b in zip(text, text[1:]):
            counts[i, 4 * "ACGT".index(a) + "ACGT".index(b)] += 1
    return counts


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """HMM and bigram-multinomial rows of the same 40 sequences, fitted by the command line."""
    import os
    import subprocess

    tool = os.environ["PPK_TOOL"]
    folder = tmp_path_factory.mktemp("combined")
    lines, labels = sequences(np.random.default_rng(8), 40)
    (folder / "seqs.txt").write_text("\n".join(lines) + "\n")
    counts = bigram_counts(lines)
    (folder / "bigrams.txt").write_text("".join(
        f"{label} " + " ".join(f"{j + 1}:{int(c)}" for j, c in enumerate(row) if c) + "\n"
        for label, row in zip(labels, counts)))
    subprocess.run([tool, "fit", "hmm", "--states", "2", folder / "seqs.txt", "-o", folder / "hmm.ppk"],
                   check=True, capture_output=True)
    subprocess.run([tool, "fit", "multinomial", "--dim", "16", folder / "bigrams.txt", "-o", folder / "kmers.ppk"],
                   check=True, capture_output=True)
    return folder, ppk.Models.from_rows(folder / "hmm.ppk"), ppk.Models.from_rows(folder / "kmers.ppk"), labels


@pytest.mark.parametrize("weights", [None, [0.75, 0.25], [2, 0]])
def test_combine_is_the_command_line_s(parts, ppk_tool, weights):
    folder, hmm, kmers, _ = parts
    options = [] if weights is None else ["--weights", ",".join(map(str, weights))]
    ppk_tool("combine", *options, folder / "hmm.ppk", folder / "kmers.ppk", "-o", folder / "combined.ppk")
    combined = ppk.combine([hmm, kmers], weights=weights)
    assert combined.to_rows() == (folder / "combined.ppk").read_bytes()
    np.testing.assert_array_equal(combined.labels, hmm.labels)
    w = [1.0, 1.0] if weights is None else [float(v) for v in weights]
    for kernel, scale in (("ppk", 1.0), ("ppk_norm", sum(w))):
        K = ppk.gram(combined, kernel=kernel, rho=0.5, T=6)
        expected = (w[0] * ppk.gram(hmm, kernel="ppk_norm", rho=0.5, T=6)
                    + w[1] * ppk.gram(kmers, kernel="ppk_norm", rho=0.5)) / scale
        np.testing.assert_allclose(K, expected, rtol=1e-12, atol=0)
        cli = np.loadtxt(ppk_tool("gram", "-t", kernel, "-g", 0.5, "-d", 6, folder / "combined.ppk").stdout.splitlines())
        np.testing.assert_array_equal(K, cli)
    assert np.linalg.eigvalsh(ppk.gram(combined, rho=0.5, T=6)).min() > -1e-12


def test_combine_errors_name_the_models_and_rows(parts):
    _, hmm, kmers, _ = parts
    with pytest.raises(ValueError, match=r"models\[0\]: 40 rows, but models\[1\]: 39 rows"):
        ppk.combine([hmm, kmers[:39]])
    relabelled = ppk.Models.from_rows(b"".join(
        (b"7" + line[line.index(b" "):] if i == 4 else line) + b"\n" for i, line in enumerate(kmers.to_rows().splitlines())))
    with pytest.raises(ValueError, match=r"models\[0\]: row 5 has the label 1, but models\[1\]: row 5 the label 7"):
        ppk.combine([hmm, relabelled])
    with pytest.raises(ValueError, match="weight 2 is -1: expected finite numbers >= 0"):
        ppk.combine([hmm, kmers], weights=[1, -1])
    with pytest.raises(ValueError, match=r"expected one weight per part \(2\), got 3"):
        ppk.combine([hmm, kmers], weights=[1, 1, 1])
    with pytest.raises(ValueError, match="two or more kinds of model"):
        ppk.combine([hmm])
    with pytest.raises(ValueError, match=r"models\[0\]: row 1: a combined row"):
        ppk.combine([ppk.combine([hmm, kmers]), kmers])
    with pytest.raises(TypeError, match="models must be a list of ppk.Models"):
        ppk.combine(hmm)
    with pytest.raises(TypeError, match=r"models\[1\] must be ppk.Models"):
        ppk.combine([hmm, "kmers.ppk"])
    with pytest.raises(TypeError, match="weights must be a list of numbers"):
        ppk.combine([hmm, kmers], weights="1,1")


def test_ppksvc_weights_reweight_training_and_test_rows(parts):
    _, hmm, kmers, y = parts
    combined = ppk.combine([hmm, kmers])
    train, test = np.arange(20), np.arange(20, 40)
    ours = PPKSVC(kernel="ppk_norm", rho=0.5, T=6, C=10, weights=[0.25, 0.75], random_state=1)
    ours.fit(combined[list(train)], y[train])
    reference = PPKSVC(kernel="ppk_norm", rho=0.5, T=6, C=10, random_state=1)
    reference.fit(ppk.combine([hmm, kmers], weights=[0.25, 0.75])[list(train)], y[train])
    np.testing.assert_array_equal(ours.decision_function(combined[list(test)]),
                                  reference.decision_function(ppk.combine([hmm, kmers], weights=[0.25, 0.75])[list(test)]))
    with pytest.raises(ValueError, match="not combined rows"):
        PPKSVC(weights=[1, 1]).fit(hmm, y)


def test_ppksvccv_weightings_are_those_of_a_search_over_ppksvc_weights(parts):
    """GridSearchCV cannot index ppk.Models: the same search by hand, PPKSVC(weights=...) fitted per cell
    and fold on the combined rows (every kernel computed again, by the LIBSVM plugin on the rows)."""
    _, hmm, kmers, y = parts
    combined = ppk.combine([hmm, kmers])
    cv = StratifiedKFold(4, shuffle=True, random_state=5)
    weightings = [(1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (2.0, 1.0)]
    ours = PPKSVCCV(kernels=["ppk", "ppk_norm"], rhos=[0.5, 1.0], Ts=[4, 11], Cs=[1.0, 10.0], weightings=weightings,
                    cv=cv, random_state=0).fit(combined, y)
    assert len(ours.cv_results_["params"]) == 64
    assert list(ours.cv_results_["param_weights"]) == [p["weights"] for p in ours.cv_results_["params"]]
    assert {p["weights"] for p in ours.cv_results_["params"]} == set(weightings)
    folds = list(cv.split(np.zeros((len(y), 1)), y))
    for k, params in enumerate(ours.cv_results_["params"]):
        for f, (train, test) in enumerate(folds):
            expected = PPKSVC(random_state=0, **params).fit(combined[train], y[train]).score(combined[test], y[test])
            assert ours.cv_results_[f"split{f}_test_score"][k] == expected, (params, f)
    scores = ours.cv_results_["mean_test_score"]
    assert scores.max() > scores.min()
    # The best estimator gives test rows the best weights itself: rows combined at 1, 1 predict as the
    # rows combined at the best weights do.
    best = ours.best_params_
    assert ours.best_estimator_.weights == best["weights"]
    reference = PPKSVC(random_state=0, **{**best, "weights": None}).fit(ppk.combine([hmm, kmers], weights=best["weights"]), y)
    np.testing.assert_array_equal(ours.decision_function(combined),
                                  reference.decision_function(ppk.combine([hmm, kmers], weights=best["weights"])))
