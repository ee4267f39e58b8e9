# The smoothing of document rows on a real corpus, reduced (the full table: examples/documents-smoothing.sh
# and docs/documents-smoothing.md): WordNet 3.0's noun glosses (Debian package wordnet-base), 20
# classes, the first 1500 documents of the fixed order for training and the next 1000 for testing,
# the Bhattacharyya kernel (svm-train -t ppk -g 0.5). The product chooses the smoothing:
# `ppk fit multinomial --alpha cv` on the training part picks, among --alpha auto (maximum evidence),
# --estimator ml and --alpha 1, 0.1, 0.01, 0.001, the smoothing and C (from 1, 10, 100, 1000) of the
# best 5-fold cross-validated accuracy, and saves both; the test part is fitted with that smoothing
# (--pooled-from) and svm-train trains at the chosen C. Its table also gives each candidate's own
# C (the first best for that candidate), at which each candidate is trained and tested, so no
# cross-validation runs twice. Asserted: (1) with C at most 1000, --alpha auto and the default
# --alpha 1/D are far better than --alpha 1 (by more than 10 points; alpha = 1 needs C of 10^4 and
# more, the docs give the numbers), and the default is within 1 point of ML; (2) the issue's acceptance: the held-out accuracy of the smoothing --alpha cv chose
# is at least that of ML and of every fixed alpha, each at its cross-validated C, less 0.3 points.
# (--alpha auto alone does not meet it, on the full corpus nor here; the docs give the numbers.)
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
source "$(dirname "$0")/lib.bash" "$@"
corpus=/usr/share/wordnet/data.noun
[[ -r $corpus ]] || fail "$corpus is missing: install the Debian package wordnet-base (scripts/install-deps.sh)"
bin=$(dirname "$PPK")
export OMP_NUM_THREADS=1
source "$examples/lib.bash"
grid=(1 10 100 1000)  # best_c's C grid for the default's rows

python3 "$examples/wordnet_glosses.py" --data "$corpus" --train-size 1500 --test-size 1000 \
  --train train.txt --test test.txt --vocabulary vocabulary.txt 2> corpus.txt
dim=$(wc -l < vocabulary.txt)
((dim > 5000)) || fail "expected a vocabulary of thousands of words: $(cat corpus.txt)"
pass

# The product's choice on the training part, and the test part with it.
"$PPK" fit multinomial --alpha cv --cv-c 1,10,100,1000 --dim "$dim" --save-pooled pool.json train.txt -o train.cv 2> cv.txt
"$PPK" fit multinomial --pooled-from pool.json --dim "$dim" test.txt -o test.cv 2> /dev/null
sed 's/^ppk fit multinomial: //' cv.txt
read -r chosen chosen_c < <(python3 -c '
import json
cv = json.load(open("pool.json"))["cross_validation"]
print(cv["candidate"], "%g" % cv["C"])')

# Every candidate's rows of both parts (auto: chosen on the training part, reused), and its C: the
# first best of its lines in the table ("candidate alpha C accuracy%").
declare -A cv c held_out
for setting in auto ml 1 0.1 0.01 0.001; do
  case $setting in
    auto)
      "$PPK" fit multinomial --alpha auto --dim "$dim" --save-pooled pool.auto.json train.txt -o train.auto 2> /dev/null
      "$PPK" fit multinomial --pooled-from pool.auto.json --dim "$dim" test.txt -o test.auto 2> /dev/null ;;
    ml) options=(--estimator ml) ;;
    *) options=(--alpha "$setting") ;;
  esac
  if [[ $setting != auto ]]; then
    "$PPK" fit multinomial "${options[@]}" --dim "$dim" train.txt -o "train.$setting"
    "$PPK" fit multinomial "${options[@]}" --dim "$dim" test.txt -o "test.$setting"
  fi
  read -r c[$setting] cv[$setting] < <(awk -v s="$setting" '$1 == s && $NF ~ /%$/ { a = $NF; sub("%", "", a);
    if (n++ == 0 || a + 0 > best + 0) { best = a; cost = $(NF - 1) } } END { print cost, best }' cv.txt)
  [[ -n ${c[$setting]} ]] || fail "no line for $setting in the --alpha cv table: $(cat cv.txt)"
  read -r held_out[$setting] < <(report "$setting" "train.$setting" "test.$setting" "${c[$setting]}" "${cv[$setting]}" \
    -t ppk -g 0.5 | awk '{ sub("%", "", $NF); print $NF }')
  echo "$setting: C ${c[$setting]}, CV ${cv[$setting]}%, held out ${held_out[$setting]}%"
done

# The product's rows are the chosen candidate's, at the chosen candidate's own C.
cmp -s train.cv "train.$chosen" && cmp -s test.cv "test.$chosen" ||
  fail "the rows of --alpha cv (training part) and --pooled-from (test part) are not those of $chosen"
[[ $chosen_c == "${c[$chosen]}" ]] || fail "--alpha cv chose C = $chosen_c, but $chosen's best C is ${c[$chosen]}"
pass

# (1) auto against alpha = 1 (Laplace's rule, the former default), with C at most 1000.
greater "${held_out[auto]}" "$(awk -v b="${held_out[1]}" 'BEGIN { print b + 10 }')" ||
  fail "--alpha auto (${held_out[auto]}%) is not 10 points above --alpha 1 (${held_out[1]}%)"
pass
# The default, --alpha 1/D (one pseudo-count in all), with C by 5-fold cross-validation: far above
# alpha = 1 and level with ML (within 1 point; on the full corpus 0.23 below, docs/documents-smoothing.md).
"$PPK" fit multinomial --dim "$dim" train.txt -o train.default
"$PPK" fit multinomial --dim "$dim" test.txt -o test.default
read -r default_c default_cv < <(best_c train.default -t ppk -g 0.5)
read -r default_held_out < <(report default train.default test.default "$default_c" "$default_cv" -t ppk -g 0.5 |
  awk '{ sub("%", "", $NF); print $NF }')
echo "default (--alpha 1/D): C $default_c, CV $default_cv%, held out $default_held_out%"
greater "$default_held_out" "$(awk -v b="${held_out[1]}" 'BEGIN { print b + 10 }')" ||
  fail "the default --alpha 1/D ($default_held_out%) is not 10 points above --alpha 1 (${held_out[1]}%)"
pass
greater "$default_held_out" "$(awk -v b="${held_out[ml]}" 'BEGIN { print b - 1 - 1e-9 }')" ||
  fail "the default --alpha 1/D ($default_held_out%) is more than 1 point below ML (${held_out[ml]}%)"
pass
# (2) the smoothing --alpha cv chose against ML and every fixed alpha.
best_other=${held_out[ml]}
for setting in 1 0.1 0.01 0.001; do
  if greater "${held_out[$setting]}" "$best_other"; then best_other=${held_out[$setting]}; fi
done
echo "chosen by --alpha cv: $chosen at C = $chosen_c (held out ${held_out[$chosen]}%); best of ML and fixed alpha: $best_other%"
greater "${held_out[$chosen]}" "$(awk -v b="$best_other" 'BEGIN { print b - 0.3 - 1e-9 }')" ||
  fail "the smoothing chosen by --alpha cv ($chosen: ${held_out[$chosen]}%) is below the best of ML and fixed alpha ($best_other%) less 0.3 points"
pass
finish
