# Allocation bombs (issue 27, docs/families.md "Limits"): rows, JSON lines and `ppk fit` options that
# claim huge sizes, for every family the tool lists itself (`ppk --families`, `ppk fit --help`), so that
# a new family is covered without editing this test. Everything runs under `ulimit -v 1000000` (about
# 1 GB of address space) and must end with exit status 0 or 1, never a signal, never
# "out of memory"; a refusal names the row and the field (or the option).
#
# Rows: each family's JSON examples in docs/families.md, encoded, with each value in turn replaced by a
# huge size (2^25 + 1, one more than a row's dense values; 2^31 - 1, the largest index); each mutated row
# goes to `ppk decode`, to `ppk gram` when it decodes (the kernel's own storage: Monte Carlo draws, SLDS
# paths, factorial-HMM marginals) and, when refused, to svm-train. Each family must refuse at least one
# mutation for its size (the message quotes the claimed size). JSON: each number of each example in
# turn replaced by the same sizes, to `ppk encode`. Fit: every option whose help speaks of a number,
# dimension, length, states or chains, given 2^31 - 1. Map: a saved Nystrom map claiming a whitening
# matrix its file does not hold. Baum-Welch with the most states, Gaussians in 5000
# dimensions: more working memory than the limit. Rows whose kernel would run for hours: refused.
#
# What a refusal allocated is measured, not how long it took: every refused run's peak resident set
# (the kernel's ru_maxrss of the process, os.wait4) must stay within REFUSAL_MB, less than the 256 MB
# of the 2^25 doubles one row's dense values may hold, so that a size is refused before anything of
# that size is allocated. (The test's time limit in tests/cli/CMakeLists.txt only guards against a hang.)
source "$(dirname "$0")/lib.bash" "$@"
REFUSAL_MB=64

# measured COMMAND...: runs COMMAND (its standard streams those of this call) and writes its peak
# resident set in MB to peak.txt; its exit status is COMMAND's (128 + N for signal N).
cat > measured.py <<'PY'
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(process.pid, 0)
process.returncode = os.waitstatus_to_exitcode(status)
with open("peak.txt", "w") as out:
    out.write(f"{usage.ru_maxrss // 1024}\n")
sys.exit(process.returncode if process.returncode >= 0 else 128 - process.returncode)
PY
measured() { python3 "$WORK/measured.py" "$@"; }
# expect_small_peak WHAT: the last measured run's peak resident set is within REFUSAL_MB.
expect_small_peak() {
  local peak
  peak=$(cat "$WORK/peak.txt")
  ((peak <= REFUSAL_MB)) || fail "$1: a peak resident set of $peak MB, more than the $REFUSAL_MB MB a refusal may take"
  pass
}

docs=$(dirname "$0")/../../docs/families.md
svm_train=$(dirname "$PPK")/svm-train
[[ -x $svm_train ]] || fail "no svm-train beside $PPK"

"$PPK" --families > families.txt
[[ -s families.txt ]] || fail "ppk --families listed nothing"

# Each family's JSON examples, one file per family.
while read -r code name; do
  grep -E "^    \{(\"label\":[^,]*,)?\"family\":\"$name\"" "$docs" | sed 's/^    //' > "examples.$name.jsonl" || true
  [[ -s examples.$name.jsonl ]] || fail "docs/families.md has no JSON example of the family $name (code $code)"
  "$PPK" encode "examples.$name.jsonl" -o "examples.$name.ppk" || fail "the $name examples do not encode"
done < families.txt
pass

ulimit -v 1000000

python3 - "$PPK" "$svm_train" families.txt "$REFUSAL_MB" <<'PY' || fail "allocation bombs (above)"
import os, re, subprocess, sys, tempfile

ppk, svm_train, families_file = sys.argv[1:4]
REFUSAL_MB = int(sys.argv[4])
HUGE = [33554433, 2147483647]  # 2^25 + 1 (one more than a row's dense values), 2^31 - 1
failures, runs = [], 0


