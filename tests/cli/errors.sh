# Bad input: every case exits non-zero, names the file, the line or row, and the field,
# writes nothing to standard output, and leaves no -o file (an existing one untouched).
source "$(dirname "$0")/lib.bash" "$@"

# --- data files (ppk fit) ---
printf '1 1:1\n2 3\n' > malformed.txt
expect_error 1 "malformed.txt:2: expected index:value, got '3'" -- "$PPK" fit bernoulli malformed.txt -o out.ppk
expect_no_output out.ppk
printf '1 1:1\n1 0:1\n' > index0.txt
expect_error 1 "index0.txt:2: index '0' in '0:1' must be an integer from 1" -- "$PPK" fit multinomial index0.txt -o out.ppk
expect_no_output out.ppk
printf '1 2:1 1:1\n' > descending.txt
expect_error 1 "descending.txt:1: index 1 follows index 2; indices must be strictly ascending" -- \
  "$PPK" fit bernoulli descending.txt
printf '1 1:1\n1 1:2\n1 1:nan\n' > nan.txt
expect_error 1 "nan.txt:3: value 'nan' of index 1 is not finite" -- "$PPK" fit gaussian --var 1 nan.txt -o out.ppk
expect_no_output out.ppk
printf 'one 1:1\n' > label.txt
expect_error 1 "label.txt:1: label 'one' is not a number" -- "$PPK" fit bernoulli label.txt
printf '1 qid:1 1:1\n1 qid:1 1:2\n2 qid:1 1:3\n' > mismatch.txt
expect_error 1 "mismatch.txt:3: label 2 differs from label 1 of the qid 1 example that starts at line 1" -- \
  "$PPK" fit gaussian --var 1 mismatch.txt -o out.ppk
expect_no_output out.ppk
expect_error 1 "cannot open 'missing.txt'" -- "$PPK" fit bernoulli missing.txt

# A failed run keeps an existing output file as it was.
echo "previous contents" > kept.ppk
expect_error 1 "nan.txt:3:" -- "$PPK" fit gaussian --var 1 nan.txt -o kept.ppk
[[ $(cat kept.ppk) == "previous contents" ]] || fail "a failed run changed an existing -o file"
pass
compgen -G "kept.ppk.partial-*" >/dev/null && fail "temporary file left next to kept.ppk"
pass

# What is not a regular file is written through, not replaced by a renamed temporary file (as root,
# "-o /dev/null" once replaced the machine's /dev/null by a regular file): a FIFO stays a FIFO and
# its reader gets the rows; a symbolic link stays a link and its target gets them.
printf '{"family":"bernoulli","p":[0.25]}\n' > one.jsonl
"$PPK" encode one.jsonl -o expected.ppk
mkfifo rows.fifo
timeout 20 cat rows.fifo > from_fifo.ppk &  # bounded: a replaced FIFO gets no writer
"$PPK" encode one.jsonl -o rows.fifo || fail "writing to a FIFO"
wait $! || fail "reading the FIFO"
[[ -p rows.fifo ]] || fail "-o FIFO: the FIFO was replaced by $(stat -c %F rows.fifo)"
cmp -s from_fifo.ppk expected.ppk || fail "-o FIFO: its reader got '$(cat from_fifo.ppk)'"
echo "previous contents" > target.ppk
ln -s target.ppk link.ppk
"$PPK" encode one.jsonl -o link.ppk
[[ -L link.ppk ]] || fail "-o LINK: the link was replaced by a $(stat -c %F link.ppk)"
cmp -s target.ppk expected.ppk || fail "-o LINK: its target holds '$(cat target.ppk)'"
pass

# --- families ---
expect_error 2 "unknown family 'weibull'" -- "$PPK" fit weibull nan.txt
printf '{"family":"bernoulli","p":[0.5]}\n{"family":"weibull","rate":[1]}\n' > family.jsonl
expect_error 1 'family.jsonl:2: unknown family "weibull"; expected one of: gaussian' -- \
  "$PPK" encode family.jsonl -o out.ppk
expect_no_output out.ppk
printf '{"family":"bernoulli","p":[0.5]\n' > broken.jsonl
expect_error 1 "broken.jsonl:1: not valid JSON" -- "$PPK" encode broken.jsonl
printf '1 1:1 2:99 3:1\n' > family.ppk
expect_error 1 "family.ppk: row 1: " "family" -- "$PPK" decode family.ppk

