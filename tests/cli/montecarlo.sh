# Monte Carlo rows (montecarlo.hpp): ppk encode of JSON montecarlo rows and their layout; ppk montecarlo
# turning model rows into montecarlo rows; ppk gram on them against the closed forms of the plain rows
# (Gaussian at rho = 1/2, 1, 2; one-event multinomial; gamma and Poisson at rho = 1/2, 1, 2; mixture
# and HMM at rho = 1), bit-for-bit symmetric and independent of row order and of the rows around; the
# patched svm-train training on montecarlo rows around gamma and Poisson rows; rejected commands and rows.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

cat > gaussians.jsonl <<'EOF2'
{"family":"gaussian","mean":[0,1],"var":2,"label":1}
{"family":"gaussian","mean":[1,0],"diag":[1,0.5],"label":-1}
{"family":"gaussian","mean":[0.5,0.5],"cov":[[1,0.3],[0.3,0.8]],"label":1}
EOF2
cat > latent.jsonl <<'EOF2'
{"family":"mixture","weights":[0.4,0.6],"components":[{"family":"gaussian","mean":[0],"var":1},{"family":"gaussian","mean":[2],"var":0.5}]}
{"family":"mixture","weights":[0.5,0.5],"components":[{"family":"gaussian","mean":[1],"var":1},{"family":"gaussian","mean":[-1],"var":2}]}
EOF2
cat > hmms.jsonl <<'EOF2'
{"family":"hmm","start":[0.6,0.4],"trans":[[0.7,0.3],[0.2,0.8]],"emissions":[{"family":"multinomial","p":[0.5,0.4,0.1]},{"family":"multinomial","p":[0.1,0.3,0.6]}],"length":3}
{"family":"hmm","start":[0.5,0.5],"trans":[[0.9,0.1],[0.5,0.5]],"emissions":[{"family":"multinomial","p":[0.2,0.2,0.6]},{"family":"multinomial","p":[0.7,0.2,0.1]}],"length":3}
EOF2
printf '{"family":"multinomial","p":[0.1,0.2,0.3,0.4]}\n{"family":"multinomial","p":[0.4,0.3,0.2,0.1]}\n' > multinomials.jsonl
cat > gammas.jsonl <<'EOF2'
{"family":"gamma","shape":[2,1.5],"scale":[1,0.5],"label":1}
{"family":"gamma","shape":[2.5,1.2],"scale":[0.8,0.7],"label":1}
{"family":"gamma","shape":[1.5,2.5],"scale":[1.2,0.4],"label":-1}
{"family":"gamma","shape":[1.2,3],"scale":[1.5,0.3],"label":-1}
EOF2
cat > poissons.jsonl <<'EOF2'
{"family":"poisson","rate":[1,4,0],"label":1}
{"family":"poisson","rate":[1.5,3,0.5],"label":1}
{"family":"poisson","rate":[3,1.5,1],"label":-1}
{"family":"poisson","rate":[4,1,1.5],"label":-1}
EOF2
for set in gaussians latent hmms multinomials gammas poissons; do "$PPK" encode $set.jsonl -o $set.ppk; done

# JSON montecarlo rows: 3 N, 4 beta rule (1 equal), 5 the inner row's length, 6.. its row from the family code.
printf '{"family":"montecarlo","samples":40,"beta":"equal","model":{"family":"gaussian","mean":[1,2],"var":0.5},"label":2}\n' |
  "$PPK" encode > one.ppk
[[ $(cat one.ppk) == "2 1:1 2:14 3:40 4:1 5:6 6:1 7:2 8:1 9:1 10:2 11:0.5" ]] || fail "montecarlo row layout: $(cat one.ppk)"
pass
expect_round_trip one.ppk

# ppk montecarlo keeps labels and order, and writes what ppk encode writes for the same JSON.
"$PPK" montecarlo -n 40 --beta equal gaussians.ppk -o wrapped.ppk
[[ $(cut -d' ' -f1 wrapped.ppk | tr '\n' ' ') == "1 -1 1 " ]] || fail "labels: $(cat wrapped.ppk)"
pass
sed 's/^{"family":"gaussian",\(.*\),"label":\(.*\)}$/{"family":"montecarlo","samples":40,"beta":"equal","label":\2,"model":{"family":"gaussian",\1}}/' \
  gaussians.jsonl | "$PPK" encode | cmp - wrapped.ppk || fail "ppk montecarlo differs from ppk encode: $(cat wrapped.ppk)"
pass

# check_close MC_GRAM EXACT_GRAM SIZE TOLERANCE: every entry within the relative tolerance.
check_close() {
  python3 - "$@" <<'PY' || fail "$1 vs $2: $(cat "$1") / $(cat "$2")"
import sys
from gram_output import read_gram
mc_path, exact_path, size, tolerance = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
mc, exact = read_gram(mc_path, size, size), read_gram(exact_path, size, size)
for i in range(size):
    for j in range(size):
        assert abs(mc[i][j] - exact[i][j]) <= tolerance * exact[i][j], f"K[{i}][{j}] = {mc[i][j]}, exact {exact[i][j]}"
        assert mc[i][j] == mc[j][i], f"K[{i}][{j}] = {mc[i][j]!r} but K[{j}][{i}] = {mc[j][i]!r}"
PY
  pass
}
# N = 40000: the relative standard error of these entries is below 1%; 4% is several of them.
for set in gaussians multinomials latent hmms; do "$PPK" montecarlo -n 40000 $set.ppk -o mc_$set.ppk; done
# (gamma and Poisson: 4 rows, N = 20000; their relative standard errors stay below 1.5% at rho <= 2.)
for set in gammas poissons; do "$PPK" montecarlo -n 20000 $set.ppk -o mc_$set.ppk; done
for rho in 0.5 1 2; do
  for set in gammas poissons; do
    "$PPK" gram -t ppk -g $rho mc_$set.ppk > mc.txt
    "$PPK" gram -t ppk -g $rho $set.ppk > exact.txt
    check_close mc.txt exact.txt 4 0.06
  done
  "$PPK" gram -t ppk -g $rho mc_gaussians.ppk > mc.txt
  "$PPK" gram -t ppk -g $rho gaussians.ppk > exact.txt
  check_close mc.txt exact.txt 3 0.04
  "$PPK" gram -t ppk -g $rho mc_multinomials.ppk > mc.txt
  "$PPK" gram -t ppk -g $rho multinomials.ppk > exact.txt
  check_close mc.txt exact.txt 2 0.04