def run(command, what, stdin=None):
    """The run's exit status and output; its peak resident set (os.wait4's ru_maxrss) is measured,
    and a refusal (status 1 or 2) that took more than REFUSAL_MB MB is a failure."""
    global runs
    runs += 1
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                   stdout=out, stderr=err, text=True)
        if stdin is not None:
            process.stdin.write(stdin)
            process.stdin.close()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, process.returncode, out.read(), err.read())
    peak_mb = usage.ru_maxrss / 1024
    if done.returncode < 0 or done.returncode > 2:
        failures.append(f"{what}: exit status {done.returncode} (a signal or a crash); stderr: {done.stderr[:300]}")
    elif "out of memory" in done.stderr or "bad_alloc" in done.stderr:
        failures.append(f"{what}: ran out of memory instead of refusing the size: {done.stderr[:300]}")
    elif done.returncode != 0 and peak_mb > REFUSAL_MB:
        failures.append(f"{what}: refused after taking {peak_mb:.0f} MB, more than {REFUSAL_MB} MB")
    return done


def names_field(stderr):
    return 'field "' in stderr


for line in open(families_file):
    code, name = line.split()
    seeds = [row.split() for row in open(f"examples.{name}.ppk")]
    refused_for_size = False
    trained = False
    for seed in seeds:
        label, entries = seed[0], [entry.split(":") for entry in seed[1:]]
        # Every index of the row from 3 on (the family's fields), and the first one after it.
        indices = sorted({int(i) for i, _ in entries if int(i) >= 3})
        for index in indices:
            for huge in HUGE:
                mutated = label + " " + " ".join(f"{i}:{huge if int(i) == index else v}" for i, v in entries)
                what = f"{name} row '{mutated[:120]}'"
                with open("bomb.ppk", "w") as out:
                    out.write(mutated + "\n")
                decoded = run([ppk, "decode", "bomb.ppk", "-o", "bomb.json"], f"ppk decode of the {what}")
                if decoded.returncode == 0:
                    gram = run([ppk, "gram", "-t", "ppk", "-g", "1", "bomb.ppk", "-o", "bomb.gram"], f"ppk gram of the {what}")
                    if gram.returncode != 0 and not (names_field(gram.stderr) or "kernel" in gram.stderr):
                        failures.append(f"ppk gram of the {what}: the refusal names no field or kernel: {gram.stderr[:300]}")
                    if gram.returncode != 0 and str(huge) in gram.stderr:
                        refused_for_size = True
                    continue
                if "row 1: " not in decoded.stderr or not names_field(decoded.stderr):
                    failures.append(f"ppk decode of the {what}: the refusal names no row and field: {decoded.stderr[:300]}")
                if str(huge) in decoded.stderr:
                    refused_for_size = True
                    # (A refusal of the dense JSON form of a sparse row is ppk decode's alone.)
                    if not trained and "for the JSON form" not in decoded.stderr:  # the same decoder behind LIBSVM's reader, once per family
                        trained = True
                        trainer = run([svm_train, "-q", "-t", "5", "-g", "1", "bomb.ppk", "bomb.model"],
                                      f"svm-train on the {what}")
                        if trainer.returncode == 0 or not names_field(trainer.stdout + trainer.stderr):
                            failures.append(f"svm-train on the {what}: exit {trainer.returncode}, no field named: "
                                            f"{(trainer.stdout + trainer.stderr)[:300]}")
    if not refused_for_size:
        failures.append(f"{name}: no mutation of its rows was refused for its size (the message quoting it)")

    # JSON lines: each number in turn.
    for example in open(f"examples.{name}.jsonl"):
        numbers = list(re.finditer(r"(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?", example))
        for number in numbers:
            for huge in HUGE:
                mutated = example[: number.start()] + str(huge) + example[number.end():]
                encoded = run([ppk, "encode"], f"ppk encode of the {name} JSON {mutated.strip()[:120]}", stdin=mutated)
                if encoded.returncode != 0 and not names_field(encoded.stderr):
                    failures.append(f"ppk encode of {mutated.strip()[:120]}: the refusal names no field: {encoded.stderr[:300]}")

print(f"allocation_bombs: {runs} runs of ppk decode, gram, encode and svm-train")
if failures:
    print("\n".join(failures[:40]), file=sys.stderr)
    sys.exit(1)
