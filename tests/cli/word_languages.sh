# examples/word_languages.py (words of several languages from Debian's word lists, as 'LABEL
# SEQUENCE' lines) and examples/cv_folds.py (seeded stratified folds), on small word lists written
# here in the Debian files' layout and encodings: every kept and dropped word is listed by hand.
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
source "$(dirname "$0")/lib.bash" "$@"
export LC_ALL=C  # byte-wise sort and grep: the lines are ISO-8859-1

mkdir dict
# english (UTF-8): a possessive, a name, a too-short and a too-long word, one shared with german
printf '%s\n' "ridge's" Californian cutlery ivories abc incomprehensibilities hobelbank > dict/american-english
# german (UTF-8): capitalised nouns, a hyphen, a digit, eszett and umlauts, the shared word
printf '%s\n' größte DNA-Profil Abc3def Übermut hobelbank Strauß > dict/ngerman
# french (UTF-8): accents and the ligature oe
printf '%s\n' surédifieriez cœurs râperait > dict/french
# swedish: ISO-8859-1, as Debian ships it
printf 'f\xf6rsamling\nbakets\nlaxarna\n' > dict/swedish

words() {  # OUTPUT LABEL: the words of class LABEL in OUTPUT (ISO-8859-1), sorted, one line
  iconv -f latin1 -t utf-8 "$1" | awk -v label="$2" '$1 == label { print $2 }' | sort | tr '\n' ' '
}

python3 "$examples/word_languages.py" --directory dict --languages english german french swedish \
  --per-language 2 --min-length 6 --max-length 12 --alphabet alphabet.txt -o words.txt 2> log.txt
[[ $(wc -l < words.txt) == 8 ]] || fail "expected 8 lines, got $(cat words.txt)"
pass
# each class draws 2 of its candidates; the candidates are (by hand) english: californian cutlery
# ivories; german: größte übermut strauß; french: surédifieriez coeurs râperait;
# swedish: församling bakets laxarna
for check in "1:californian cutlery ivories" "2:größte übermut strauß" \
  "3:surédifieriez coeurs râperait" "4:församling bakets laxarna"; do
  label=${check%%:*}
  drawn=$(words words.txt "$label")
  count=0
  for word in $drawn; do
    [[ " ${check#*:} " == *" $word "* ]] || fail "class $label drew '$word', not a candidate (${check#*:})"
    count=$((count + 1))
  done
  [[ $count == 2 ]] || fail "class $label drew '$drawn', expected 2 words"
  pass
done
grep -qF "1 words in more than one list dropped" log.txt || fail "the shared word hobelbank: $(cat log.txt)"
grep -qF "class 4: swedish" log.txt && grep -qF "Debian package wswedish" log.txt &&
  grep -qF "3 candidate words" log.txt || fail "where the data came from: $(cat log.txt)"
pass
# one byte per letter (ISO-8859-1), and the alphabet file holds the sorted letters of the output
python3 - words.txt alphabet.txt <<'EOF' || fail "encoding or alphabet"
import sys
data = open(sys.argv[1], "rb").read()
text = data.decode("latin-1")
alphabet = open(sys.argv[2], "rb").read().decode("latin-1").strip()
assert len(data) == len(text)
assert alphabet == "".join(sorted({c for line in text.splitlines() for c in line.split()[1]})), alphabet
EOF
pass

# every candidate (--per-language 3), the same lines for the same seed, another order for another
python3 "$examples/word_languages.py" --directory dict --languages french swedish --per-language 3 -o all.txt \
  2> /dev/null
[[ $(words all.txt 1) == "coeurs râperait surédifieriez " ]] || fail "french: $(words all.txt 1)"
[[ $(words all.txt 2) == "bakets församling laxarna " ]] || fail "swedish: $(words all.txt 2)"
pass
python3 "$examples/word_languages.py" --directory dict --languages french swedish --per-language 3 -o again.txt \
  2> /dev/null
cmp -s all.txt again.txt || fail "the same seed wrote different lines"
python3 "$examples/word_languages.py" --directory dict --languages french swedish --per-language 3 --seed 2 \
  -o other.txt 2> /dev/null
! cmp -s all.txt other.txt && [[ $(sort all.txt) == "$(sort other.txt)" ]] || fail "--seed 2: $(cat other.txt)"
pass

# --accents fold: a-z only (NFD drops the umlaut and the acute accent, ß -> ss, œ -> oe)
python3 "$examples/word_languages.py" --directory dict --languages english german french --per-language 3 \
  --accents fold --alphabet folded.txt -o folded-words.txt 2> /dev/null
[[ $(words folded-words.txt 2) == "grosste strauss ubermut " ]] || fail "german: $(words folded-words.txt 2)"
[[ $(words folded-words.txt 3) == "coeurs raperait suredifieriez " ]] || fail "french: $(words folded-words.txt 3)"
[[ $(cat folded.txt) =~ ^[a-z]+$ ]] || fail "folded alphabet $(cat folded.txt)"
pass

# errors name what is missing and what was expected
# (alone, english keeps hobelbank: 4 candidates)
expect_error 1 "english has 4 words of 6-15 letters in no other list; expected at least --per-language 5" -- \
  python3 "$examples/word_languages.py" --directory dict --languages english --per-language 5
expect_error 1 "dict/italian is missing; install Debian's witalian package" -- \
  python3 "$examples/word_languages.py" --directory dict --languages italian
expect_error 2 "--languages: a language is given twice" -- \
  python3 "$examples/word_languages.py" --directory dict --languages english english

# ppk fit hmm reads the lines one symbol per byte, over the alphabet written
"$PPK" fit hmm --states 2 --format lines --alphabet-from alphabet.txt words.txt -o words.ppk
symbols=$(tr -d '\n' < alphabet.txt | wc -c)  # one byte per symbol
row=$(head -n 1 words.ppk)
# the first emission's row: index 11 holds its length, 12 its family (3 multinomial), 13 its dimension
[[ $(field "$row" 12) == 3 && $(field "$row" 13) == "$symbols" ]] || fail "the emissions are not over $symbols symbols: $row"
pass

# cv_folds: 3 folds of all.txt (2 classes of 3): each test part holds one word of each class, the
# test parts partition the lines, and each training part is the rest, in input order
python3 "$examples/cv_folds.py" all.txt folds --folds 3 --seed 1
cat folds/fold*/test.txt | sort > tested.txt
[[ $(sort all.txt) == "$(cat tested.txt)" ]] || fail "the test parts do not partition the lines"
for fold in 1 2 3; do
  [[ $(cut -d' ' -f1 folds/fold$fold/test.txt | sort | tr '\n' ' ') == "1 2 " ]] ||
    fail "fold $fold is not stratified: $(cat folds/fold$fold/test.txt)"
  [[ $(grep -vxFf folds/fold$fold/test.txt all.txt) == "$(cat folds/fold$fold/train.txt)" ]] ||
    fail "fold $fold's training part is not the other lines in order"
  pass
done
python3 "$examples/cv_folds.py" all.txt again --folds 3 --seed 1
diff -r folds again > /dev/null || fail "the same seed gave other folds"
pass
expect_error 1 "--folds 10: expected 2 to 6" -- python3 "$examples/cv_folds.py" all.txt bad --folds 10
finish
