# The smoothing of document rows on a real corpus, reduced (the full table: examples/documents-smoothing.sh
# and docs/documents-smoothing.md): WordNet 3.0's noun glosses (Debian package wordnet-base), 20
# classes, the first 1500 documents of the fixed order for training and the next 1000 for testing,
# the Bhattacharyya kernel (svm-train -t ppk -g 0.5). The product chooses the smoothing:
# `ppk fit multinomial --alpha auto` on the training part picks, among --alpha evidence (maximum
# evidence), the default --alpha 1/D, --estimator ml and --alpha 1, 0.1, 0.01, 0.001, the smoothing
# and C (from 1, 10, 100, 1000) of the best 5-fold cross-validated accuracy, and saves both; the test
# part is fitted with that smoothing (--pooled-from) and svm-train trains at the chosen C. Its table
# also gives each candidate's own C (the first best for that candidate), at which each candidate is
# trained and tested, so no cross-validation runs twice. Asserted: (1) with C at most 1000, --alpha
# evidence and the default --alpha 1/D are far better than --alpha 1 (by more than 10 points; alpha
# = 1 needs C of 10^4 and more, the docs give the numbers), and the default is within 1 point of ML;
# (2) the issue's acceptance: the held-out accuracy of the smoothing --alpha auto chose is at least
# that of ML and of every fixed alpha, each at its cross-validated C, less 0.3 points. (--alpha
# evidence alone does not meet it, on the full corpus nor here; the docs give the numbers.)
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
source "$(dirname "$0")/lib.bash" "$@"
corpus=/usr/share/wordnet/data.noun
[[ -r $corpus ]] || fail "$corpus is missing: install the Debian package wordnet-base (scripts/install-deps.sh)"
bin=$(dirname "$PPK")
export OMP_NUM_THREADS=1
source "$examples/lib.bash"

python3 "$examples/wordnet_glosses.py" --data "$corpus" --train-size 1500 --test-size 1000 \
  --train train.txt --test test.txt --vocabulary vocabulary.txt 2> corpus.txt
dim=$(wc -l < vocabulary.txt)
((dim > 5000)) || fail "expected a vocabulary of thousands of words: $(cat corpus.txt)"
pass

# The product's choice on the training part, and the test part with it.
"$PPK" fit multinomial --alpha auto --cv-c 1,10,100,1000 --dim "$dim" --save-pooled pool.json train.txt -o train.cv 2> cv.txt
"$PPK" fit multinomial --pooled-from pool.json --dim "$dim" test.txt -o test.cv 2> /dev/null
sed 's/^ppk fit multinomial: //' cv.txt
read -r chosen chosen_c < <(python3 -c '
import json
cv = json.load(open("pool.json"))["smoothing"]["cross_validation"]
print(cv["candidate"], "%g" % cv["C"])')

# Every candidate's rows of both parts (evidence: chosen on the training part, reused), and its C:
# the first best of its lines in the table ("candidate alpha C accuracy%"). 1/D's files are named 1_D.
declare -A cv c held_out
for setting in evidence 1/D ml 1 0.1 0.01 0.001; do
  name=${setting//\//_}
  case $setting in
    evidence)
      "$PPK" fit multinomial --alpha evidence --dim "$dim" --save-pooled pool.evidence.json train.txt -o train.evidence 2> /dev/null
      "$PPK" fit multinomial --pooled-from pool.evidence.json --dim "$dim" test.txt -o test.evidence 2> /dev/null ;;
    ml) options=(--estimator ml) ;;
    *) options=(--alpha "$setting") ;;
  esac
  if [[ $setting != evidence ]]; then
    "$PPK" fit multinomial "${options[@]}" --dim "$dim" train.txt -o "train.$name"
    "$PPK" fit multinomial "${options[@]}" --dim "$dim" test.txt -o "test.$name"
  fi
  read -r c[$setting] cv[$setting] < <(awk -v s="$setting" '$1 == s && $NF ~ /%$/ { a = $NF; sub("%", "", a);
    if (n++ == 0 || a + 0 > best + 0) { best = a; cost = $(NF - 1) } } END { print cost, best }' cv.txt)
  [[ -n ${c[$setting]} ]] || fail "no line for $setting in the --alpha auto table: $(cat cv.txt)"
  read -r held_out[$setting] < <(report "$name" "train.$name" "test.$name" "${c[$setting]}" "${cv[$setting]}" \
    -t ppk -g 0.5 | awk '{ sub("%", "", $NF); print $NF }')
  echo "$setting: C ${c[$setting]}, CV ${cv[$setting]}%, held out ${held_out[$setting]}%"
done

# The product's rows are the chosen candidate's, at the chosen candidate's own C.
cmp -s train.cv "train.${chosen//\//_}" && cmp -s test.cv "test.${chosen//\//_}" ||
  fail "the rows of --alpha auto (training part) and --pooled-from (test part) are not those of $chosen"
[[ $chosen_c == "${c[$chosen]}" ]] || fail "--alpha auto chose C = $chosen_c, but $chosen's best C is ${c[$chosen]}"
pass

# (1) evidence against alpha = 1 (Laplace's rule, the former default), with C at most 1000.
greater "${held_out[evidence]}" "$(awk -v b="${held_out[1]}" 'BEGIN { print b + 10 }')" ||
  fail "--alpha evidence (${held_out[evidence]}%) is not 10 points above --alpha 1 (${held_out[1]}%)"
pass
# The default, --alpha 1/D (one pseudo-count in all), with C by 5-fold cross-validation (its lines of
# the table): far above alpha = 1 and level with ML (within 1 point; on the full corpus 0.23 below,
# docs/documents-smoothing.md).
"$PPK" fit multinomial --dim "$dim" train.txt -o train.default
cmp -s train.default train.1_D || fail "the default rows are not those of --alpha 1/D"
default_held_out=${held_out[1/D]}
greater "$default_held_out" "$(awk -v b="${held_out[1]}" 'BEGIN { print b + 10 }')" ||
  fail "the default --alpha 1/D ($default_held_out%) is not 10 points above --alpha 1 (${held_out[1]}%)"
pass
greater "$default_held_out" "$(awk -v b="${held_out[ml]}" 'BEGIN { print b - 1 - 1e-9 }')" ||
  fail "the default --alpha 1/D ($default_held_out%) is more than 1 point below ML (${held_out[ml]}%)"
pass
# (2) the smoothing --alpha auto chose against ML and every fixed alpha.
best_other=${held_out[ml]}
for setting in 1 0.1 0.01 0.001; do
  if greater "${held_out[$setting]}" "$best_other"; then best_other=${held_out[$setting]}; fi
done
echo "chosen by --alpha auto: $chosen at C = $chosen_c (held out ${held_out[$chosen]}%); best of ML and fixed alpha: $best_other%"
greater "${held_out[$chosen]}" "$(awk -v b="$best_other" 'BEGIN { print b - 0.3 - 1e-9 }')" ||
  fail "the smoothing chosen by --alpha auto ($chosen: ${held_out[$chosen]}%) is below the best of ML and fixed alpha ($best_other%) less 0.3 points"
pass
finish