PY
pass

# ppk fit: each family's size options from its own help, given 2^31 - 1. A family that needs more than
# whole numbers in INPUT to run at all gets it here (BASE); a new one runs on counts.txt alone.
cat > counts.txt <<'EOF'
1 qid:1 1:1 2:1
1 qid:1 1:1
1 qid:1 2:1
1 qid:1 1:1 2:1
-1 qid:2 1:1
-1 qid:2 2:1
-1 qid:2 1:1 2:1
-1 qid:2 2:1
EOF
printf '1 qid:1 1:0.5 2:0.5\n1 qid:1 1:0.25 2:0.75\n-1 qid:2 1:0.6 2:0.4\n-1 qid:2 1:0.1 2:0.9\n' > simplex.txt
printf '1 1:0.5 2:1\n-1 1:0.3 2:2\n' > flat.txt
printf '1 1:1 2:2\n-1 1:2 2:1\n' > discrete.txt
echo '{"nodes":[{"states":2,"parents":[],"variable":0},{"states":2,"parents":[0],"variable":1}]}' > structure.json
printf '1 ACGTTGCA\n1 ACGTAGCA\n-1 GGGTTTAA\n-1 GGCTTTAA\n' > aligned.txt
declare -A BASE=([gamma]="simplex.txt" [dirichlet]="simplex.txt" [lds]="--state-dim 1 counts.txt"
                 [slds]="--state-dim 1 counts.txt" [mi]="gaussian --var 1 --prior-var 1 flat.txt"
                 [bayesnet]="--structure structure.json discrete.txt" [markov]="--alpha 1 aligned.txt")
"$PPK" fit --help > fit_help.txt
fit_families=$(awk '/^FAMILY:/ {listing = 1; next} listing && /^  [a-z]/ {print $1} listing && /^$/ {exit}' fit_help.txt)
[[ -n $fit_families ]] || fail "ppk fit --help lists no family"
for family in $fit_families; do
  base=${BASE[$family]:-counts.txt}
  # shellcheck disable=SC2086
  "$PPK" fit "$family" $base -o baseline.ppk 2>baseline.txt ||
    fail "ppk fit $family $base does not run: $(cat baseline.txt)"
  "$PPK" fit "$family" --help > family_help.txt
  options=$(grep -E '^  --[a-z-]+ [A-Za-z]+' family_help.txt | grep -iE 'the number|dimension|length|states|chains' | awk '{print $1}' | sort -u)
  for option in $options; do
    got=0
    # shellcheck disable=SC2086
    measured "$PPK" fit "$family" $base "$option" 2147483647 -o out.ppk >stdout.txt 2>stderr.txt || got=$?
    [[ $got == 1 || $got == 2 ]] || fail "ppk fit $family $option 2147483647: exit $got; $(head -c 300 stderr.txt)"
    grep -qF -- "$option" stderr.txt || fail "ppk fit $family $option 2147483647: not named: $(head -c 300 stderr.txt)"
    ! grep -q "out of memory" stderr.txt || fail "ppk fit $family $option 2147483647 ran out of memory"
    expect_small_peak "ppk fit $family $option 2147483647"
  done
done

# Sizes within their ranges whose working set is more than the process may allocate: Baum-Welch with
# the most states (5791; 2.4 GB at 3 restarts, the per-sequence fit; 1.9 GB for the prior-count choice
# on vector sequences) under the 1 GB limit, refused before anything is allocated, naming the options.
printf '1 ACGTTGCA\n-1 GGGTTTAA\n' > symbols.txt
for input in symbols.txt counts.txt; do
  rm -f out.ppk
  got=0
  measured "$PPK" fit hmm "$input" --states 5791 -o out.ppk >stdout.txt 2>stderr.txt || got=$?
  [[ $got == 1 ]] || fail "ppk fit hmm $input --states 5791: exit $got; $(head -c 300 stderr.txt)"
  grep -q -- "Baum-Welch with --states 5791.* needs about .* of working memory, more than the .* this process may allocate" stderr.txt ||
    fail "ppk fit hmm $input --states 5791: the refusal names neither the option nor the memory: $(head -c 400 stderr.txt)"
  grep -q -- "ulimit -v); lower --states" stderr.txt || fail "ppk fit hmm $input --states 5791: no remedy: $(head -c 400 stderr.txt)"
  [[ ! -e out.ppk ]] || fail "ppk fit hmm $input --states 5791 wrote out.ppk"
  expect_small_peak "ppk fit hmm $input --states 5791"
