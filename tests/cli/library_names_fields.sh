# The library names options by the fields of its options structs, never by the command line's
# flags; the ppk tool maps each field to its flag when it prints the library's message
# (ppk/option_error.hpp; tools/cli.hpp message_of). Checked here:
#  1. no string literal in src/ or include/ holds a "--flag" (comments may cite the tool);
#  2. every field a library message names ({field} in a template, check_option("field", ...)) has a
#     flag in some table of the tool (tools/, the pairs {"field", "--flag..."});
#  3. the tool's messages name the flags, for errors from estimators, example fits and the reader.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"

# The string literals holding "--letter" in the C++ files given, as FILE:LINE: LITERAL (comments,
# character literals and raw strings are told apart from string literals).
flagged_literals() {
  python3 - "$@" <<'PY'
import re, sys
token = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\((?:.|\n)*?\)\1"|\'(?:\\.|[^\\\'])*\'|"(?:\\.|[^\\"\n])*"', re.S)
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for m in token.finditer(text):
        literal = m.group(0)
        if literal.startswith('"') and re.search(r'--[A-Za-z]', literal):
            print(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: {literal}")
PY
}

# The detector finds a planted flag in a literal, and not one in a comment, a raw string or a char.
cat >planted.cpp <<'CPP'
// a comment citing --alpha is fine
/* so is --ridge here */
const char* raw = R"(help text with --var)";
char dash = '-';
void f() { throw OptionError("give --ridge R > 0"); }
CPP
found=$(flagged_literals planted.cpp)
[[ $found == 'planted.cpp:5: "give --ridge R > 0"' ]] || fail "the detector found: $found"
pass

library_files=$(find "$ROOT/src" "$ROOT/include" -name '*.cpp' -o -name '*.hpp' -o -name '*.h' | sort)
# shellcheck disable=SC2086
flags=$(flagged_literals $library_files)
[[ -z $flags ]] || fail "library messages name command-line flags (name the options struct's field):"$'\n'"$flags"
pass

# Every field the library's messages name has a flag in the tool.
missing=$(python3 - "$ROOT" <<'PY'
import glob, re, sys
root = sys.argv[1]
library = [f for d in ("src", "include") for f in glob.glob(f"{root}/{d}/**/*.[ch]pp", recursive=True)]
tool = "".join(open(f, encoding="utf-8").read() for f in glob.glob(f"{root}/tools/**/*.[ch]pp", recursive=True))
fields = set()
for path in library:
    text = open(path, encoding="utf-8").read()
    text = re.sub(r'//[^\n]*', '', text)
    for literal in re.findall(r'"(?:\\.|[^\\"\n])*"', text):
        fields.update(re.findall(r'(?<!\{)\{([a-z_][a-z_.]*)\}(?!\})', literal))
    fields.update(re.findall(r'check_option\("([a-z_.]+)"', text))
for field in sorted(fields):
    if not re.search(r'\{"' + re.escape(field) + r'",\s*"--', tool):
        print(field)
PY
)
[[ -z $missing ]] || fail "fields named by library messages with no flag in tools/: $missing"
pass

# The tool's messages name the flags: an estimator's option check, ...
printf '1 0.5 0.25\n1 0.5 0.5\n' >seq.txt
printf '1 qid:1 1:0.5\n1 qid:1 1:0.7\n1 qid:1 1:0.2\n' >vectors.txt
expect_error 2 "--state-dim must be in [1, 1000], got 0" -- "$PPK" fit lds --state-dim 0 vectors.txt
expect_error 2 "--tolerance must be a finite number >= 0, got -1" -- "$PPK" fit lds --state-dim 1 --tolerance -1 vectors.txt
expect_error 2 "--prior-var must be a finite number > 0, got 0" -- "$PPK" fit gaussian --estimator map --prior-var 0 vectors.txt
expect_error 2 "--components must be at least 1, got 0" -- "$PPK" fit mixture --components 0 vectors.txt
# ... a remedy naming several options (here: a fields' value with its flag, --prior pooled) ...
printf '1 1:2 2:3\n-1 1:1\n' >counts.txt
expect_error 2 "--prior pooled is a prior of the map estimator: add --estimator map" -- \
  "$PPK" fit poisson --prior pooled counts.txt
# ... an example's fit, with the file and line ...
printf '1 1:0.5 2:1\n' >one.txt
expect_error 1 "one.txt:1:" "give --ridge R (added to the covariance diagonal) or --var V (a fixed isotropic variance)" -- \
  "$PPK" fit gaussian --cov diag one.txt
# ... pooling that the options do not have (a network with a hidden node) ...
printf '%s\n' '{"nodes":[{"states":2},{"states":2,"parents":[0],"variable":0}]}' >hidden.json
printf '1 1:1\n-1 1:2\n' >joint.txt
expect_error 2 "so --shrink and pooled statistics are not supported" -- \
  "$PPK" fit bayesnet --structure hidden.json --shrink 0.5 joint.txt
# ... and the sequence reader's alphabet and format.
printf '1 ACGT\n' >dna.txt
expect_error 1 "dna.txt:1: column 6: symbol 'T' (position 4 of the sequence)" \
  "the alphabet comes from --alphabet or --alphabet-from (the training file's --save-alphabet)" -- \
  "$PPK" fit hmm --states 1 --alphabet ACG dna.txt
printf '1 ACGT\n1 1:0.5 2:1\n' >mixed.txt
expect_error 1 "mixed.txt:2: this line is" "LIBSVM vectors are read with --format libsvm" -- \
  "$PPK" fit hmm --states 1 --format lines mixed.txt
finish
