"""ppk.gram against `ppk gram` on the same rows, and against the closed form of the Gaussian kernel."""

import math

import numpy as np
import pytest

import ppk


def rng_cases():
    rng = np.random.default_rng(7)
    sets = lambda n, d, draw: [draw((int(k), d)) for k in rng.integers(3, 8, size=n)]
    return {
        "gaussian": (rng.normal(size=(7, 3)), {"var": 0.5}),
        "bernoulli": ((rng.random((7, 6)) < 0.4).astype(float), {}),
        "multinomial": (rng.poisson(2.0, (7, 9)).astype(float), {"alpha": 0.5}),
        "poisson": (rng.poisson(2.0, (7, 4)).astype(float), {}),
        "exponential": (rng.exponential(1.0, (7, 4)) + 0.1, {}),
        "gamma": (sets(7, 3, lambda shape: rng.gamma(2.0, 1.0, shape) + 0.1), {}),
        "dirichlet": ([rng.dirichlet([1, 2, 3], 5) for _ in range(7)], {}),
        "mixture": (sets(7, 2, rng.normal), {"components": 2}),
        "kde": (sets(7, 2, rng.normal), {}),
        "hmm": ([rng.normal(size=(12, 2)) for _ in range(5)], {"states": 2}),
        "fhmm": ([rng.normal(size=(12, 2)) for _ in range(5)], {}),
        "lds": ([rng.normal(size=(12, 2)) for _ in range(5)], {"state_dim": 1}),
        "slds": ([rng.normal(size=(12, 2)) for _ in range(5)], {"state_dim": 1}),
    }


CASES = rng_cases()


def read_matrix(text):
    return np.array([[float(v) for v in line.split(" ")] for line in text.decode().splitlines()])


@pytest.mark.parametrize("family", sorted(CASES))
@pytest.mark.parametrize("kernel,rho", [("ppk", 0.5), ("ppk_norm", 1.0)])
def test_gram_equals_the_command_line(ppk_tool, tmp_path, family, kernel, rho):
    X, options = CASES[family]
    models = ppk.fit(family, X, **options)
    half = len(models) // 2
    a, b = models[:half], models[half:]
    (tmp_path / "all.ppk").write_bytes(models.to_rows())
    (tmp_path / "a.ppk").write_bytes(a.to_rows())
    (tmp_path / "b.ppk").write_bytes(b.to_rows())
    for matrix, files in [(ppk.gram(models, kernel=kernel, rho=rho), ["all.ppk"]),
                          (ppk.gram(a, b, kernel=kernel, rho=rho), ["a.ppk", "b.ppk"])]:
        expected = read_matrix(ppk_tool("gram", "-t", kernel, "-g", rho, *[tmp_path / f for f in files]).stdout)
        assert matrix.shape == expected.shape
        np.testing.assert_allclose(matrix, expected, rtol=1e-14, atol=0)


def test_gram_is_the_same_for_any_number_of_threads():
    X, options = CASES["hmm"]
    models = ppk.fit("hmm", X, **options)
    one = ppk.gram(models, rho=0.5, n_jobs=1)
    assert np.array_equal(one, ppk.gram(models, rho=0.5, n_jobs=2))
    assert np.array_equal(one, ppk.gram(models, rho=0.5, n_jobs=7))
    assert np.array_equal(one, one.T)


