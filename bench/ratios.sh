#!/usr/bin/env bash
# Wall-time ratios of svm-train, all in one run on the same data and machine:
#   1. ppk, isotropic Gaussians N(x, s I) at rho = 1  vs  LIBSVM RBF (-t 2) on x with
#      gamma = 1/(4s) and C scaled by the kernel's constant (identical solver path); then
#      svm-predict of the 4000 rows with the two models (the same support vectors);
#   2. ppk, multinomial Bhattacharyya (rho = 1/2)  vs  LIBSVM linear (-t 0) on sqrt(p);
#   3. ppk_norm, full-covariance Gaussians: 1 thread vs 2 threads (OMP_NUM_THREADS);
#   4. HMMs on DNA-like sequences: ppk fit hmm and svm-train, 1 thread vs 2 threads;
#   5. the same HMMs written as Bayesian networks vs as hmm rows (ppk gram), and a Gram of networks
#      over 60 aligned positions, 1 thread vs 2 threads.
# Each time is the best of $REPEAT runs. Usage: bench/ratios.sh BUILD_DIR
source "$(dirname "$0")/lib.bash" bench-ratios BUILD_DIR "$@"
REPEAT=${REPEAT:-3}

best_time() {  # command... -> best wall time in seconds
  local best="" t
  for _ in $(seq "$REPEAT"); do
    t=$( { TIMEFORMAT=%R; time "$@" > /dev/null 2>&1; } 2>&1 )
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
report() { printf '%-58s %8ss %8ss %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

# 1. Gaussians vs RBF: D = 10, s = 0.5, so gamma = 0.5 and c = (4 pi s)^(-D/2) = (2 pi)^-5.
python3 "$here/make_points.py" --n 4000 --dim 10 > points.txt
"$bin/ppk" fit gaussian --var 0.5 points.txt -o points.ppk
C_scaled=$(awk 'BEGIN { printf "%.17g", 1.0 / (2 * 3.14159265358979323846) ^ -5 }')

# 2. Multinomials vs linear on square roots, unsmoothed so both are equally sparse.
python3 "$here/../examples/make_documents.py" --seed 2 --n-train 4000 --n-test 1 --train docs.txt --test /dev/null
"$bin/ppk" fit multinomial --alpha 0 docs.txt -o docs.ppk
awk '{ n = 0; for (i = 2; i <= NF; i++) { split($i, f, ":"); n += f[2] }
       printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, f, ":"); printf " %s:%.17g", f[1], sqrt(f[2] / n) } print "" }' \
  docs.txt > docs.sqrt

# 3. Kernel-bound training: 2500 point sets of 16 vectors in 8 dimensions, a full-covariance
#    Gaussian each (each kernel value factorises an 8 x 8 matrix).
python3 "$here/make_points.py" --n 2500 --dim 8 --group 16 > sets.txt
"$bin/ppk" fit gaussian --cov full sets.txt -o sets.ppk

threads=${OMP_NUM_THREADS:-1}
echo "svm-train wall time, best of $REPEAT (OMP_NUM_THREADS=$threads for 1 and 2)"
printf '%-58s %9s %9s %8s\n' comparison ppk LIBSVM ratio
export OMP_NUM_THREADS=$threads
report "Gaussian rho=1 (4000 x D=10) vs RBF" \
  "$(best_time "$bin/svm-train" -t ppk -g 1 -c "$C_scaled" points.ppk m)" \
  "$(best_time "$bin/svm-train" -t 2 -g 0.5 -c 1 points.txt m)"
"$bin/svm-train" -q -t ppk -g 1 -c "$C_scaled" points.ppk m_points_ppk
"$bin/svm-train" -q -t 2 -g 0.5 -c 1 points.txt m_points_rbf
report "svm-predict, those models on the 4000 rows" \
  "$(best_time "$bin/svm-predict" points.ppk m_points_ppk out)" \
  "$(best_time "$bin/svm-predict" points.txt m_points_rbf out)"
report "multinomial Bhattacharyya (4000 docs) vs linear on sqrt" \
  "$(best_time "$bin/svm-train" -t ppk -g 0.5 -c 10 docs.ppk m)" \
  "$(best_time "$bin/svm-train" -t 0 -c 10 docs.sqrt m)"
printf '%-58s %9s %9s %8s\n' "" "1 thread" "2 threads" speed-up
one=$(OMP_NUM_THREADS=1 best_time "$bin/svm-train" -t ppk_norm -g 0.5 -c 10 sets.ppk m)
two=$(OMP_NUM_THREADS=2 best_time "$bin/svm-train" -t ppk_norm -g 0.5 -c 10 sets.ppk m)
printf '%-58s %8ss %8ss %8s\n' "ppk_norm full-covariance Gaussians (2500 x D=8)" "$one" "$two" "$(ratio "$one" "$two")"

