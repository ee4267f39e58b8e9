# docs/cli.md, the command-line reference, against the program: every --option it names is an
# option that some 'ppk ... --help' text lists (ppk, ppk fit and every family, ppk fit mi and every
# likelihood, and the other commands). A renamed or removed option fails here until the reference follows.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"

# The families, from the message that refuses an unknown one ("ppk fit supports a, b, ... and mi").
families=$({ "$PPK" fit no-such-family 2>&1 || true; } | sed -n 's/.*ppk fit supports \(.*\)$/\1/p' | sed 's/,//g; s/ and / /')
[[ $families == *gaussian* && $families == *mi* ]] || fail "no family list in ppk fit's message: '$families'"
{
  "$PPK" --help
  "$PPK" fit --help
  for family in $families; do
    [[ $family == mi ]] || "$PPK" fit "$family" --help || fail "ppk fit $family --help failed"
  done
  for likelihood in gaussian multinomial mixture; do "$PPK" fit mi "$likelihood" --help; done
  for command in encode decode gram map select combine montecarlo kgm; do "$PPK" "$command" --help; done
} > help.txt
pass

options() { grep -oE '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*[a-z0-9]' "$1" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
options help.txt > help-options.txt
options "$ROOT/docs/cli.md" > doc-options.txt
(($(wc -l < doc-options.txt) > 30)) || fail "docs/cli.md names only $(wc -l < doc-options.txt) options"
stale=$(comm -23 doc-options.txt help-options.txt)
[[ -z $stale ]] || fail "docs/cli.md names options that no 'ppk ... --help' lists: $(echo $stale)"
pass
finish
