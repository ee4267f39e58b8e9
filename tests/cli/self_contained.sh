# The repository is self-contained: no file points outside it (to the design notes or papers a
# session had beside its clone), every docs/design.md section that a source cites exists, every
# relative link of README.md and docs/*.md names a file of the repository, and README.md stays short.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
files() {
  find "$ROOT" \( -name .git -o -name 'build*' \) -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name '*.md' \
       -o -name '*.cmake' -o -name 'CMakeLists.txt' -o -name '*.patch' -o -name '*.m' -o -name '*.json' -o -name '*.txt' -o -path '*/.ci/*' \) \
    ! -name self_contained.sh -print
}

# A reference to a file beside the clone, or to a design.md other than docs/design.md (a markdown
# link "](design.md" is a docs/ page's link to it: the link check below resolves it).
outside=$(files | xargs grep -nP '\.\./shared|(?<![/A-Za-z_])(?<!\]\()design\.md' -- || true)
[[ -z $outside ]] || fail "references outside the repository:"$'\n'"$outside"
pass

# Every 'docs/design.md "SECTION"' citation names a '## SECTION' heading of docs/design.md.
[[ -f $ROOT/docs/design.md ]] || fail "docs/design.md is missing"
while IFS= read -r section; do
  grep -qxF "## $section" "$ROOT/docs/design.md" || fail "docs/design.md has no section \"$section\""
  pass
done < <(files | xargs grep -ohE '(docs/|\]\()design\.md"?\)? "[^"]+"' -- | sed -E 's/.*"([^"]+)"$/\1/' | sort -u)

# Every relative markdown link [text](target) of README.md and docs/*.md (outside code) names a file
# or folder of the repository; http(s)/mailto links and pure #anchors are not checked, and a file
# link's #anchor is dropped.
broken=$(python3 - "$ROOT" "$ROOT/README.md" "$ROOT"/docs/*.md <<'PY'
import os, re, sys
root = os.path.realpath(sys.argv[1])
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"^ {0,3}(```|~~~).*?^ {0,3}\1", "", text, flags=re.M | re.S)  # fenced code
    text = re.sub(r"^(    |\t).*$", "", text, flags=re.M)                      # indented code
    text = re.sub(r"(`+).*?\1", "", text, flags=re.S)                            # code spans
    for target in re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text):
        if re.match(r"(https?|mailto):", target) or target.startswith("#"):
            continue
        file = target.split("#", 1)[0]
        resolved = os.path.realpath(os.path.join(os.path.dirname(path), file))
        if not os.path.exists(resolved) or not (resolved + os.sep).startswith(root + os.sep):
            print(f"{os.path.relpath(path, root)}: ({target})")
PY
)
[[ -z $broken ]] || fail "markdown links to no file of the repository:"$'\n'"$broken"
pass

# README.md is the front page: at most 200 lines (the rest is in docs/).
lines=$(wc -l <"$ROOT/README.md")
((lines <= 200)) || fail "README.md has $lines lines; at most 200 (move the detail to docs/)"
pass
finish
