#!/usr/bin/env bash
# The model loader's cost before and after libsvm-patch/06 (the checked loader), in one run:
# svm-predict of one row with a 100,000-support-vector RBF model (13 features, 2 classes, 20 MB),
# the project's patched svm-predict against the distribution's unpatched LIBSVM 3.24
# (/usr/bin/svm-predict, package libsvm-tools). Nearly all of the time is svm_load_model: reading
# and checking the file. Prints the median CPU time (user + system) of $REPEAT runs of each, and
# their ratio. Usage: bench/model_loader.sh BUILD_DIR [UNPATCHED_SVM_PREDICT]
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [UNPATCHED_SVM_PREDICT]}" && pwd)
unpatched=${2:-/usr/bin/svm-predict}
REPEAT=${REPEAT:-7}
work="$build/bench-model-loader"
mkdir -p "$work"
cd "$work"

# A model file as svm-train writes it (%.17g coefficients, %.8g values), 50,000 support vectors per
# class; seeded, so every run reads the same bytes.
/usr/bin/python3 - <<'PY'
import random
rng = random.Random(1)
n, dim = 100000, 13
with open("big.model", "w") as out:
    out.write("svm_type c_svc\nkernel_type rbf\ngamma 0.076923076923076927\nnr_class 2\n"
              f"total_sv {n}\nrho 0.42\nlabel 1 -1\nnr_sv {n // 2} {n // 2}\nSV\n")
    for i in range(n):
        coef = rng.uniform(0, 1) * (1 if i < n // 2 else -1)
        out.write("%.17g " % coef + " ".join("%d:%.8g" % (j + 1, rng.uniform(-1, 1)) for j in range(dim)) + " \n")
with open("row.txt", "w") as out:
    out.write("1 " + " ".join("%d:0.5" % (j + 1) for j in range(dim)) + "\n")
PY

median_cpu() {  # command... -> median of REPEAT user+system CPU seconds
  for _ in $(seq "$REPEAT"); do
    /usr/bin/python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (u.ru_utime + u.ru_stime))' "$@"
  done | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

after=$(median_cpu "$build/bin/svm-predict" row.txt big.model out)
before=$(median_cpu "$unpatched" row.txt big.model out)
echo "svm-predict, one row, 100,000-support-vector RBF model ($(du -h big.model | cut -f1)): median CPU of $REPEAT runs"
printf '%-44s %8ss\n' "patched (06: checked loader)" "$after" "unpatched ($unpatched)" "$before"
awk -v a="$after" -v b="$before" 'BEGIN { printf "after / before: %.3f\n", a / b }'