done

# Gaussian fits of 12 vectors in 5000 dimensions (600 kB), whose covariances are D x D: a full
# covariance (about 1.2 GB of working memory) and a mixture of 2 components (1.4 GB, also in the
# diagonal form, whose covariances the EM stores densely, and pooled over all the examples), refused
# before anything is allocated, with exit status 1 (the data's size with the options).
python3 - <<'PY'
import random
random.seed(3)
with open("wide.txt", "w") as out:
    for i in range(12):
        out.write(f"{1 if i < 6 else -1} qid:{1 + i // 6} " + " ".join(f"{j}:{random.gauss(0, 1):.2f}" for j in range(1, 5001)) + "\n")
PY
for fit in "gaussian --cov full --ridge 1" "mixture --cov full" "mixture --cov diag" "mixture --cov diag --pooled"; do
  rm -f out.ppk
  got=0
  # shellcheck disable=SC2086
  measured "$PPK" fit $fit wide.txt -o out.ppk >stdout.txt 2>stderr.txt || got=$?
  [[ $got == 1 ]] || fail "ppk fit $fit (5000 dimensions): exit $got; $(head -c 300 stderr.txt)"
  grep -q -- "in 5000 dimensions.* needs about .* of working memory, more than the .* this process may allocate" stderr.txt ||
    fail "ppk fit $fit (5000 dimensions): not refused for its working memory: $(head -c 400 stderr.txt)"
  grep -qE -- "; (give --cov diag or iso|lower --components)" stderr.txt ||
    fail "ppk fit $fit (5000 dimensions): the refusal names no option: $(head -c 400 stderr.txt)"
  [[ ! -e out.ppk ]] || fail "ppk fit $fit (5000 dimensions) wrote out.ppk"
  expect_small_peak "ppk fit $fit (5000 dimensions)"
done

# Kernel work (docs/families.md, "Limits"): rows of a few kB whose kernel would run for hours, refused
# when read, naming the sizes (an HMM of 100 states over T = 10^8 - 1: 10^14 multiply-adds per kernel
# value; an LDS of n = d = 100 over T = 10^6; Monte Carlo around an HMM over T = 1000; a mixture of 100
# HMMs of 10 states over T = 10^6 - 1, each within the bound, 280 kB); a network whose emission leaf has
# 100 x 101 parent configurations, so that its kernels with itself are a table of 10^8 (800 MB); and two
# SLDS rows of 1000 regimes, n = 40 (sparse matrices), whose kernel used to stack all 10^6 pairs of
# regimes (78 GB).
python3 - <<'PY'
import json
def identity(n): return [[1 if i == j else 0 for j in range(n)] for i in range(n)]
hmm = lambda length: {"family": "hmm", "start": [0.01] * 100, "trans": identity(100), "length": length,
                      "emissions": [{"family": "gaussian", "mean": [q], "var": 1} for q in range(100)]}
with open("work.jsonl", "w") as out:
    out.write(json.dumps(hmm(99999999)) + "\n")
    out.write(json.dumps({"family": "lds", "mean0": [0] * 100, "cov0": identity(100), "A": identity(100),
                          "Q": identity(100), "C": identity(100), "R": identity(100), "length": 1000000}) + "\n")
    out.write(json.dumps({"family": "montecarlo", "samples": 10, "model": hmm(1000)}) + "\n")
    small_hmm = {"family": "hmm", "start": [0.1] * 10, "trans": [[0.1] * 10] * 10, "length": 999999,
                 "emissions": [{"family": "multinomial", "p": [0.5, 0.5]}] * 10}
    out.write(json.dumps({"family": "mixture", "weights": [0.01] * 100, "components": [small_hmm] * 100}) + "\n")
    out.write(json.dumps({"family": "bayesnet", "nodes": [
        {"states": 100, "cpt": [[0.01] * 100]}, {"states": 101, "cpt": [[1 / 101] * 101]},
        {"parents": [0, 1], "variable": 0,
         "emissions": [{"family": "gaussian", "mean": [c % 7], "var": 1} for c in range(100 * 101)]}]}) + "\n")
