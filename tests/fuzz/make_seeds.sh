# Writes the seed corpora of the fuzz harnesses into corpus/ (what is committed there was made by it):
#   bash tests/fuzz/make_seeds.sh BIN
# BIN: a default build's bin/ (ppk, svm-train). The seeds are each family's JSON examples of
# docs/families.md (as rows, JSON lines and models trained on them), small data files of every format
# `ppk fit` reads, and the files the ppk commands save (maps, pools, alphabets), each prefixed by the
# byte that selects its reader where a harness serves several (fuzz_data_files.cpp, fuzz_ppk_inputs.cpp).
# Regression inputs (regression-*) are not made here: each is the input of a fixed finding.
set -euo pipefail
bin=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
docs=$here/../../docs/families.md
corpus=$here/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p "$corpus"/fuzz_{model_rows,json_lines,data_files,libsvm_model,ppk_inputs}
rm -f "$corpus"/fuzz_*/seed-*

# seed HARNESS NAME [SELECTOR]: standard input into corpus/HARNESS/seed-NAME, after the selector byte.
seed() {
  local file=$corpus/$1/seed-$2
  if [[ $# -gt 2 ]]; then printf "\\x$(printf %02x "$3")" > "$file"; else : > "$file"; fi
  cat >> "$file"
}

# Model rows and JSON lines: each family's documented examples.
while read -r code name; do
  grep -E "^    \{(\"label\":[^,]*,)?\"family\":\"$name\"" "$docs" | sed 's/^    //' > "$name.jsonl"
  seed fuzz_json_lines "$name" < "$name.jsonl"
  "$bin/ppk" encode "$name.jsonl" -o "$name.ppk"
  seed fuzz_model_rows "$name" < "$name.ppk"
done < <("$bin/ppk" --families)

# Models: svm-train on the rows of a few families, each kernel type and SVM type the loader reads.
train() {  # train NAME ROWS OPTIONS...
  local name=$1 rows=$2
  shift 2
  "$bin/svm-train" -q "$@" "$rows" "$name.model"
  seed fuzz_libsvm_model "$name" < "$name.model"
}
printf '1 1:1 2:0 3:0.5\n-1 1:-1 2:0.5 3:-0.5\n1 1:0.8 2:0.1\n-1 1:-0.6 2:0.4 3:-1\n2 2:1 3:1\n2 1:0.1 2:0.9 3:0.8\n' > flat.txt
train rbf flat.txt -t 2 -c 10
train linear flat.txt -t 0
train poly-probability flat.txt -t 1 -d 2 -b 1
train sigmoid-nu flat.txt -t 3 -s 1 -n 0.5
train one-class flat.txt -t 2 -s 2
train epsilon-svr flat.txt -t 2 -s 3
train nu-svr flat.txt -t 2 -s 4
printf '1 0:1 1:4 2:1 3:2\n-1 0:2 1:1 2:3 3:0.5\n1 0:3 1:2 2:0.5 3:5\n' > gram.txt
train precomputed gram.txt -t 4
printf '1 1:2 3:1\n-1 2:3 4:1\n1 1:1 2:1 3:2\n-1 4:5\n' > counts.txt
printf '1 qid:1 1:0.5 2:1.5\n1 qid:1 1:0.7 2:1.1\n1 qid:1 1:-0.2 2:0.9\n-1 qid:2 1:3 2:-1\n-1 qid:2 1:2.5 2:-0.2\n-1 qid:2 1:3.5 2:-1.5\n1 qid:3 1:0.1 2:1.2\n1 qid:3 1:0.3 2:0.8\n1 qid:3 1:0.6 2:1.5\n' > sets.txt
printf '1 ACGTACGTAA\n-1 GGTTCCAAGT\n1 ACGGTACAGT\n' > sequences.txt
"$bin/ppk" fit gaussian sets.txt -o gaussian.fitted.ppk
"$bin/ppk" fit multinomial counts.txt -o multinomial.fitted.ppk
"$bin/ppk" fit hmm --states 2 sequences.txt -o hmm.fitted.ppk
"$bin/ppk" fit mixture --components 2 sets.txt -o mixture.fitted.ppk
"$bin/ppk" fit lds --state-dim 1 sets.txt -o lds.fitted.ppk
for family in gaussian multinomial hmm mixture lds; do
  train "ppk-$family" "$family.fitted.ppk" -t ppk -g 0.5
done
train ppk_norm-gaussian-probability gaussian.fitted.ppk -t ppk_norm -b 1

# Data files of ppk fit (selector byte: 0 LIBSVM, 1 sequences, 2 FASTA, 3 lines, 4 sequences over
# ACGT, 5 alphabet file, 6 format detection).
printf '1 1:0.5 2:1.5\n-1 1:3 3:2 # a comment\n# a line of comment\n2 4:1e-3\n' | seed fuzz_data_files libsvm 0
printf '1 qid:1 1:0.5 2:1.5\n1 qid:1 1:0.7 2:1.1\n2 qid:2 1:3.0\n' | seed fuzz_data_files qid 0
printf '1 ACGTTGCA\n-1 GGCATTAC\n' | seed fuzz_data_files lines 1
printf '>seq1 label=1\nACGT\nTGCA\n\n>seq2 note label=-1\nGGCA\n' | seed fuzz_data_files fasta 2
printf '>seq1 label=1\nACGT\n' | seed fuzz_data_files fasta-forced 2
printf '1 abcab\n-1 bca\n' | seed fuzz_data_files lines-forced 3
printf '1 ACGTTGCA\n-1 GGCATTAC\n' | seed fuzz_data_files lines-acgt 4
printf 'ACGT\n' | seed fuzz_data_files alphabet 5
printf '# header comment\n\n1 qid:3 1:2\n' | seed fuzz_data_files detect 6

# Inputs of the ppk commands (selector byte: the scenario of fuzz_ppk_inputs.cpp).
printf '%s\n' '{"nodes":[{"states":2},{"states":3,"parents":[0],"variable":0},{"states":2,"parents":[0],"variable":1},{"states":3,"parents":[0],"variable":2}]}' |
  seed fuzz_ppk_inputs structure 0
"$bin/ppk" map -t ppk -g 0.5 --map nystrom --landmarks 2 --save-map nystrom.map gaussian.fitted.ppk -o /dev/null
seed fuzz_ppk_inputs nystrom-map 1 < nystrom.map
"$bin/ppk" map -t ppk -g 1 --save-map exact.map multinomial.fitted.ppk -o /dev/null
seed fuzz_ppk_inputs exact-map 2 < exact.map
"$bin/ppk" fit multinomial --base pooled --save-pooled pool.json counts.txt -o /dev/null
seed fuzz_ppk_inputs multinomial-pool 3 < pool.json
"$bin/ppk" fit mixture --components 2 --pooled --save-pooled mixture-pool.json sets.txt -o /dev/null
seed fuzz_ppk_inputs mixture-pool 4 < mixture-pool.json
"$bin/ppk" fit hmm --states 2 --pooled --save-pooled hmm-pool.json sequences.txt -o /dev/null
seed fuzz_ppk_inputs hmm-pool 5 < hmm-pool.json
"$bin/ppk" fit hmm --states 2 --save-alphabet alphabet.txt sequences.txt -o /dev/null
seed fuzz_ppk_inputs alphabet 6 < alphabet.txt
printf '0 1:0 2:1 3:1\n0 1:1 2:1 3:0\n0 1:2 2:0 3:1\n0 1:0 2:0 3:0\n0 1:1 2:2 3:1\n' | seed fuzz_ppk_inputs kgm-samples 7
seed fuzz_ppk_inputs gram-rows 8 < gaussian.fitted.ppk
seed fuzz_ppk_inputs gaussian-data 9 < sets.txt
printf '>a label=1\nACGTAC\n>b label=-1\nGGTTCA\n' | seed fuzz_ppk_inputs hmm-fasta 10
printf '1 1:0.5 2:1.5\n-1 1:3 2:-1\n1 1:0.7 2:1.1\n-1 1:2.5 2:-0.2\n1 1:-0.2 2:0.9\n-1 1:3.5 2:-1.5\n' > vectors.txt
"$bin/ppk" fit mi mixture --components 2 --unlabeled vectors.txt --save-mediator mixture-mediator.json vectors.txt -o /dev/null
seed fuzz_ppk_inputs mixture-mediator 11 < mixture-mediator.json
"$bin/ppk" fit mi gaussian --var 1 --unlabeled vectors.txt --save-mediator gaussian-mediator.json vectors.txt -o /dev/null
seed fuzz_ppk_inputs gaussian-mediator 12 < gaussian-mediator.json
seed fuzz_ppk_inputs montecarlo-rows 13 < gaussian.fitted.ppk
