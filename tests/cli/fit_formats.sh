# Input formats are detected, never guessed: every fit command classifies INPUT's first data line
# (FASTA header, LIBSVM row with or without qid:, 'LABEL SEQUENCE') by one rule and refuses a format
# it does not read with the file, the line and what to use. ppk fit hmm on qid-grouped real vectors
# (the input of ppk fit lds) fits one Gaussian-emission HMM per group, never one discrete HMM per
# text line; contradictory --format/--emission are errors naming file and line.
source "$(dirname "$0")/lib.bash" "$@"

# Three sequences of 2-D real vectors, 5 to 8 frames each, after a comment line (LIBSVM readers
# skip comments; the first data line is line 2): 20 text lines, 3 qid groups.
python3 - <<'PY'
import random
random.seed(5)
with open("series.txt", "w") as out:
    out.write("# three sequences of 2-D frames\n")
    for qid, (label, frames) in enumerate([(1, 5), (-1, 8), (1, 6)], start=1):
        for t in range(frames):
            x = [random.gauss(0, 1) + (2 if t % 2 else -2), random.gauss(0, 1)]
            out.write("%d qid:%d 1:%.6f 2:%.6f\n" % (label, qid, x[0], x[1]))
PY
groups=3

# Detected: one row per qid group, Gaussian emissions, and a note naming the file, line and options.
"$PPK" fit hmm --states 2 series.txt -o detected.ppk 2> note.txt
[[ $(wc -l < detected.ppk) == "$groups" ]] || fail "expected $groups rows (one per qid group), got $(wc -l < detected.ppk)"
pass
grep -qF "ppk fit hmm: note: series.txt:2 is a qid-grouped LIBSVM row: one HMM per qid group, with Gaussian emissions (--format libsvm --emission gaussian)" note.txt ||
  fail "the detection note: $(cat note.txt)"
pass
"$PPK" decode detected.ppk | python3 -c '
import json, sys
lengths = []
for line in sys.stdin:
    m = json.loads(line)
    assert m["family"] == "hmm" and len(m["start"]) == 2, m
    assert all(e["family"] == "gaussian" and len(e["mean"]) == 2 for e in m["emissions"]), m
    lengths.append(m["length"])
assert lengths == [4, 7, 5], lengths  # T = frames - 1 of each group
' || fail "detected rows are not 2-state Gaussian-emission HMMs of the groups: $(head -c 300 detected.ppk)"
pass
# The same rows as the explicit options, and from standard input.
"$PPK" fit hmm --states 2 --format libsvm --emission gaussian series.txt -o explicit.ppk
cmp -s detected.ppk explicit.ppk || fail "detected and explicit --format libsvm --emission gaussian rows differ"
pass
"$PPK" fit hmm --states 2 - < series.txt > stdin.ppk 2> /dev/null
cmp -s detected.ppk stdin.ppk || fail "rows from standard input differ"
pass
# Explicit options print no note (only the covariance prior's strength chosen on the file).
"$PPK" fit hmm --states 2 --format libsvm series.txt -o /dev/null 2> quiet.txt
! grep -q note quiet.txt || fail "--format libsvm printed: $(cat quiet.txt)"
pass

# Contradictory explicit options: an error naming the file, the line and the format to give; no output.
expect_error 1 "series.txt:2: this line is a qid-grouped LIBSVM row, but ppk fit hmm --format lines reads 'LABEL SEQUENCE' lines" \
  "give --format libsvm" -- "$PPK" fit hmm --states 2 --format lines series.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 1 "series.txt:2: this line is a qid-grouped LIBSVM row, but ppk fit hmm --format fasta reads FASTA" \
  "give --format libsvm" -- "$PPK" fit hmm --states 2 --format fasta series.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 1 "series.txt:2: this line is a qid-grouped LIBSVM row" -- \
  "$PPK" fit hmm --states 2 --format lines --emission discrete series.txt -o bad.ppk

# Sequences given as vectors, and the other way round.
printf '>a label=1\nACGTAC\n>b label=-1\nAAAAC\n' > seqs.fa
printf '1 ACGTAC\n-1 AAAAC\n' > seqs.txt
expect_error 1 "seqs.fa:1: this line is a FASTA header, but ppk fit hmm --format libsvm reads qid-grouped LIBSVM rows" \
  "give --format fasta" -- "$PPK" fit hmm --format libsvm seqs.fa -o bad.ppk
