"""Checks of `ppk map` output against `ppk gram` (run by tests/cli/map.sh; not a test itself).

  python3 feature_maps.py inner FEATURES GRAM TOL            <phi_i, phi_j> = K_ij
  python3 feature_maps.py sparse FEATURES GRAM ROWS RHO TOL  <psi_i, psi_j> = K_ij + g_i g_j
  python3 feature_maps.py bound FEATURES GRAM ROWS KIND TOL  the sparse map within its bound of K
  python3 feature_maps.py route ROWS                         the route ppk map takes without --map
  python3 feature_maps.py unit FEATURES TOL                  |phi_i| = 1
  python3 feature_maps.py error FEATURES GRAM                prints |K - Phi Phi'|_F / |K|_F

Every difference is relative to sqrt(K_ii K_jj), the scale Cauchy-Schwarz gives K_ij. Exits 1 with
the worst pair on a failed check.
"""
import math
import sys

import numpy as np


def read_features(path):
    """The rows 'LABEL i:v ...' of `path` as a dense matrix (1-based indices), checked to be LIBSVM
    rows: increasing indices, every value finite, normal and non-zero."""
    rows = []
    width = 0
    for number, line in enumerate(open(path), 1):
        tokens = line.split()
        float(tokens[0])
        entries = {}
        previous = 0
        for token in tokens[1:]:
            index, value = token.split(":")
            index, value = int(index), float(value)
            assert index > previous, f"{path}:{number}: index {index} after {previous}"
            assert math.isfinite(value) and value != 0.0, f"{path}:{number}: value {value}"
            assert abs(value) >= sys.float_info.min, f"{path}:{number}: subnormal {value}"
            entries[index] = value
            previous = index
        width = max(width, previous)
        rows.append(entries)
    phi = np.zeros((len(rows), width))
    for i, entries in enumerate(rows):
        for index, value in entries.items():
            phi[i, index - 1] = value
    return phi


def read_matrix(path):
    return np.array([[float(t) for t in line.split()] for line in open(path)])


def scale(gram):
    diagonal = np.sqrt(np.abs(np.diag(gram)))
    return np.outer(diagonal, diagonal)


def check(approximation, gram, tolerance, what):
    relative = np.abs(approximation - gram) / scale(gram)
    i, j = np.unravel_index(np.argmax(relative), relative.shape)
    if relative[i, j] > tolerance:
        print(f"{what}: pair ({i + 1}, {j + 1}): {approximation[i, j]!r} vs K = {gram[i, j]!r}, "
              f"relative difference {relative[i, j]:.3g} > {tolerance}", file=sys.stderr)
        sys.exit(1)


def multinomial_rows(rows_path):
    """(D, base b, listed a_d) of each uniform-base multinomial row, read from the row's own fields
    (3: D, 6: base b, 7..6+D: listed a_d)."""
    rows = []
    for line in open(rows_path):
        fields = {int(t.split(":")[0]): float(t.split(":")[1]) for t in line.split()[1:]}
        dim = int(fields[3])
        rows.append((dim, fields.get(6, 0.0), [fields[k] for k in range(7, 7 + dim) if k in fields]))
    return rows


def rank_one_term(rows_path, rho):
    """g_i = <beta, u_i> / |beta| = U_i / sqrt(D) of each uniform-base multinomial row: U = sum over
    listed d of a_d^rho - b^rho."""
    return np.array([sum(a ** rho - base ** rho for a in listed) / math.sqrt(dim)
                     for dim, base, listed in multinomial_rows(rows_path)])


