# ppk fit mi mixture: the diagonal mixture MI kernel (Seeger NIPS 2001, 2.2) with a mediator fitted
# by EM on unlabeled 2-D data; --save-mediator / --mediator-from give the same rows; the rows are mi
# rows (family 16) of K blocks; the patched svm-train / svm-predict run on them; rejected commands.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

# Two well-separated clusters around (-4, 0) and (4, 0): 200 unlabeled points, 20 training and
# 10 test points labeled by cluster.
python3 - <<'PY'
import random
random.seed(7)
def points(n, labeled):
    out = []
    for i in range(n):
        label = 1 if i % 2 == 0 else -1
        x, y = 4.0 * label + random.gauss(0, 1), random.gauss(0, 0.7)
        out.append(f"{label if labeled else 0} 1:{x:.6f} 2:{y:.6f}")
    return "\n".join(out) + "\n"
open("unlabeled.txt", "w").write(points(200, False))
open("train.txt", "w").write(points(20, True))
open("test.txt", "w").write(points(10, True))
PY

"$PPK" fit mi mixture --components 2 --lambda 5 --unlabeled unlabeled.txt --save-mediator mediator.json \
  train.txt -o train.ppk
[[ $(wc -l < train.ppk) == 20 ]] || fail "expected one row per training point: $(wc -l < train.ppk)"
pass
mapfile -t rows < train.ppk
[[ $(field "${rows[0]}" 2) == 16 && $(field "${rows[0]}" 3) == 2 ]] || fail "expected family 16 with K = 2: ${rows[0]}"
pass
python3 - mediator.json <<'PY' || fail "mediator.json: $(cat mediator.json)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["mediator"] == "mixture" and m["dim"] == 2 and m["lambda"] == 5, m
assert len(m["components"]) == 2
assert abs(sum(c["size"] for c in m["components"]) - 200) < 1e-9
PY
pass

# Without --components the mediator has one component per distinct label of INPUT: two here, and
# three when a third label appears (the points keep their places; only the labels change).
"$PPK" fit mi mixture --lambda 5 --unlabeled unlabeled.txt --save-mediator by-class.json train.txt -o by-class.ppk
cmp -s train.ppk by-class.ppk || fail "the default (classes: 2 labels) differs from --components 2"
pass
awk 'NR % 3 == 0 { $1 = 7 } { print }' train.txt > three-labels.txt
"$PPK" fit mi mixture --lambda 5 --unlabeled unlabeled.txt --save-mediator three.json three-labels.txt -o /dev/null
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); assert len(m["components"]) == 3, m' three.json ||
  fail "three labels gave $(cat three.json)"
pass

# The saved mediator gives the same rows, bit for bit.
"$PPK" fit mi mixture --mediator-from mediator.json train.txt -o again.ppk
cmp -s train.ppk again.ppk || fail "--mediator-from gave other rows: $(diff train.ppk again.ppk | head -3)"
pass
"$PPK" fit mi mixture --mediator-from mediator.json test.txt -o test.ppk

# The normalised kernel at rho = 1 is 1 on the diagonal; the clusters separate.
"$PPK" gram -t ppk_norm -g 1 train.ppk > norm.txt
python3 - norm.txt <<'PY' || fail "gram: $(head -3 norm.txt)"
import sys
gram = [[float(v) for v in line.split()] for line in open(sys.argv[1])]
labels = [1 if i % 2 == 0 else -1 for i in range(20)]
for i in range(20):
    assert abs(gram[i][i] - 1) < 1e-12, gram[i][i]
within = min(gram[i][j] for i in range(20) for j in range(20) if labels[i] == labels[j])
across = max(gram[i][j] for i in range(20) for j in range(20) if labels[i] != labels[j])
assert across < within, (within, across)
PY
pass

"$BIN/svm-train" -q -t ppk_norm -g 1 -c 10 train.ppk model.txt
"$BIN/svm-predict" test.ppk model.txt predictions.txt > accuracy.txt
grep -qF "Accuracy = 100% (10/10)" accuracy.txt || fail "svm-predict: $(cat accuracy.txt)"
pass

# Errors: bad options exit 2, bad mediator files or rows exit 1; nothing is written.
expect_error 2 "--components" -- "$PPK" fit mi mixture --components 0 --lambda 1 --unlabeled unlabeled.txt train.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "--components" "whole number or classes" -- "$PPK" fit mi mixture --components auto --lambda 1 \
  --unlabeled unlabeled.txt train.txt -o out.ppk
sed 's/^-1 /1 /' train.txt > one-label.txt
expect_error 2 "--components classes" "which has 1" -- "$PPK" fit mi mixture --lambda 1 --unlabeled unlabeled.txt \
  one-label.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "lambda" "> 0" -- "$PPK" fit mi mixture --components 2 --lambda 0 --unlabeled unlabeled.txt train.txt -o out.ppk
expect_error 2 "--lambda" -- "$PPK" fit mi mixture --components 2 --lambda -1 --unlabeled unlabeled.txt train.txt -o out.ppk
expect_no_output out.ppk
printf '1 1:0.5 2:0.1 3:2\n' > three.txt
expect_error 1 "three.txt" "dimension" -- "$PPK" fit mi mixture --mediator-from mediator.json three.txt -o out.ppk
expect_no_output out.ppk
"$PPK" fit mi gaussian --var 1 --lambda 1 --unlabeled unlabeled.txt --save-mediator gaussian.json train.txt -o /dev/null
expect_error 1 "gaussian.json" "mixture" -- "$PPK" fit mi mixture --mediator-from gaussian.json train.txt -o out.ppk
expect_no_output out.ppk
expect_error 1 "mediator.json" "gaussian" -- "$PPK" fit mi gaussian --mediator-from mediator.json train.txt -o out.ppk
expect_no_output out.ppk

finish