expect_error 1 "seqs.txt:1: this line is a 'LABEL SEQUENCE' line, but ppk fit hmm --emission gaussian reads qid-grouped LIBSVM rows" \
  "symbol sequences take --emission discrete" -- "$PPK" fit hmm --emission gaussian seqs.txt -o bad.ppk
expect_no_output bad.ppk
# Symbol sequences are still detected (no note), one row per sequence.
for file in seqs.fa seqs.txt; do
  "$PPK" fit hmm --states 2 "$file" -o seqs.ppk 2> quiet.txt
  [[ $(wc -l < seqs.ppk) == 2 && ! -s quiet.txt ]] || fail "$file: $(wc -l < seqs.ppk) rows; stderr $(cat quiet.txt)"
  pass
done

# A 'LABEL SEQUENCE' file with a LIBSVM row further down: that line is refused, not read as symbols.
printf '1 ACGTAC\n-1 1:0.5 2:1.5\n' > mixed.txt
expect_error 1 "mixed.txt:2: this line is a LIBSVM row without qid:, not 'LABEL SEQUENCE'" "--format libsvm" -- \
  "$PPK" fit hmm --states 2 mixed.txt -o bad.ppk

# LIBSVM rows without qid: are no sequences for hmm, fhmm, lds and slds: each line would be a
# sequence of one vector.
printf '1 1:0.5 2:1.5\n-1 1:0.7 2:1.1\n1 1:0.1 2:0.3\n' > plain.txt
for family in "hmm" "hmm --format libsvm" "fhmm" "lds --state-dim 1" "slds --state-dim 1"; do
  # shellcheck disable=SC2086
  expect_error 1 "plain.txt:1: this line is a LIBSVM row without qid:, but ppk fit ${family%% *}" \
    "reads qid-grouped LIBSVM rows" "give the lines of each sequence one 'qid:N' after the label" -- \
    "$PPK" fit $family plain.txt -o bad.ppk
  expect_no_output bad.ppk
done
# ... while every sequence family reads the qid groups.
for family in "fhmm --iterations 5 --restarts 1" "lds --state-dim 1 --iterations 5 --restarts 1" \
  "slds --state-dim 1 --iterations 5 --restarts 1 --paths 1"; do
  # shellcheck disable=SC2086
  "$PPK" fit $family series.txt -o rows.ppk
  [[ $(wc -l < rows.ppk) == "$groups" ]] || fail "ppk fit $family: $(wc -l < rows.ppk) rows for $groups groups"
  pass
done

# Symbol sequences given to the families that read LIBSVM rows, and to ppk fit mi.
for family in "gaussian" "mixture" "kde" "bernoulli" "lds --state-dim 1" "mi gaussian --var 1 --prior-var 1"; do
  # shellcheck disable=SC2086
  expect_error 1 "seqs.fa:1: this line is a FASTA header, but ppk fit ${family%% *}" \
    "symbol sequences (FASTA, 'LABEL SEQUENCE') are read by ppk fit hmm" -- "$PPK" fit $family seqs.fa -o bad.ppk
  # shellcheck disable=SC2086
  expect_error 1 "seqs.txt:1: this line is a 'LABEL SEQUENCE' line, but ppk fit ${family%% *}" -- \
    "$PPK" fit $family seqs.txt -o bad.ppk
done
# ppk fit mi reads one datum per line: qid groups are refused by the same check.
expect_error 1 "series.txt:2: this line is a qid-grouped LIBSVM row, but ppk fit mi reads LIBSVM rows without qid:" \
  "qid groups are not data for MI rows" -- "$PPK" fit mi gaussian --var 1 --prior-var 1 series.txt
expect_error 1 "series.txt:2: this line is a qid-grouped LIBSVM row" -- \
  "$PPK" fit mi gaussian --var 1 --unlabeled series.txt plain.txt
# A line in no format is left to the reader, which names the field.
printf 'x 1:1\n' > nolabel.txt
expect_error 1 "nolabel.txt:1: label 'x' is not a number" -- "$PPK" fit gaussian --var 1 nolabel.txt

finish
