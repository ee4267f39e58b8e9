# The repository is self-contained: no file points outside it (to the design notes or papers a
# session had beside its clone), and every docs/design.md section that a source cites exists.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
files() {
  find "$ROOT" \( -name .git -o -name 'build*' \) -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name '*.md' \
       -o -name '*.cmake' -o -name 'CMakeLists.txt' -o -name '*.patch' -o -name '*.m' -o -name '*.json' -o -name '*.txt' -o -path '*/.ci/*' \) \
    ! -name self_contained.sh -print
}

# A reference to a file beside the clone, or to a design.md other than docs/design.md.
outside=$(files | xargs grep -nE '\.\./shared|(^|[^/A-Za-z_])design\.md' -- || true)
[[ -z $outside ]] || fail "references outside the repository:"$'\n'"$outside"
pass

# Every 'docs/design.md "SECTION"' citation names a '## SECTION' heading of docs/design.md.
[[ -f $ROOT/docs/design.md ]] || fail "docs/design.md is missing"
while IFS= read -r section; do
  grep -qxF "## $section" "$ROOT/docs/design.md" || fail "docs/design.md has no section \"$section\""
  pass
done < <(files | xargs grep -ohE 'docs/design\.md"?\)? "[^"]+"' -- | sed -E 's/.*"([^"]+)"$/\1/' | sort -u)
finish
