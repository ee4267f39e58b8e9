"""ppk.fit against `ppk fit`: the same rows, byte for byte, from the same numbers."""

import logging

import numpy as np
import pytest
import scipy.sparse

import ppk
from conftest import write_rows


def cli_rows(ppk_tool, tmp_path, family, X, y, *options):
    data = write_rows(tmp_path / "data.txt", X, y)
    return ppk_tool("fit", family, *options, data).stdout


def test_multinomial_rows_equal_the_command_line(ppk_tool, tmp_path, rng):
    X = rng.poisson(1.5, size=(30, 12)).astype(float)
    X[:, -1] = 0  # an empty last column: the dimension is still X's 12 columns
    y = rng.integers(0, 3, size=30)
    models = ppk.fit("multinomial", X, y, alpha=0.5)
    assert models.to_rows() == cli_rows(ppk_tool, tmp_path, "multinomial", X, y, "--alpha", "0.5", "--dim", "12")
    assert len(models) == 30
    np.testing.assert_array_equal(models.labels, y)
    # A CSR matrix of the same counts gives the same rows.
    assert ppk.fit("multinomial", scipy.sparse.csr_matrix(X), y, alpha=0.5).to_rows() == models.to_rows()


def test_bernoulli_rows_equal_the_command_line(ppk_tool, tmp_path, rng):
    X = (rng.random((25, 8)) < 0.3).astype(float)
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    models = ppk.fit("bernoulli", X, y)
    assert models.to_rows() == cli_rows(ppk_tool, tmp_path, "bernoulli", X, y, "--dim", "8")


def test_gaussian_rows_equal_the_command_line_without_losing_digits(ppk_tool, tmp_path, rng):
    # Sets of vectors (qid groups) with values whose shortest decimal has 17 digits.
    X = [rng.normal(size=(int(n), 3)) * 1e-3 + 1 / 3 for n in rng.integers(4, 9, size=10)]
    y = np.arange(10.0)
    for options, words in [({}, []), ({"cov": "diag"}, ["--cov", "diag"]), ({"var": 0.25}, ["--var", "0.25"])]:
        models = ppk.fit("gaussian", X, y, **options)
        assert models.to_rows() == cli_rows(ppk_tool, tmp_path, "gaussian", X, y, "--dim", "3", *words)


def test_hmm_rows_on_qid_groups_equal_the_command_line(ppk_tool, tmp_path, rng):
    X = [np.cumsum(rng.normal(size=(int(n), 2)), axis=0) for n in rng.integers(12, 20, size=6)]
    y = [1, 1, 2, 2, 3, 3]
    models = ppk.fit("hmm", X, y, states=2, restarts=2)
    expected = cli_rows(ppk_tool, tmp_path, "hmm", X, y, "--states", "2", "--restarts", "2", "--dim", "2")
    assert models.to_rows() == expected
    assert [model["family"] for model in models] == ["hmm"] * 6


def test_threads_do_not_change_the_rows(rng):
    X = [rng.normal(size=(10, 2)) for _ in range(8)]
    assert ppk.fit("hmm", X, states=2, threads=1).to_rows() == ppk.fit("hmm", X, states=2, threads=2).to_rows()


def test_a_sequence_of_numbers_is_a_sequence_of_one_dimensional_vectors(rng):
    series = [rng.normal(size=n) for n in (5, 7, 9)]
    columns = [s.reshape(-1, 1) for s in series]
    assert ppk.fit("gaussian", series).to_rows() == ppk.fit("gaussian", columns).to_rows()


def test_what_a_fit_chose_is_logged_not_printed(rng, caplog, capfd):
    """ppk fit's notes on standard error become records of the logger "ppk" (level INFO)."""
    sequences = [np.cumsum(rng.normal(size=(n, 2)), axis=0) for n in (30, 40, 35, 45)]
    with caplog.at_level(logging.INFO, logger="ppk"):
        ppk.fit("hmm", sequences, states=2)
    assert any("prior-count" in record.getMessage() and "chosen by" in record.getMessage() for record in caplog.records)
    assert "prior-count" not in capfd.readouterr().err


