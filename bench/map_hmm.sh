#!/usr/bin/env bash
# Nystrom maps of HMM rows at scale: the sequences demo's generator (examples/make_sequences.py, two
# classes of DNA-like sequences of 50 to 500 bases) at n = $N training sequences (default 10^5) and
# 2,000 test sequences; ppk fit hmm --states 2 per sequence; ppk map -t ppk_norm -g 1 -d 9
# --map nystrom --landmarks $M (default 256); liblinear-train -s 3 -B 1 -c 10. Each step's wall time
# and peak memory (GNU time), and the test accuracy. The kernel SVM at this n is out of reach (the
# documents took more than 10 minutes at 10^5: bench/map_scaling.sh). Usage: bench/map_hmm.sh BUILD_DIR
source "$(dirname "$0")/lib.bash" bench-map-hmm BUILD_DIR "$@"
N=${N:-100000}
M=${M:-256}
rm -f steps.txt

[[ -s all_$N.txt ]] || python3 "$here/../examples/make_sequences.py" --seed 1 --n $((N + 2000)) > all_$N.txt
head -n "$N" all_$N.txt > train.txt
tail -n 2000 all_$N.txt > test.txt
timed fit "$bin/ppk" fit hmm --states 2 --alphabet ACGT --seed 1 train.txt -o train.ppk
"$bin/ppk" fit hmm --states 2 --alphabet ACGT --seed 1 test.txt -o test.ppk
timed map "$bin/ppk" map -t ppk_norm -g 1 -d 9 --map nystrom --landmarks "$M" train.ppk --save-map train.map \
  -o train.features
"$bin/ppk" map --map-from train.map test.ppk -o test.features
timed liblinear liblinear-train -q -s 3 -B 1 -c 10 train.features linear.model
liblinear-predict test.features linear.model predictions.txt > linear.txt
echo "HMM rows, n = $N, Nystrom map of $M landmarks: $(cat linear.txt)"
awk '{ printf "%-10s %8.2f s %8.0f MB\n", $1, $2, $3 / 1024 }' steps.txt
