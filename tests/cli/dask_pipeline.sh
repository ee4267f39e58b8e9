# The Dask pipeline (ppk.dask, python/ppk/dask.py, run by examples/ppk_dask.py) on a 2-worker LocalCluster, files of several partitions:
# its features and map are byte for byte those of ppk fit + ppk map on one machine, for the exact
# route and the Nystrom route (landmarks drawn from every fitted training row, or from a sample of
# them with the training rows mapped on the cluster); a whole-file decision (--alpha evidence) is
# taken once on the training file; `dask scheduler` and `dask worker` processes give the same files;
# liblinear's accuracy on them is reported; a bad row is named by its line in the input file (a
# model row that does not map, by its example) and nothing is written; dask logs nothing on success,
# even with another run's leftovers in the shared worker space.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.bash" "$@"
EXAMPLES=$HERE/../../examples
# Debian's python3-dask and python3-distributed: the system python3, whatever comes first on PATH.
pipeline() { /usr/bin/python3 "$EXAMPLES/ppk_dask.py" --ppk "$PPK" --workers 2 --partition-rows 30 "$@"; }
# expect_ppk_notes_only LOG: standard error of a run that succeeded holds ppk's own notes, no dask log.
expect_ppk_notes_only() {
  if grep -v '^ppk ' "$1"; then fail "a successful run wrote more than ppk's notes on standard error"; fi
  pass
}
# expect_one_machine_files ROUTE: the pipeline's ROUTE/{train.features,test.features,train.map} are
# the one-machine ROUTE_train.features, ROUTE_test.features and ROUTE.map, byte for byte.
expect_one_machine_files() {
  local file
  for file in train.features test.features; do
    cmp "$1_$file" "$1/$file" || fail "$1: the pipeline's $file differs from ppk map's"
    pass
  done
  cmp "$1.map" "$1/train.map" || fail "$1: the pipeline's map differs from ppk map's"
  pass
}

python3 "$EXAMPLES/make_documents.py" --seed 3 --vocabulary 200 --n-train 100 --n-test 70 --train docs.txt --test docs_test.txt
# A comment line: the training file's partitions (30 lines each: 4 of them) hold 30 or 29 examples.
sed -i '40i # a comment, not an example' docs.txt
"$PPK" fit multinomial --dim 200 docs.txt -o train.ppk
"$PPK" fit multinomial --dim 200 docs_test.txt -o test.ppk
[[ $(wc -l < train.ppk) == 100 && $(wc -l < test.ppk) == 70 ]] || fail "the one-machine fits lost rows"

# Another run's leftovers in the shared dask-worker-space (a worker killed before it removed its
# folder): the pipeline's workers keep their files in its own folder, so dask purges nothing and logs
# nothing about them.
mkdir -p tmp/dask-worker-space/worker-leftover
touch tmp/dask-worker-space/worker-leftover.dirlock
export TMPDIR=$WORK/tmp

# The exact map, and LIBLINEAR on it.
"$PPK" map -t ppk -g 0.5 --map exact train.ppk --save-map exact.map -o exact_train.features
"$PPK" map --map-from exact.map test.ppk -o exact_test.features
pipeline --family multinomial --fit-options "--dim 200" -t ppk -g 0.5 --map exact \
  --train docs.txt --test docs_test.txt --out-dir exact --train-linear "liblinear-train -s 2 -c 1" \
  > exact_stdout.txt 2> exact_stderr.txt || fail "the exact pipeline failed: $(cat exact_stderr.txt)"
expect_one_machine_files exact
liblinear-train -s 2 -c 1 exact_train.features linear.model > /dev/null
accuracy=$(liblinear-predict exact_test.features linear.model predictions.txt)
[[ $(cat exact_stdout.txt) == "ppk_dask.py: $accuracy" ]] ||
  fail "the pipeline reported '$(cat exact_stdout.txt)', liblinear-predict '$accuracy'"
cmp predictions.txt exact/test.predictions || fail "the pipeline's predictions differ"
pass
expect_ppk_notes_only exact_stderr.txt
[[ -d tmp/dask-worker-space/worker-leftover ]] || fail "the LocalCluster's workers used the shared worker space"
pass

# A cluster as docs/dask.md starts one: `dask scheduler` and a `dask worker` of 2 processes, the
# client given the scheduler's file. The same files as on one machine.
/usr/bin/dask scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file scheduler.json \
  > scheduler.log 2>&1 &
scheduler=$!
workers=
trap 'kill $workers $scheduler 2> /dev/null; wait; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  [[ -s scheduler.json ]] && break
  sleep 0.2
done
/usr/bin/dask worker --scheduler-file scheduler.json --nworkers 2 --nthreads 1 --no-dashboard \
  --local-directory "$WORK/worker-space" > workers.log 2>&1 &
workers=$!
pipeline --scheduler-file scheduler.json --worker-ppk "$PPK" --family multinomial --fit-options "--dim 200" \
  -t ppk -g 0.5 --map exact --train docs.txt --test docs_test.txt --out-dir scheduler \
  2> scheduler_stderr.txt || fail "the pipeline on dask scheduler failed: $(cat scheduler_stderr.txt)"
for file in train.features test.features train.map; do
  cmp exact/$file scheduler/$file || fail "the scheduler's $file differs from the LocalCluster's"
done
pass
expect_ppk_notes_only scheduler_stderr.txt