done
for set in latent hmms; do
  "$PPK" gram -t ppk -g 1 mc_$set.ppk > mc.txt
  "$PPK" gram -t ppk -g 1 $set.ppk > exact.txt
  check_close mc.txt exact.txt 2 0.04
done
"$PPK" gram -t ppk_norm -g 1 mc_gaussians.ppk > norm.txt
expect_unit_diagonal norm.txt

# The patched svm-train trains on montecarlo rows around gamma and Poisson rows (normalised kernel,
# rho = 1/2) and svm-predict separates the training rows (two well-separated classes).
for set in gammas poissons; do
  "$PPK" montecarlo -n 2000 $set.ppk -o train_$set.ppk
  "$BIN/svm-train" -q -t ppk_norm -g 0.5 -c 100 train_$set.ppk model.txt
  grep -qF "kernel_type ppk_norm" model.txt || fail "$set model file: $(head -5 model.txt)"
  "$BIN/svm-predict" train_$set.ppk model.txt predictions.txt > accuracy.txt
  grep -qF "Accuracy = 100% (4/4)" accuracy.txt || fail "$set svm-predict: $(cat accuracy.txt)"
  pass
done

# The same rows in another order, or next to other rows, give the same entries bit for bit.
"$PPK" gram -t ppk -g 1 mc_gaussians.ppk > forward.txt
tac mc_gaussians.ppk > reversed.ppk
"$PPK" gram -t ppk -g 1 reversed.ppk | tac | awk '{ for (i = NF; i >= 1; --i) printf "%s%s", $i, (i > 1 ? " " : "\n") }' |
  cmp - forward.txt || fail "reversed rows: $(cat forward.txt)"
pass
head -1 mc_gaussians.ppk > first.ppk
"$PPK" gram -t ppk -g 1 first.ppk > alone.txt
[[ $(cat alone.txt) == "$(cut -d' ' -f1 forward.txt | head -1)" ]] || fail "row 1 alone: $(cat alone.txt)"
pass

# Rejected: no samples, an unknown beta rule (command line, exit 2); an unsamplable row (a multinomial
# over all trial counts) with its row number; a mixture at rho = 1/2; montecarlo rows against plain rows.
expect_error 2 "--samples" "[1, 100000]" -- "$PPK" montecarlo -n 0 gaussians.ppk
expect_error 2 "--beta" "pooled or equal" -- "$PPK" montecarlo -n 5 --beta half gaussians.ppk
printf '{"family":"multinomial","p":[0.5,0.5],"trials":"all","decay":0.5}\n' | "$PPK" encode > all_counts.ppk
cat gaussians.ppk all_counts.ppk > mixed.ppk
expect_error 1 "mixed.ppk: row 4: " 'montecarlo field "model"' "a model that can be sampled" "multinomial" -- \
  "$PPK" montecarlo -n 5 mixed.ppk -o out.ppk
expect_no_output out.ppk
expect_error 1 "row 1: " "montecarlo row: mixture" "only at rho = 1" "got rho = 0.5" -- "$PPK" gram -t ppk -g 0.5 mc_latent.ppk
expect_error 1 "no kernel between montecarlo and gaussian" -- "$PPK" gram -t ppk -g 1 mc_gaussians.ppk gaussians.ppk
# `ppk montecarlo --help` lists the registered families whose models can be sampled, each family of
# docs/families.md named in its montecarlo section's Model paragraph ("mixtures and HMMs" name two) and no other.
"$PPK" montecarlo --help > help.txt
listed=$(awk '/says for which rho/ { on = 1; next } on && /^  / { print; next } { on = 0 }' help.txt |
  tr -d ' ' | tr ',' '\n' | sed '/^$/d' | sort)
documented=$(python3 - "$ROOT/docs/families.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
families = re.findall(r"^### ([a-z_]+) \(code \d+\)$", text, re.M)
model = re.search(r"^### montecarlo .*?^\*\*Model\.\*\* (.*?)$", text, re.M | re.S).group(1).lower()
print("\n".join(sorted(f for f in families if re.search(r"\b" + f + r"s?\b", model))))
PY
)
[[ -n $listed && $listed == "$documented" ]] ||
  fail "ppk montecarlo --help lists the samplable families"$'\n'"$listed"$'\n'"where docs/families.md names"$'\n'"$documented"
pass

# N = 0 in a row (index 3 absent): the row and field are named.
sed 's/ 3:40 / /' one.ppk > zero.ppk
expect_error 1 "zero.ppk: row 1: " 'montecarlo field "samples" (index 3)' "got 0" -- "$PPK" decode zero.ppk
finish
