# Shared by the benchmark scripts (sourced; not a benchmark itself). Usage in a script:
#   source "$(dirname "$0")/lib.bash" WORK "USAGE" "$@"
# with the script's own arguments last (its first, BUILD_DIR). Sets here (this folder), build
# (BUILD_DIR, absolute), bin ($build/bin) and work ($build/WORK), which it creates and makes the
# current folder; without BUILD_DIR the script stops with "usage: SCRIPT USAGE".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${3:?usage: $0 $2}" && pwd)
bin="$build/bin"
work="$build/$1"
mkdir -p "$work"
cd "$work"

# timed NAME COMMAND...: runs COMMAND, appends "NAME seconds peak_kB" (GNU time's %e and %M) to steps.txt.
timed() {
  local name=$1
  shift
  /usr/bin/time -f "$name %e %M" -a -o steps.txt "$@" > /dev/null
}

# scaling_documents N OUTPUT: N training documents of the scaling benchmarks (examples/make_documents.py,
# vocabulary 3000, topics of --seed 1) into OUTPUT, unless it is there: drawn in chunks of at most 10^5
# with document seeds 1, 2, ..., two at a time (10^6 documents: 1 GB, about 4 minutes).
# scaling_documents 0 OUTPUT: their test set, 2,000 documents drawn with document seed 0.
scaling_documents() {
  [[ -s $2 ]] && return
  if (($1 == 0)); then
    python3 "$here/../examples/make_documents.py" --seed 1 --document-seed 0 --vocabulary 3000 \
      --n-train 0 --n-test 2000 --train /dev/null --test "$2"
    return
  fi
  local chunks=$((($1 + 99999) / 100000)) i
  seq "$chunks" | xargs -P 2 -I{} python3 "$here/../examples/make_documents.py" --seed 1 --document-seed {} \
    --vocabulary 3000 --n-train $(($1 / chunks)) --n-test 0 --train "$2.chunk{}" --test /dev/null
  for i in $(seq "$chunks"); do cat "$2.chunk$i"; done >"$2"
  rm -f "$2".chunk*
}
