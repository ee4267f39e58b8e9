# Help that fits: `ppk --help` and `ppk fit --help` list every fit family; each family's --help shows
# only the options it accepts (each one shown is tried on that family and not refused as unknown or
# inapplicable), and the options that do not apply to it are absent and refused with the reason.
source "$(dirname "$0")/lib.bash" "$@"

# The families of ppk fit, written out here (not taken from the program).
families="gaussian bernoulli multinomial poisson exponential gamma dirichlet mixture kde hmm markov fhmm bayesnet lds slds"
expected=$(printf '%s\n' $families mi | sort | tr '\n' ' ')

# ppk --help: the FAMILY list of the fit command, between "FAMILY:" and "('ppk fit --help'".
"$PPK" --help > top.txt
listed=$(tr '\n' ' ' < top.txt | sed -n "s/.*FAMILY: \(.*\) ('ppk fit --help'.*/\1/p" | tr -s ' ,' '\n\n' | grep -v '^and$' | sort | tr '\n' ' ')
[[ $listed == "$expected" ]] || fail "ppk --help lists the families '$listed', expected '$expected'"
pass
# ppk fit --help: one line "  NAME  summary" per family after "FAMILY:".
"$PPK" fit --help > fit.txt
listed=$(sed -n '/^FAMILY:$/,/^$/p' fit.txt | sed -n 's/^  \([a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
[[ $listed == "$expected" ]] || fail "ppk fit --help lists the families '$listed', expected '$expected'"
pass
# And the error for an unknown family names them all.
"$PPK" fit nosuch x 2> unknown.txt && fail "an unknown family was accepted"
for family in $families mi; do
  grep -qw -- "$family" unknown.txt || fail "the unknown-family error lacks $family: $(cat unknown.txt)"
  pass
done

# Data every family can be tried on: three qid groups of 2-D vectors, and one datum per line for mi.
cat > data.txt <<'DATA'
1 qid:1 1:0.5 2:1.5
1 qid:1 1:0.7 2:1.1
1 qid:1 1:0.2 2:1.3
-1 qid:2 1:1.5 2:0.5
-1 qid:2 1:1.2 2:0.6
-1 qid:2 1:1.1 2:0.9
DATA
printf '1 1:0.5 2:1.5\n-1 1:1.5 2:0.5\n' > points.txt
printf '{"nodes":[{"states":2,"parents":[]},{"states":2,"parents":[0],"variable":0}]}\n' > structure.json

# The options a help text shows in its option tables ("FAMILY options:", "Options:"), as
# "NAME VALUE_NAME" (VALUE_NAME "-" for a switch).
shown_options() {
  python3 -c '
import re, sys
tables = False
for line in sys.stdin:
    tables = tables or re.match(r"^([\w ]+ options|Options):$", line) is not None
    m = re.match(r"^  (?:-\w \[ )?--([\w-]+)(?: \])?(?: ([^ (][^ ]*))?", line)
    if tables and m and m.group(1) != "help":
        print(m.group(1), m.group(2) or "-")
'
}

# A value of the kind the option takes: the first word of a choice, a file name, or 1.
value_for() {
  case $1 in
    *'|'*) tr '|' '\n' <<< "$1" | grep -m1 -x '[a-z-]*' ;;
    OUTPUT) echo out.ppk ;;
    *FILE* | POOL | *.json) echo "$WORK/absent-file" ;;
    SYMBOLS) echo AB ;;
    *) echo 1 ;;
  esac
}

# try COMMAND_PREFIX REQUIRED_OPTIONS INPUT HELP_WORDS...: every option HELP_WORDS --help shows is
# accepted by COMMAND_PREFIX (the run may fail for other reasons, e.g. a missing file).
refusal='unrecognised option|is not offered for|does not apply|not supported|ambiguous'
try_shown_options() {
  local command=$1 required=$2 input=$3
  shift 3
  "$PPK" "$@" --help | shown_options > options.txt
  [[ $(wc -l < options.txt) -ge 4 ]] || fail "ppk $* --help shows $(wc -l < options.txt) options: $(cat options.txt)"
  local name value_name args
  while read -r name value_name; do
    args=(--"$name")
    [[ $value_name == - ]] || args+=("$(value_for "$value_name")")
    # A required option tried on its own is not given twice.
    # shellcheck disable=SC2086
    if [[ " $required " == *" --$name "* ]]; then
      timeout 60 "$PPK" $command "${args[@]}" "$input" > /dev/null 2> err.txt < /dev/null || true
    else
      timeout 60 "$PPK" $command $required "${args[@]}" "$input" > /dev/null 2> err.txt < /dev/null || true
    fi
    ! grep -Eq "$refusal" err.txt || fail "ppk $command --$name (shown by its --help) is refused: $(cat err.txt)"
    pass
  done < options.txt
}

required_for() {
  case $1 in
    lds | slds) echo "--state-dim 1 --iterations 3 --restarts 1" ;;
    bayesnet) echo "--structure structure.json" ;;
    hmm | fhmm) echo "--iterations 3 --restarts 1" ;;
    mixture) echo "--iterations 3 --restarts 1" ;;
    *) echo "" ;;
  esac
}

for family in $families; do
  try_shown_options "fit $family" "$(required_for "$family")" data.txt fit "$family"
done
for likelihood in gaussian multinomial mixture; do
  try_shown_options "fit mi $likelihood" "--unlabeled points.txt" points.txt fit mi "$likelihood"
done

# Options that do not apply: absent from the family's --help and refused, with the reason, as a
# usage error. --estimator and --shrink belong to the exponential families and bayesnet; every
# family offers --save-pooled and --pooled-from (the values chosen on the training file).
for family in mixture kde hmm fhmm lds slds; do
  "$PPK" fit "$family" --help > family_help.txt
  for option in --estimator --shrink; do
    ! grep -qF -- "$option" family_help.txt || fail "ppk fit $family --help mentions $option: $(grep -F -- "$option" family_help.txt)"
    pass
  done
  expect_error 2 "--estimator is not offered for ppk fit $family: " -- "$PPK" fit "$family" --estimator ml data.txt
  expect_error 2 "--shrink is not offered for ppk fit $family: the $family fit is not an exponential family" -- \
    "$PPK" fit "$family" --shrink 1 data.txt
done
for family in $families; do
  "$PPK" fit "$family" --help | shown_options | cut -d' ' -f1 | sort | tr '\n' ' ' > family_options.txt
  for option in pooled-from save-pooled; do
    grep -qw -- "$option" family_options.txt || fail "ppk fit $family --help lacks --$option: $(cat family_options.txt)"
    pass
  done
done
for family in gaussian bernoulli multinomial poisson exponential gamma dirichlet bayesnet; do
  "$PPK" fit "$family" --help | shown_options | cut -d' ' -f1 | sort | tr '\n' ' ' > family_options.txt
  for option in estimator shrink; do
    grep -qw -- "$option" family_options.txt || fail "ppk fit $family --help lacks --$option: $(cat family_options.txt)"
    pass
  done
done
# The per-family help names the family's own default estimator.
"$PPK" fit bayesnet --help | grep -F "the estimate (default posterior)" > /dev/null || fail "ppk fit bayesnet --help: the default estimator"
pass
# The help of one family carries no other family's text.
"$PPK" fit hmm --help > hmm_help.txt
grep -q "^Usage: ppk fit hmm " hmm_help.txt || fail "ppk fit hmm --help: $(head -2 hmm_help.txt)"
pass
! grep -q "^lds:\|^gaussian:" hmm_help.txt || fail "ppk fit hmm --help shows other families' help"
pass

finish