def check_bound(psi, gram, rows_path, kind, tolerance):
    """The bound of docs/feature-maps.md on the sparse map of rows whose listed a_d are >= the base:
    with f_i = L_i / D the share of the words row i lists, 0 <= <psi_i, psi_j> - K_ij <= sqrt(f_i f_j)
    sqrt(K_ii K_jj) for ppk and |<psi_i, psi_j> - K_ij| <= (f_i + f_j) / 2 for ppk_norm (K of unit
    diagonal, psi of unit rows); tolerance relative to sqrt(K_ii K_jj). Also: row i has features on
    at most its L_i words and one more, and the bound is tested, not vacuous."""
    rows = multinomial_rows(rows_path)
    assert all(a >= base for _, base, listed in rows for a in listed), "a listed a_d below the base"
    f = np.array([len(listed) / dim for dim, _, listed in rows])
    for i, (dim, _, listed) in enumerate(rows):
        nonzero = np.count_nonzero(psi[i])
        if nonzero > len(listed) + 1:
            sys.exit(f"row {i + 1}: {nonzero} features, more than its {len(listed)} words and one")
    difference = (psi @ psi.T - gram) / scale(gram)
    if kind == "ppk":
        low, high = np.zeros_like(difference), np.sqrt(np.outer(f, f))
    else:
        high = (f[:, None] + f[None, :]) / 2
        low = -high
    outside = np.maximum(low - tolerance - difference, difference - high - tolerance)
    i, j = np.unravel_index(np.argmax(outside), outside.shape)
    if outside[i, j] > 0:
        sys.exit(f"pair ({i + 1}, {j + 1}): <psi, psi'> - K = {difference[i, j]!r} (relative) outside "
                 f"[{low[i, j]!r}, {high[i, j]!r}]")
    if np.max(np.abs(difference)) < 1e3 * tolerance:
        sys.exit("<psi, psi'> is K itself here: the rows do not test the sparse map's bound")
    if np.max(high) > 0.5:  # the trivial bound is 1 (Cauchy-Schwarz)
        sys.exit(f"the bound reaches {np.max(high)}: too loose here to test the map")


def default_route(rows_path):
    """The rule of docs/feature-maps.md for uniform-base multinomial rows, from the first 4096 rows'
    fields: rows without a base (b = 0) exact; smoothed rows sparse when D rows x D features are at
    least 4 times the sum of (L + 1) over the rows, else exact. Other rows (bernoulli): exact."""
    first = {int(t.split(":")[0]): float(t.split(":")[1]) for t in open(rows_path).readline().split()[1:]}
    if first[2] != 3:
        return "exact"  # not multinomial rows (field 2, the family, is 3 for a multinomial)
    rows = multinomial_rows(rows_path)[:4096]
    if rows[0][1] == 0.0:
        return "exact"
    dense = sum(dim for dim, _, _ in rows)
    sparse = sum(len(listed) + 1 for _, _, listed in rows)
    return "sparse" if dense >= 4 * sparse else "exact"


def main(argv):
    command = argv[1]
    if command == "inner":
        phi, gram = read_features(argv[2]), read_matrix(argv[3])
        check(phi @ phi.T, gram, float(argv[4]), "inner products")
    elif command == "sparse":
        psi, gram = read_features(argv[2]), read_matrix(argv[3])
        g = rank_one_term(argv[4], float(argv[5]))
        check(psi @ psi.T, gram + np.outer(g, g), float(argv[6]), "sparse map's inner products")
        # The check tells the two apart only where the rank-one term is well above the tolerance.
        if np.max(np.abs(np.outer(g, g)) / scale(gram)) < 1e3 * float(argv[6]):
            sys.exit("the rank-one term g g' is too small here to tell the sparse map from the exact one")
    elif command == "bound":
        check_bound(read_features(argv[2]), read_matrix(argv[3]), argv[4], argv[5], float(argv[6]))
    elif command == "route":
        print(default_route(argv[2]))
    elif command == "unit":
        phi = read_features(argv[2])
        norms = np.sqrt(np.sum(phi * phi, axis=1))
        worst = int(np.argmax(np.abs(norms - 1.0)))
        if abs(norms[worst] - 1.0) > float(argv[3]):
            print(f"row {worst + 1} has norm {norms[worst]!r}", file=sys.stderr)
            sys.exit(1)
    elif command == "error":
        phi, gram = read_features(argv[2]), read_matrix(argv[3])
        print("%.6e" % (np.linalg.norm(gram - phi @ phi.T) / np.linalg.norm(gram)))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
