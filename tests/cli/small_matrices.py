"""Dense matrices as lists of rows, for the command-line tests' oracles (imported; not a test itself).
Plain Python: the tests run where numpy is not installed."""


def mul(a, b):
    """The product a b."""
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def t(a):
    """The transpose of a."""
    return [list(row) for row in zip(*a)]


def inverse_and_det(a):
    """a^-1 and |a|, by Gauss-Jordan elimination with partial pivoting."""
    n = len(a)
    m = [list(row) + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    det = 1.0
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if p != c:
            m[c], m[p] = m[p], m[c]
            det = -det
        det *= m[c][c]
        pivot = m[c][c]
        m[c] = [v / pivot for v in m[c]]
        for r in range(n):
            if r != c:
                f = m[r][c]
                m[r] = [v - f * w for v, w in zip(m[r], m[c])]
    return [row[n:] for row in m], det
