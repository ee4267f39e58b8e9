# The command line itself: help, version, and usage errors (exit 2).
source "$(dirname "$0")/lib.bash" "$@"

"$PPK" --help > help.txt
for command in "fit FAMILY" encode decode gram; do
  grep -qF "$command" help.txt || fail "ppk --help does not list '$command'"
  pass
done
"$PPK" --version | grep -Eq '^ppk [0-9]+\.[0-9]+\.[0-9]+ \(row format 1\)$' || fail "ppk --version: $("$PPK" --version)"
pass

# Every subcommand has --help, on standard output, exit 0.
for words in "fit --help" "fit gaussian --help" "fit bernoulli -h" "fit multinomial --help" \
  "encode --help" "decode --help" "gram --help"; do
  # shellcheck disable=SC2086
  "$PPK" $words > sub_help.txt || fail "ppk $words exited non-zero"
  grep -q "^Usage: ppk" sub_help.txt || fail "ppk $words: $(head -3 sub_help.txt)"
  pass
done
"$PPK" fit gaussian --help | grep -- "--ridge" > /dev/null || fail "fit gaussian --help lacks --ridge"
pass
"$PPK" fit multinomial --help | grep -- "--trials" > /dev/null || fail "fit multinomial --help lacks --trials"
pass

printf '1 1:1\n' > data.txt
"$PPK" fit bernoulli data.txt > rows.ppk
expect_error 2 "Usage: ppk COMMAND" -- "$PPK"
expect_error 2 "unknown command 'train'" -- "$PPK" train
expect_error 2 "missing the family" -- "$PPK" fit
expect_error 2 "unknown family 'gausian'" -- "$PPK" fit gausian data.txt
expect_error 2 "missing INPUT" -- "$PPK" fit bernoulli
expect_error 2 "unrecognised option '--bogus'" "Try 'ppk fit --help'" -- "$PPK" fit bernoulli --bogus data.txt
expect_error 2 "too many file arguments" -- "$PPK" fit bernoulli data.txt data.txt
expect_error 2 "--ridge" -- "$PPK" fit gaussian --ridge data.txt
expect_error 2 "too many file arguments" -- "$PPK" decode rows.ppk rows.ppk
expect_error 2 "unrecognised option" -- "$PPK" encode --label 3
expect_error 2 "missing -t" -- "$PPK" gram -g 1 rows.ppk
expect_error 2 "-t must be ppk (5) or ppk_norm (6), got 'rbf'" -- "$PPK" gram -t rbf -g 1 rows.ppk
expect_error 2 "missing -g" -- "$PPK" gram -t ppk rows.ppk
expect_error 2 "missing A" -- "$PPK" gram -t ppk -g 1
expect_error 2 "too many file arguments" -- "$PPK" gram -t ppk -g 1 rows.ppk rows.ppk rows.ppk
expect_error 2 "A and B cannot both be standard input" -- "$PPK" gram -t ppk -g 1 - -
finish
