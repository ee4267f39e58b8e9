# The library's layers (docs/design.md "Source layout"): src/LAYER/ and include/ppk/LAYER/ for the
# layers core, inference, families, estimate, maps, in that order. A file may include headers of its own
# layer and of the layers before it, never of a later one; public headers (include/ppk/) include
# only public headers; no source or header lies outside a layer folder (src/libsvm/, the LIBSVM
# glue, comes after every layer). Above the library are the top layers, in order: the command line
# (tools/, tools/fit/) and the Python bindings (python/src/); each includes the library's public
# headers, its own and those of the top layers before it (and LIBSVM's svm.h).
#
# The core layer links alone: cli.layering_core_links_alone (tests/core_alone/) links every object of
# ppk_core and nothing else of the library, with a family the test registers itself.
#
# No file outside a family names one family's type. A family F is a header include/ppk/families/F.hpp;
# its types are the classes and structs that header declares at its top level, and F_family(). A file
# belongs to family F when its name says so: it starts with F, estimate_F or fisher_F (src/families/F*,
# include/ppk/families/F*, src/estimate/estimate_F*, tools/fit/F*, ...). A file of a family may name
# any family's types (families made of other families name their parts); the two registration files
# name each family where they register it: src/families/families.cpp the library's (one line each), and
# tools/fit/families.cpp `ppk fit`'s (a declaration of the family's FitFamily and its place in the order of
# `ppk fit --help`). Tests, benchmarks and examples (tests/, bench/, examples/) are not checked: they
# exercise named families.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
layers=(core inference families estimate maps)
rank() {  # LAYER -> its position, or nothing when it is not a layer
  local i
  for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && echo "$i"; done
  return 0
}

