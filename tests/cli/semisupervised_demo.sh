#!/usr/bin/env bash
# The semi-supervised demo (examples/semisupervised.py, Seeger 2001 section 3.1) at a reduced scale:
# the learning-curve table has its shape, and with 4 labelled points the diagonal mixture MI kernel,
# whose mediator saw the 500 unlabeled points, beats LIBSVM's RBF kernel on the same runs and comes
# close to the Bayes error (2.64%), which no kernel can beat by more than chance.
source "$(dirname "$0")/lib.bash" "$@"
examples=$(cd "$(dirname "$0")/../../examples" && pwd)

python3 "$examples/semisupervised.py" --bin "$(dirname "$PPK")" --sizes 4,8 --runs 10 --lambdas 30 \
  --costs 1,10 --out curves.tsv
[[ $(wc -l < curves.tsv) -eq 3 ]] || fail "expected a header and 2 sizes, got: $(cat curves.tsv)"
head -n 1 curves.tsv | grep -qF 'MI kernel' || fail "no MI column: $(head -n 1 curves.tsv)"
pass
awk -F'\t' 'NR > 1 { for (i = 2; i <= 5; ++i) if ($i !~ /^[0-9.]+$/ || $i > 1) exit 1 }' curves.tsv ||
  fail "errors and half-widths must be numbers in [0, 1]: $(cat curves.tsv)"
pass
# size 4: MI error below the RBF error, and below 5% (the Bayes error is 2.64%; 10 runs x 500 points).
awk -F'\t' '$1 == 4 { exit !($2 < $4 && $2 < 0.05) }' curves.tsv ||
  fail "with 4 labelled points the MI kernel should beat RBF and stay below 5%: $(cat curves.tsv)"
pass
finish