# Nystrom, k-means++ landmarks among all the fitted training rows: ppk map's map, bit for bit.
"$PPK" map -t ppk_norm -g 0.5 --map nystrom --landmarks 20 --landmark-choice kmeans++ --seed 4 train.ppk \
  --save-map nystrom.map -o nystrom_train.features 2> /dev/null
"$PPK" map --map-from nystrom.map test.ppk -o nystrom_test.features
pipeline --family multinomial --fit-options "--dim 200" -t ppk_norm -g 0.5 --map nystrom --landmarks 20 \
  --landmark-choice kmeans++ --seed 4 --train docs.txt --test docs_test.txt --out-dir nystrom \
  2> nystrom_stderr.txt || fail "the Nystrom pipeline failed: $(cat nystrom_stderr.txt)"
expect_one_machine_files nystrom
expect_ppk_notes_only nystrom_stderr.txt

# Nystrom on a sample of 50 fitted training rows, the smoothing chosen by maximum evidence on the
# whole training file: the training rows are mapped on the cluster, as ppk map --map-from maps the
# one-machine fit (--save-pooled on the training file, --pooled-from for the test file).
"$PPK" fit multinomial --dim 200 --alpha evidence --save-pooled evidence.pool docs.txt -o evidence_train.ppk 2> /dev/null
"$PPK" fit multinomial --dim 200 --pooled-from evidence.pool docs_test.txt -o evidence_test.ppk 2> /dev/null
pipeline --family multinomial --fit-options "--dim 200 --alpha evidence" -t ppk -g 1 --map nystrom \
  --landmarks 20 --map-sample 50 --train docs.txt --test docs_test.txt --out-dir sample \
  2> sample_stderr.txt || fail "the sampled Nystrom pipeline failed: $(cat sample_stderr.txt)"
grep -qF "chosen by maximum evidence" sample_stderr.txt || fail "no evidence choice: $(cat sample_stderr.txt)"
[[ $(grep -c "chosen by maximum evidence" sample_stderr.txt) == 1 ]] || fail "the smoothing was chosen more than once"
pass
"$PPK" map --map-from sample/train.map evidence_train.ppk | cmp - sample/train.features ||
  fail "sample: the cluster's training features differ from ppk map --map-from's"
"$PPK" map --map-from sample/train.map evidence_test.ppk | cmp - sample/test.features ||
  fail "sample: the cluster's test features differ from ppk map --map-from's"
pass
# The map's 20 landmarks (label 0) are fitted training rows.
sed -n '/^landmarks 20$/,/^eigenvalues/p' sample/train.map | sed '1d;$d' | cut -d' ' -f2- > landmarks.txt
[[ $(wc -l < landmarks.txt) == 20 ]] || fail "the sampled map does not hold 20 landmarks"
cut -d' ' -f2- evidence_train.ppk | sort -u > fitted_rows.txt
[[ -z $(sort -u landmarks.txt | comm -23 - fitted_rows.txt) ]] || fail "a landmark is not a fitted training row"
pass

# A bad row in the third partition (line 75 of the file, after the comment) is named by its line;
# the run fails and writes nothing.
sed '75s/.*/1 3:x 4:2/' docs.txt > bad.txt
expect_error 1 "ppk_dask.py: ppk fit: bad.txt:75: value 'x' of index 3 is not a number" -- \
  pipeline --family multinomial --fit-options "--dim 200" -t ppk -g 0.5 --train bad.txt --test docs_test.txt --out-dir bad
[[ ! -e bad ]] || fail "the failed run left its output folder: $(ls -A bad)"
pass

# ppk map's message about a partition's model row names the input file's example: row 3 of the
# partition whose first example is the input's 31st is its 33rd.
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - "$EXAMPLES" <<'EOF' || fail "a partition's error does not name the input's line or example"
import sys
sys.path.insert(0, sys.argv[1])
from ppk_dask import load_pipeline
input_message = load_pipeline().input_message
task = {"input": "train.txt", "first_line": 32, "first_example": 31}
message = input_message("ppk map: rows.ppk: row 3: a multinomial row over categories of dimension 400", task)
assert message == "ppk map: train.txt: example 33 (its model row): a multinomial row over categories of dimension 400", message
message = input_message("ppk fit: partition.txt:3: empty line", task)
assert message == "ppk fit: train.txt:34: empty line", message
EOF
pass

/usr/bin/python3 "$EXAMPLES/ppk_dask.py" --help | grep -qF -- "--scheduler-file" || fail "--help lacks --scheduler-file"
pass

# Refused before any cluster starts: what partitions cannot split.
expect_error 1 "--pooled fits one model to the whole file" "--adapt-from" -- pipeline --family hmm \
  --fit-options "--pooled --alphabet ACGT" -t ppk -g 1 --train docs.txt --test docs_test.txt --out-dir refused
printf '>one\nACGT\n>two\nACGG\n' > sequences.fasta
expect_error 1 "sequences.fasta:1: a FASTA file" "'LABEL SEQUENCE'" -- pipeline --family hmm \
  --fit-options "--alphabet ACGT" -t ppk -g 1 --train sequences.fasta --test sequences.fasta --out-dir refused
expect_error 1 "hmm needs --alphabet" -- pipeline --family hmm --fit-options "--states 2" -t ppk -g 1 \
  --train docs.txt --test docs_test.txt --out-dir refused
[[ ! -e refused ]] || fail "a refused run left its output folder"
pass
finish
