# docs/families.md describes every family the tool knows in one fixed template: a section
# "### NAME (code N)" per registered family (the list printed by `ppk decode` for an unknown code),
# holding the paragraphs Model, Sample space, Kernel, rho, Row, JSON, Fit and Cost in that order;
# and no section for a family that does not exist.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
DOC=$ROOT/docs/families.md

echo '1 1:1 2:999999' > unknown.ppk
expect_error 1 'expected a family code (1 gaussian' -- "$PPK" decode unknown.ppk
registered=$(grep -oP 'expected a family code \(\K[^)]+' stderr.txt | tr ',' '\n' | sed 's/^ *//')
[[ $(wc -l <<<"$registered") -ge 16 ]] || fail "ppk decode listed too few families: $registered"
pass

python3 - "$DOC" "$registered" <<'PY' || fail "docs/families.md does not follow the template (above)"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
registered = {int(code): name for code, name in (line.split(" ", 1) for line in sys.argv[2].splitlines())}
labels = ["Model", "Sample space", "Kernel", "rho", "Row", "JSON", "Fit", "Cost"]
sections = {}
for match in re.finditer(r"^### (\S+) \(code (\d+)\)\n(.*?)(?=^##)", text, flags=re.M | re.S):
    sections[int(match.group(2))] = (match.group(1), match.group(3))
problems = []
for code, name in sorted(registered.items()):
    if code not in sections:
        problems.append(f"no section '### {name} (code {code})'")
        continue
    documented, body = sections[code]
    if documented != name:
        problems.append(f"code {code} is {name}, documented as {documented}")
    positions = [body.find(f"**{label}.**") for label in labels]
    missing = [label for label, at in zip(labels, positions) if at < 0]
    if missing:
        problems.append(f"{name}: no paragraph {', '.join(missing)}")
    elif positions != sorted(positions):
        problems.append(f"{name}: the paragraphs are not in the order {', '.join(labels)}")
for code, (name, _) in sections.items():
    if code not in registered:
        problems.append(f"section '### {name} (code {code})' names no registered family")
print("\n".join(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
PY
pass
finish