# Prints every breach of the rule in the tree at $1 (nothing when it follows it).
breaches() {
  local root=$1 layer own file line included target target_rank dir
  find "$root/src" "$root/include/ppk" -maxdepth 1 -type f | sed "s#^$root/#not in a layer folder: #"
  for dir in "$root"/src/*/ "$root"/include/ppk/*/; do
    [[ -n $(rank "$(basename "$dir")") || $dir == "$root/src/libsvm/" ]] || echo "not a layer: ${dir#"$root/"}"
  done
  for layer in "${layers[@]}"; do
    own=$(rank "$layer")
    while IFS=: read -r file line included; do
      target=$(sed -E 's#^(ppk/)?([a-z_]+)/.*#\2#' <<<"$included")
      target_rank=$(rank "$target")
      if [[ -z $target_rank ]]; then
        echo "$file:$line: \"$included\" is not in a layer folder"
      elif ((target_rank > own)); then
        echo "$file:$line: $layer includes the later layer $target (\"$included\")"
      elif [[ $file == include/* && $included != ppk/* ]]; then
        echo "$file:$line: a public header includes the private \"$included\""
      fi
    done < <(cd "$root" && grep -HnoP '^#include "\K[^"]+' -r src/"$layer" include/ppk/"$layer" 2>/dev/null || true)
  done
}

top_layers=(tools python/src)

# Prints every include of a top layer in the tree at $1 that breaks the rule.
top_breaches() {
  local root=$1 i k layer file line included dir known
  for i in "${!top_layers[@]}"; do
    layer=${top_layers[$i]}
    while IFS=: read -r file line included; do
      [[ $included == svm.h ]] && continue
      [[ $included == ppk/* && -n $(rank "$(sed -E 's#^ppk/([a-z_]+)/.*#\1#' <<<"$included")") ]] && continue
      known=""
      for ((k = 0; k <= i; k++)); do
        for dir in "$root/${top_layers[$k]}" "$root/${top_layers[$k]}"/*/; do
          [[ -f $dir/$included ]] && known=yes
        done
      done
      [[ -n $known ]] ||
        echo "$file:$line: $layer includes \"$included\", neither a public header nor one of its own or an earlier top layer's"
    done < <(cd "$root" && grep -HnoP '^#include "\K[^"]+' -r "$layer" 2>/dev/null || true)
  done
}

# Prints every file in the tree at $1 that names a family's type outside a family, with the names.
family_breaches() {
  local root=$1 header family types pattern file base named owner
  local -a families=() patterns=()
  for header in "$root"/include/ppk/families/*.hpp; do
    [[ -f $header ]] || continue
    family=$(basename "$header" .hpp)
    types=$(grep -oP '^(class|struct) \K[A-Z][A-Za-z0-9]*(?= *(:|\{|final))' "$header" | sort -u | tr '\n' '|')
    families+=("$family")
    patterns+=("\\b(${types}${family}_family)\\b")
  done
  pattern=$(IFS='|'; echo "${patterns[*]}")
  while IFS= read -r file; do
    base=$(basename "$file")
    owner=""
    for family in "${families[@]}"; do
      [[ $base == "$family"* || $base == estimate_"$family"* || $base == fisher_"$family"* ]] && owner=$family
    done
    [[ -n $owner || $file == src/families/families.cpp || $file == tools/fit/families.cpp ]] && continue
    named=$(grep -ohP "$pattern" "$root/$file" | sort -u | tr '\n' ' ')
    [[ -z $named ]] || echo "$file: names a family's type outside a family: $named"
  done < <(cd "$root" && find src include tools python/src -type f \( -name '*.cpp' -o -name '*.hpp' \) 2>/dev/null | sort)
}

# The rules hold in the repository.
found=$(breaches "$ROOT"; top_breaches "$ROOT"; family_breaches "$ROOT")
[[ -z $found ]] || fail "layering breaches:"$'\n'"$found"
pass

# And each kind of breach is caught, in a small tree made here.
mkdir -p tree/src/core tree/src/families tree/src/extra tree/include/ppk/core tree/include/ppk/families
echo '#include "ppk/families/poisson.hpp"' > tree/src/core/row.cpp
echo '#include "core/model_fields.hpp"' > tree/include/ppk/core/row.hpp
echo '#include "ppk/poisson.hpp"' > tree/src/families/poisson.cpp
touch tree/src/flat.cpp tree/include/ppk/families/poisson.hpp
mkdir -p tree/tools tree/python/src
echo '#include "bindings.hpp"' > tree/tools/cli.cpp
echo '#include "core/model_fields.hpp"' > tree/python/src/module.cpp
touch tree/python/src/bindings.hpp
mkdir -p tree/src/maps tree/src/estimate tree/tools/fit
printf 'class PoissonModel : public Model {\n};\nconst FamilyInfo& poisson_family();\n' > tree/include/ppk/families/poisson.hpp
echo 'double rate(const PoissonModel& model);' > tree/src/maps/document_map.cpp
echo 'const FamilyInfo& f = poisson_family();' > tree/tools/fit/options.cpp
echo 'PoissonModel estimate();' > tree/src/estimate/estimate_poisson.cpp
echo 'PoissonModel* pooled;' > tree/src/families/poisson_counts.cpp
found=$(breaches "$WORK/tree"; top_breaches "$WORK/tree"; family_breaches "$WORK/tree")
for unexpected in estimate_poisson.cpp poisson_counts.cpp; do
  ! grep -qF -- "$unexpected" <<<"$found" || fail "the check refused the family file $unexpected:"$'\n'"$found"
  pass
done
for expected in "src/maps/document_map.cpp: names a family's type outside a family: PoissonModel" \
                "tools/fit/options.cpp: names a family's type outside a family: poisson_family" \
                "core includes the later layer families" "a public header includes the private" \
                '"ppk/poisson.hpp" is not in a layer folder' "not in a layer folder: src/flat.cpp" \
                "not a layer: src/extra/" 'tools/cli.cpp:1: tools includes "bindings.hpp"' \
                'python/src/module.cpp:1: python/src includes "core/model_fields.hpp"'; do
  grep -qF -- "$expected" <<<"$found" || fail "the check missed: $expected; it found:"$'\n'"$found"
  pass
done
finish