# 4. HMMs (JMLR 2004 section 8.2): 1000 DNA-like sequences, a 2-state HMM fitted to each by
#    Baum-Welch, ppk_norm at rho = 1 over T = 9; fitting and training on 1 and 2 threads.
python3 "$here/../examples/make_sequences.py" --n 1000 --seed 3 > dna.txt
fit_one=$(best_time "$bin/ppk" fit hmm --states 2 --threads 1 dna.txt -o dna.ppk)
fit_two=$(best_time "$bin/ppk" fit hmm --states 2 --threads 2 dna.txt -o dna.ppk)
printf '%-58s %8ss %8ss %8s\n' "ppk fit hmm, 2 states (1000 DNA-like sequences)" "$fit_one" "$fit_two" "$(ratio "$fit_one" "$fit_two")"
one=$(OMP_NUM_THREADS=1 best_time "$bin/svm-train" -t ppk_norm -g 1 -d 9 -c 10 dna.ppk m)
two=$(OMP_NUM_THREADS=2 best_time "$bin/svm-train" -t ppk_norm -g 1 -d 9 -c 10 dna.ppk m)
printf '%-58s %8ss %8ss %8s\n' "svm-train ppk_norm HMMs, T = 9 (1000 sequences)" "$one" "$two" "$(ratio "$one" "$two")"

# 5. Bayesian networks on the structure the HMM family specialises (JMLR 2004 sections 4.2, 4.3): 300
#    of those sequences' 4-state HMMs as hmm rows at T = 60 (-d 60), and the same HMMs written as the
#    networks s_0 -> .. -> s_60, s_t -> x_t (bayesnet rows); ppk gram of each on 1 thread (the two
#    Grams agree to 1e-12, checked here). Then a network over positions: 2000 aligned 60-base
#    sequences, a chain x_0 -> .. -> x_59 with a CPT per position fitted to each (ppk fit bayesnet),
#    its ppk_norm Gram.
head -300 dna.txt > dna300.txt
"$bin/ppk" fit hmm --states 4 --threads 2 dna300.txt -o dna300.ppk 2> /dev/null
"$bin/ppk" decode dna300.ppk | python3 -c '
import json, sys
steps = 60
for line in sys.stdin:
    h = json.loads(line)
    nodes = []
    for t in range(steps + 1):
        hidden = {"states": len(h["start"]), "cpt": [h["start"]] if t == 0 else h["trans"]}
        if t > 0:
            hidden["parents"] = [2 * t - 2]
        nodes += [hidden, {"parents": [2 * t], "variable": t, "emissions": h["emissions"]}]
    print(json.dumps({"label": h["label"], "family": "bayesnet", "nodes": nodes}))' | "$bin/ppk" encode -o dna300.net
hmm_gram=$(OMP_NUM_THREADS=1 best_time "$bin/ppk" gram -t ppk -g 0.5 -d 60 dna300.ppk -o gram.hmm)
net_gram=$(OMP_NUM_THREADS=1 best_time "$bin/ppk" gram -t ppk -g 0.5 dna300.net -o gram.net)
OMP_NUM_THREADS=1 "$bin/ppk" gram -t ppk -g 0.5 -d 60 dna300.ppk -o gram.hmm
OMP_NUM_THREADS=1 "$bin/ppk" gram -t ppk -g 0.5 dna300.net -o gram.net
paste -d' ' gram.hmm gram.net | awk '{ n = NF / 2; for (i = 1; i <= n; i++) { d = $i - $(i + n); if (d < 0) d = -d
  if (d > 1e-12 * $i) { print "the network Gram differs from the HMM Gram at row " NR; exit 1 } } }'
printf '%-58s %9s %9s %8s\n' "" bayesnet hmm ratio
report "ppk gram, 300 HMMs (4 states, T = 60): networks vs hmm rows" "$net_gram" "$hmm_gram"
python3 - <<'PY'
import json, random
r = random.Random(11)
with open("positions.txt", "w") as f:
    for i in range(2000):
        x, bases = r.randrange(4), []
        for t in range(60):
            x = x if t and r.random() < 0.3 else r.randrange(4)
            bases.append(x + 1)
        f.write("%d %s\n" % (1 if i % 2 else -1, " ".join("%d:%d" % (t + 1, v) for t, v in enumerate(bases))))
nodes = [{"states": 4, "variable": 0}] + [{"states": 4, "parents": [t - 1], "variable": t} for t in range(1, 60)]
json.dump({"nodes": nodes}, open("chain.json", "w"))
PY
"$bin/ppk" fit bayesnet --structure chain.json positions.txt -o positions.ppk
one=$(OMP_NUM_THREADS=1 best_time "$bin/ppk" gram -t ppk_norm -g 0.5 positions.ppk -o gram.positions)
two=$(OMP_NUM_THREADS=2 best_time "$bin/ppk" gram -t ppk_norm -g 0.5 positions.ppk -o gram.positions)
printf '%-58s %9s %9s %8s\n' "" "1 thread" "2 threads" speed-up
printf '%-58s %8ss %8ss %8s\n' "ppk gram ppk_norm, 2000 60-position chains (bayesnet)" "$one" "$two" "$(ratio "$one" "$two")"