@pytest.mark.parametrize("likelihood, options, data", [
    ("gaussian", {"var": 2.0, "lambda": 5.0}, lambda rng: rng.normal(size=(12, 3))),
    ("multinomial", {"prior_alpha": 0.5}, lambda rng: rng.poisson(2.0, size=(12, 4)).astype(float)),
])
def test_mi_rows_equal_the_command_line(ppk_tool, tmp_path, rng, likelihood, options, data):
    """ppk.fit("mi", X, likelihood=..., unlabeled=U) is ppk fit mi LIKELIHOOD --unlabeled U.txt; the
    mediator saved with it makes a test file's rows as --mediator-from does."""
    X, U, X_test = data(rng), data(rng), data(rng)
    y = rng.integers(0, 2, len(X))
    write_rows(tmp_path / "X.txt", X, y)
    write_rows(tmp_path / "U.txt", U, np.zeros(len(U)))
    write_rows(tmp_path / "test.txt", X_test, np.zeros(len(X_test)))
    flags = [w for name, value in options.items() for w in ("--" + name.replace("_", "-"), value)]
    expected = ppk_tool("fit", "mi", likelihood, *flags, "--dim", X.shape[1], "--unlabeled", tmp_path / "U.txt",
                        "--save-mediator", tmp_path / "mediator.json", tmp_path / "X.txt").stdout
    models = ppk.fit("mi", X, y, likelihood=likelihood, unlabeled=U, save_mediator=str(tmp_path / "ours.json"),
                     **options)
    assert models.to_rows() == expected
    assert (tmp_path / "ours.json").read_bytes() == (tmp_path / "mediator.json").read_bytes()
    assert ppk.fit("mi", X, y, likelihood=likelihood, unlabeled=tmp_path / "U.txt", **options).to_rows() == expected
    test_rows = ppk_tool("fit", "mi", likelihood, "--mediator-from", tmp_path / "mediator.json",
                         tmp_path / "test.txt").stdout
    ours = ppk.fit("mi", X_test, likelihood=likelihood, mediator_from=str(tmp_path / "ours.json"))
    assert ours.to_rows() == test_rows
    with pytest.raises(ValueError, match="likelihood"):
        ppk.fit("mi", X)


def test_fits_in_two_python_threads_at_once_give_each_fit_its_own_rows(rng):
    """ppk.fit releases the GIL and holds no lock of its own: two threads fitting at once (with their
    notes logged from both) get the rows each gets alone."""
    import threading

    data = {name: [np.cumsum(rng.normal(size=(int(n), 2)), axis=0) for n in rng.integers(20, 30, size=6)]
            for name in ("a", "b")}
    alone = {name: ppk.fit("hmm", X, states=2, threads=1).to_rows() for name, X in data.items()}
    together = {}

    def fit(name):
        for _ in range(3):
            rows = ppk.fit("hmm", data[name], states=2, threads=1).to_rows()
            together.setdefault(name, set()).add(rows)

    workers = [threading.Thread(target=fit, args=(name,)) for name in data]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert together == {name: {rows} for name, rows in alone.items()}


def test_notes_reach_the_logger_while_the_fit_runs(rng, tmp_path):
    """Each note is passed on as ppk fit writes it, from inside the fit: a handler that raises stops
    the fit with its own exception before the fit writes its pool file (which it writes once every
    example fits), and the next fit runs as before."""
    sequences = [np.cumsum(rng.normal(size=(n, 2)), axis=0) for n in (30, 40, 35, 45)]

    class Stop(Exception):
        pass

    class Raising(logging.Handler):
        def emit(self, record):
            raise Stop(record.getMessage())

    logger = logging.getLogger("ppk")
    handler, level = Raising(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with pytest.raises(Stop, match="ppk fit hmm: note: X:1 is a qid-grouped LIBSVM row"):
            ppk.fit("hmm", sequences, states=2, save_pooled=str(tmp_path / "pool.json"))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert not (tmp_path / "pool.json").exists()
    assert len(ppk.fit("hmm", sequences, states=2, save_pooled=str(tmp_path / "pool.json"))) == 4
    assert (tmp_path / "pool.json").exists()


def test_save_pooled_and_pooled_from_are_files_as_on_the_command_line(ppk_tool, tmp_path, rng):
    """ppk.fit(..., save_pooled=PATH) writes ppk fit --save-pooled's file; pooled_from=PATH reads it."""
    y = rng.integers(0, 2, size=20)
    topics = rng.dirichlet(np.full(6, 0.3), size=2)  # two topics: counts more dispersed than the pooled base's
    X = np.array([rng.multinomial(40, topics[label]) for label in y], dtype=float)
    data = write_rows(tmp_path / "data.txt", X, y)
    ppk_tool("fit", "multinomial", "--alpha", "evidence", "--dim", 6, data, "--save-pooled", tmp_path / "cli.json")
    ppk.fit("multinomial", X, y, alpha="evidence", save_pooled=str(tmp_path / "ours.json"))
    import json
    cli, ours = (json.loads((tmp_path / name).read_text()) for name in ("cli.json", "ours.json"))
    assert ours.pop("source") == "X" and cli.pop("source") == str(data)
    assert ours == cli
    test_rows = ppk_tool("fit", "multinomial", "--alpha", "evidence", "--pooled-from", tmp_path / "cli.json", "--dim", 6,
                         data).stdout
    assert ppk.fit("multinomial", X, y, alpha="evidence", pooled_from=str(tmp_path / "cli.json")).to_rows() == test_rows