def test_gaussian_gram_equals_the_closed_form(rng):
    # Isotropic Gaussians N(mu, s2 I) in D dimensions (Jebara, Kondor & Howard, JMLR 2004, 3.1):
    # k_rho = (2 rho)^(-D/2) (2 pi s2)^((1 - 2 rho) D / 2) exp(-rho |mu - mu'|^2 / (4 s2)).
    means, s2, D = rng.normal(size=(6, 3)), 0.5, 3
    models = ppk.fit("gaussian", means, var=s2)  # one vector per example: its mean is the vector
    for rho in (0.5, 1.0, 2.0):
        K = ppk.gram(models, rho=rho)
        for i in range(6):
            for j in range(6):
                d2 = float(np.sum((means[i] - means[j]) ** 2))
                closed = ((2 * rho) ** (-D / 2) * (2 * math.pi * s2) ** ((1 - 2 * rho) * D / 2)
                          * math.exp(-rho * d2 / (4 * s2)))
                assert K[i, j] == pytest.approx(closed, rel=1e-13)
        normalised = ppk.gram(models, kernel="ppk_norm", rho=rho)
        np.testing.assert_allclose(np.diag(normalised), 1.0, rtol=0, atol=1e-15)


def test_sequence_kernels_take_T(rng):
    X, options = CASES["hmm"]
    models = ppk.fit("hmm", X, **options)
    assert not np.array_equal(ppk.gram(models, rho=1.0, T=3), ppk.gram(models, rho=1.0, T=5))


# The families ppk fit does not fit per example from arrays, as models written out (the CLI tests'
# models and variants of them).
JSON_FAMILIES = {
    "bayesnet": [
        '{"label":1,"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.3,0.7]]},{"states":2,"parents":[0],'
        '"variable":0,"cpt":[[0.9,0.1],[0.2,0.8]]},{"parents":[0],"variable":1,"emissions":[{"family":"multinomial",'
        '"p":[0.5,0.5]},{"family":"multinomial","p":[0.1,0.9]}]}]}',
        '{"label":2,"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.6,0.4]]},{"states":2,"parents":[0],'
        '"variable":0,"cpt":[[0.5,0.5],[0.25,0.75]]},{"parents":[0],"variable":1,"emissions":[{"family":"multinomial",'
        '"p":[0.3,0.7]},{"family":"multinomial","p":[0.8,0.2]}]}]}',
    ],
    "linear_gaussian": [
        '{"label":1,"family":"linear_gaussian","nodes":[{"dim":2,"offset":[1,-2],"cov":[[1,0.5],[0.5,2]]},'
        '{"dim":1,"parents":[0],"weights":[[0.5,3]],"offset":[0.25],"cov":[[0.75]],"observed":true}]}',
        '{"label":2,"family":"linear_gaussian","nodes":[{"dim":2,"offset":[0,1],"cov":[[2,0.1],[0.1,1]]},'
        '{"dim":1,"parents":[0],"weights":[[1,-1]],"offset":[0.5],"cov":[[1.5]],"observed":true}]}',
    ],
    "montecarlo": [
        '{"label":1,"family":"montecarlo","samples":7,"model":{"family":"poisson","rate":[1,4,0.5]}}',
        '{"label":2,"family":"montecarlo","samples":9,"model":{"family":"poisson","rate":[2,1,3]}}',
    ],
    "mi": [
        '{"label":1,"family":"mi","log_weights":[0.5,-1],"blocks":[{"family":"gaussian","mean":[1.0],"var":2.0},'
        '{"family":"dirichlet","alpha":[1,2]}]}',
        '{"label":2,"family":"mi","log_weights":[-0.5,0.25],"blocks":[{"family":"gaussian","mean":[-1.0],"var":0.5},'
        '{"family":"dirichlet","alpha":[3,1]}]}',
    ],
}


@pytest.mark.parametrize("family", sorted(JSON_FAMILIES))
def test_gram_of_written_models_equals_the_command_line(ppk_tool, tmp_path, family):
    models = ppk.Models.from_json("\n".join(JSON_FAMILIES[family]) + "\n")
    (tmp_path / "models.ppk").write_bytes(models.to_rows())
    for kernel in ("ppk", "ppk_norm"):
        expected = read_matrix(ppk_tool("gram", "-t", kernel, "-g", 1, tmp_path / "models.ppk").stdout)
        np.testing.assert_allclose(ppk.gram(models, kernel=kernel, rho=1.0), expected, rtol=1e-14, atol=0)
