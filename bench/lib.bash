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