# --- invalid models, as JSON (encode) and as rows (decode, gram) ---
# encode_and_decode_errors NAME JSON ROW FIELD ...: the JSON at line 2 and the row at row 2 are rejected.
encode_and_decode_errors() {
  local name=$1 json=$2 row=$3
  shift 3
  printf '{"family":"bernoulli","p":[0.5]}\n%s\n' "$json" > "$name.jsonl"
  expect_error 1 "$name.jsonl:2: " "$@" -- "$PPK" encode "$name.jsonl" -o out.ppk
  expect_no_output out.ppk
  printf '1 1:1 2:2 3:1 4:0.5\n%s\n' "$row" > "$name.ppk"
  expect_error 1 "$name.ppk: row 2: " "$@" -- "$PPK" decode "$name.ppk" -o out.jsonl
  expect_no_output out.jsonl
}
encode_and_decode_errors negative_variance '{"family":"gaussian","mean":[0],"var":-1}' \
  '1 1:1 2:1 3:1 4:1 6:-1' 'gaussian field "var"' 'expected a positive finite number, got -1'
encode_and_decode_errors not_positive_definite '{"family":"gaussian","mean":[0,0],"cov":[[1,2],[2,1]]}' \
  '1 1:1 2:1 3:2 4:3 7:1 8:2 9:1' 'gaussian field "cov"' 'positive definite'
encode_and_decode_errors probability_above_one '{"family":"bernoulli","p":[0.5,1.5]}' \
  '1 1:1 2:2 3:2 6:1.5' 'bernoulli field "p"' 'expected a probability in [0, 1], got 1.5'
encode_and_decode_errors negative_probability '{"family":"multinomial","p":[1.5,-0.5]}' \
  '1 1:1 2:3 3:2 7:1.5 8:-0.5' 'multinomial field "p"' 'expected a probability in [0, 1]'
encode_and_decode_errors sum_not_one '{"family":"multinomial","p":[0.5,0.6]}' \
  '1 1:1 2:3 3:2 7:0.5 8:0.6' 'multinomial field "p"' 'summing to 1'

# --- row files (decode, gram) ---
printf '1 1:1 2:2 3:1 4:0.5\n1 3:1 1:1\n' > unordered.ppk
expect_error 1 "unordered.ppk:2: index 1 follows index 3" -- "$PPK" decode unordered.ppk
expect_error 1 "negative_variance.ppk: row 2: " 'gaussian field "var" (index 6)' -- \
  "$PPK" gram -t ppk -g 1 negative_variance.ppk -o gram.txt
expect_no_output gram.txt

# Rows of different dimensions have no kernel.
printf '1 1:1\n2 1:2\n3 2:1\n' > mixed.txt
{ "$PPK" fit gaussian --var 1 --dim 2 mixed.txt; "$PPK" fit gaussian --var 1 --dim 3 mixed.txt | head -1; } > mixed.ppk
expect_error 1 "mixed.ppk: row 1 and mixed.ppk: row 4: " "dimension 2" "dimension 3" -- \
  "$PPK" gram -t ppk_norm -g 1 mixed.ppk -o gram.txt
expect_no_output gram.txt
"$PPK" fit gaussian --var 1 --dim 3 mixed.txt > three.ppk
head -3 mixed.ppk > two.ppk
expect_error 1 "two.ppk: row 1 and three.ppk: row 1: " "dimension 2" "dimension 3" -- \
  "$PPK" gram -t ppk -g 1 two.ppk three.ppk -o gram.txt
expect_no_output gram.txt

# rho must be positive (-g), T non-negative (-d).
expect_error 2 "-g (rho) must be a finite number > 0, got 0" -- "$PPK" gram -t ppk -g 0 two.ppk -o gram.txt
expect_error 2 "-g (rho) must be a finite number > 0, got -1" -- "$PPK" gram -t ppk -g -1 two.ppk -o gram.txt
expect_no_output gram.txt
expect_error 2 "-d (T) must be >= 0" -- "$PPK" gram -t ppk -g 1 -d -2 two.ppk
# A rho outside a family's domain: multinomial counts need rho = 1/2.
printf '{"family":"multinomial","p":[0.5,0.5],"trials":3}\n' | "$PPK" encode > trials.ppk
expect_error 1 "trials.ppk: row 1: " -- "$PPK" gram -t ppk -g 1 trials.ppk
finish
