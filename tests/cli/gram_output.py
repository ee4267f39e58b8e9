"""What the command-line tests share to check `ppk gram` output (imported; not a test itself)."""
import json
import math
import sys
from decimal import Decimal


def shortest(x):
    """x as std::to_chars writes it, and ppk with it: the fewest significant digits that read back
    as x (Python's repr finds them), in fixed or scientific notation, whichever is shorter (fixed on
    a tie); whole numbers below 10^15 always fixed."""
    digits = Decimal(repr(x)).normalize()
    if digits == digits.to_integral_value() and abs(x) < 1e15:
        return "%d" % x
    sign, mantissa, exponent = digits.as_tuple()
    mantissa = "".join(map(str, mantissa))
    power = exponent + len(mantissa) - 1
    scientific = ("-" if sign else "") + mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "") + \
        "e%s%02d" % ("-" if power < 0 else "+", abs(power))
    fixed = format(digits, "f")
    return fixed if len(fixed) <= len(scientific) else scientific


def read_gram(path, rows, cols):
    """The matrix `ppk gram` wrote to `path`, checked to be exactly its documented format: `rows`
    lines, each of `cols` values separated by single spaces, every value in the fewest digits that read back as the same double
    (std::to_chars), and a final newline."""
    text = open(path).read()
    assert text.endswith("\n"), "no final newline"
    lines = text[:-1].split("\n")
    assert len(lines) == rows, f"{len(lines)} rows, expected {rows}"
    matrix = []
    for line in lines:
        tokens = line.split(" ")  # single spaces: no empty tokens
        assert len(tokens) == cols, f"{len(tokens)} columns, expected {cols}: {line!r}"
        for t in tokens:
            assert t == shortest(float(t)), f"{t} is not {shortest(float(t))}, its shortest form"
        matrix.append([float(t) for t in tokens])
    return matrix


def expect_kernels(matrix, rows, cols, log_kernel, normalised, tolerance):
    """K[i][j] against exp(log_kernel(rows[i], cols[j])) -- divided by the square root of both
    self-kernels when `normalised` -- to the relative `tolerance`."""
    for i, p in enumerate(rows):
        for j, q in enumerate(cols):
            log_k = log_kernel(p, q)
            if normalised:
                log_k -= 0.5 * (log_kernel(p, p) + log_kernel(q, q))
            expected = math.exp(log_k)
            got = matrix[i][j]
            assert abs(got - expected) <= tolerance * expected, f"K[{i}][{j}] = {got!r}, expected {expected!r}"


def check_gram_arguments():
    """The arguments of a test's check_gram, GRAM_FILE RHO NORMALISED MODELS: the Gram's path, rho,
    whether the Gram is ppk_norm's (NORMALISED is "1"), and the models of the JSON-lines file MODELS."""
    gram_path, rho, normalised, models_path = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
    return gram_path, rho, normalised, [json.loads(line) for line in open(models_path)]
