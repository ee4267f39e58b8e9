# The C++ sources follow .clang-format: `clang-format --dry-run -Werror` (clang-format 14, Debian
# 12's) over every *.cpp and *.hpp of src/, include/, tools/, python/, tests/ and bench/; the failure lists
# the files that do not. The fix is the reformat command of docs/building.md ("Code style").
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
command -v clang-format >/dev/null || fail "clang-format is not installed (scripts/install-deps.sh)"
version=$(clang-format --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+')
[[ $version == 14 ]] || fail "clang-format 14 (Debian 12's) formats the tree; this is version $version"
[[ -f $ROOT/.clang-format ]] || fail ".clang-format is missing"

# A file that does not follow the style is reported.
printf 'int  main( ) {return 0;}\n' >planted.cpp
clang-format --style="file:$ROOT/.clang-format" --dry-run -Werror planted.cpp 2>/dev/null &&
  fail "clang-format --dry-run -Werror accepted a misformatted file"
pass

unformatted=()
while IFS= read -r -d '' file; do
  clang-format --style=file --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("${file#"$ROOT"/}")
done < <(find "$ROOT/src" "$ROOT/include" "$ROOT/tools" "$ROOT/python" "$ROOT/tests" "$ROOT/bench" \
  \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)
((${#unformatted[@]} == 0)) ||
  fail "${#unformatted[@]} files do not follow .clang-format (docs/building.md, Code style):"$'\n'"$(printf '  %s\n' "${unformatted[@]}")"
pass
finish