K, n = 1000, 40
def slds_row(label, shift):  # family 13: K, n, d, T, S, start, trans, A (zeros), Q (zeros), mean0, cov0, C, R
    entries, i = [(1, 1), (2, 13), (3, K), (4, n), (5, 1), (6, 10), (7, 3), (8, 1)], 8 + K
    entries += [(i + k * K + k, 1) for k in range(K)]
    i += K * K + K * n * n + K * n * (n + 1) // 2
    entries.append((i, shift))
    i += n
    entries += [(i + r * (r + 1) // 2 + r, 1) for r in range(n)]
    i += n * (n + 1) // 2
    entries += [(i + j, 1) for j in range(n)] + [(i + n, 1)]
    return label + " " + " ".join(f"{a}:{b}" for a, b in entries)
with open("regimes.ppk", "w") as out:
    out.write(slds_row("+1", 0) + "\n" + slds_row("-1", 0.5) + "\n")
PY
"$PPK" encode work.jsonl -o work.ppk || fail "the kernel-work rows do not encode"
declare -A REFUSAL=([bayesnet]="observed variable 0 pairs 10100 x 10100 models (one per parent configuration), a table of 102010000 emission kernels, beyond the limit of 10000000")
for family in hmm lds montecarlo mixture bayesnet; do
  grep -E "^[^ ]+ 1:1 2:$(awk -v f=$family '$2 == f {print $1}' families.txt) " work.ppk > "work.$family.ppk"
  refusal=${REFUSAL[$family]:-" multiply-adds per kernel evaluation, more than the 1e+12 one row may claim"}
  expect_error 1 "$family kernel" "$refusal" -- measured "$PPK" gram -t ppk -g 1 "work.$family.ppk"
  expect_small_peak "ppk gram of the $family kernel-work row"
  got=0
  measured "$svm_train" -q -t 5 -g 1 "work.$family.ppk" work.model >stdout.txt 2>stderr.txt || got=$?
  [[ $got == 1 ]] || fail "svm-train on the $family kernel-work row: exit $got; $(head -c 300 stdout.txt stderr.txt)"
  grep -qF -- "$refusal" stdout.txt stderr.txt || fail "svm-train on the $family row: $(head -c 300 stderr.txt)"
  expect_small_peak "svm-train on the $family kernel-work row"
done
"$PPK" gram -t ppk_norm -g 1 regimes.ppk -o regimes.gram || fail "ppk gram of two SLDS rows of 1000 regimes"
pass

# A saved Nystrom map (ppk map --save-map) whose header claims 200000 landmarks and features: 200000
# short landmark lines (4 MB) and a whitening matrix of 200000 x 200000 (320 GB) that the file does not
# hold; refused at its first short whitening row, as the file's numbers are read before the matrix is built.
"$PPK" encode <<< '{"family":"gaussian","mean":[1],"var":1}' > landmark.ppk
python3 - <<'PY'
n = 200000
with open("bomb.map", "w") as out:
    out.write("ppk feature map 1\nroute nystrom\nkernel ppk\nrho 1\nlength 0\nfamily gaussian\n")
    out.write(f"space 1 real vectors\ndimension {n}\neigen-floor 1e-10\nlandmarks {n}\n")
    out.write("0 1:1 2:1 3:1 4:1 5:1 6:1\n" * n)
    out.write("eigenvalues" + " 1" * n + f"\nwhitening {n} {n}\n1 2\n")
PY
expect_error 1 "bomb.map:200013: whitening row 1: expected 200000 numbers, got 2" -- \
  measured "$PPK" map --map-from bomb.map landmark.ppk
expect_small_peak "ppk map of a map claiming a 200000 x 200000 whitening matrix"
finish
