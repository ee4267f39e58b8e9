# The Dask pipeline's --train-partitioned route (docs/dask.md, "Training where the features are") on
# a 2-worker LocalCluster: LIBLINEAR's L2-loss SVM trained on the training partitions where the
# workers hold them (L-BFGS on the client, the objective's terms on the workers).
# - Its test accuracy is within 0.5 points of LIBLINEAR's on the same features at the same C
#   (liblinear-train -s 2 -c 1), on 4000 training and 2000 test documents.
# - Its linear.model is a LIBLINEAR model: liblinear-predict reads it and predicts what the pipeline
#   wrote to test.predictions, with the accuracy it printed, for two classes and for three.
# - With --checkpoint, a second run finds every partition kept: no run of ppk on the workers, and the
#   same bytes, the model's too (its objective is summed in partition order).
# - Refused: a one-label training file, and with --map nystrom without --map-sample (the training
#   features are then made on the client).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.bash" "$@"
EXAMPLES=$HERE/../../examples
printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec "%s" "$@"\n' "$WORK" "$PPK" >counted-ppk
chmod +x counted-ppk
: >calls
pipeline() {
  /usr/bin/python3 "$EXAMPLES/ppk_dask.py" --ppk "$PPK" --worker-ppk "$WORK/counted-ppk" --workers 2 \
    --partition-rows 400 --family multinomial --fit-options "--dim 500" -t ppk -g 0.5 --map exact \
    --train-partitioned --progress lines "$@"
}

python3 "$EXAMPLES/make_documents.py" --seed 11 --vocabulary 500 --n-train 4000 --n-test 2000 \
  --train docs.txt --test docs_test.txt
pipeline --train docs.txt --test docs_test.txt --out-dir partitioned --checkpoint checkpoint \
  >partitioned.stdout 2>partitioned.stderr || fail "the partitioned route failed: $(cat partitioned.stderr)"
grep -qE '^ppk_dask\.py: the linear SVM converged in [0-9]+ L-BFGS iterations' partitioned.stderr ||
  fail "the solver did not converge: $(cat partitioned.stderr)"
grep -F 'the linear SVM converged' partitioned.stderr
partitioned=$(sed -n 's/^ppk_dask\.py: Accuracy = \([0-9.]*\)% .*/\1/p' partitioned.stdout)
[[ -n $partitioned ]] || fail "no accuracy printed: $(cat partitioned.stdout)"
liblinear-train -q -s 2 -c 1 partitioned/train.features liblinear.model
liblinear=$(liblinear-predict partitioned/test.features liblinear.model /dev/null | sed 's/^Accuracy = \([0-9.]*\)% .*/\1/')
awk -v a="$partitioned" -v b="$liblinear" 'BEGIN { d = a - b; exit !(d <= 0.5 && d >= -0.5) }' ||
  fail "the partitioned route's accuracy $partitioned% is more than 0.5 points from LIBLINEAR's $liblinear%"
pass
echo "trained on the partitions: $partitioned%; liblinear-train -s 2 -c 1: $liblinear%"

# expect_liblinear_model OUT: liblinear-predict on OUT/linear.model predicts OUT/test.predictions,
# and prints the accuracy the pipeline printed (OUT.stdout).
expect_liblinear_model() {
  local accuracy
  accuracy=$(liblinear-predict "$1/test.features" "$1/linear.model" "$1.liblinear-predictions") ||
    fail "$1: liblinear-predict refused the model"
  cmp "$1/test.predictions" "$1.liblinear-predictions" ||
    fail "$1: liblinear-predict's predictions with the model differ from the pipeline's"
  [[ $(cat "$1.stdout") == "ppk_dask.py: $accuracy" ]] ||
    fail "$1: the pipeline printed '$(cat "$1.stdout")', liblinear-predict '$accuracy'"
  pass
}
expect_liblinear_model partitioned

# Three classes (the labels redrawn: the model's format, not its accuracy, is the point).
awk '{ $1 = NR % 3 + 1; print }' docs.txt >three.txt
awk '{ $1 = NR % 3 + 1; print }' docs_test.txt >three_test.txt
pipeline --train three.txt --test three_test.txt --out-dir three >three.stdout 2>three.stderr ||
  fail "the partitioned route failed on three classes: $(cat three.stderr)"
[[ $(sed -n 's/^nr_class //p' three/linear.model) == 3 ]] || fail "the three-class model is not of three classes"
expect_liblinear_model three

# Run again with the checkpoint: every partition kept, no ppk on the workers, the same bytes.
before=$(wc -l <calls)
pipeline --train docs.txt --test docs_test.txt --out-dir again --checkpoint checkpoint \
  >again.stdout 2>again.stderr || fail "the rerun failed: $(cat again.stderr)"
[[ $(wc -l <calls) == "$before" ]] || fail "the rerun ran ppk on the workers $(($(wc -l <calls) - before)) times"
grep -qE 'docs\.txt \(fit\+map\): 10/10 partitions, 4000 rows, .*, 10 reused$' again.stderr ||
  fail "the rerun's progress does not show 10 partitions reused: $(cat again.stderr)"
for file in train.features test.features train.map linear.model test.predictions; do
  cmp "partitioned/$file" "again/$file" || fail "the rerun's $file differs"
done
cmp partitioned.stdout again.stdout || fail "the rerun's accuracy differs"
pass

head -n 50 docs.txt | awk '{ $1 = 1; print }' >one_label.txt
expect_error 1 "--train-partitioned: the training file holds one label (1)" -- \
  pipeline --train one_label.txt --test docs_test.txt --out-dir refused --progress none
expect_error 2 "--train-partitioned trains where the training features are made" -- \
  pipeline --train docs.txt --test docs_test.txt --out-dir refused --map nystrom --landmarks 10
[[ ! -e refused ]] || fail "a refused run left its output folder"
pass
finish
