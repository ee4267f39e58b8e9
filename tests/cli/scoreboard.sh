# The real-data scoreboard's table in the docs is the one bench/scoreboard.py prints (issue 48):
# the scoreboard is run on its smallest set, E. coli promoters (r-cran-kernlab's promotergene,
# installed by scripts/install-deps.sh), with its full grids, and the rows it prints for that set in
# the accuracy tables ("Held-out accuracy", "Best plain baseline against best ppk route") must be
# exactly the docs' rows for that set in the same tables of docs/scoreboard.md, and as many. The
# wall-time table, which changes from run to run, is not compared. Every route applies to the
# promoters (aligned) and runs.
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.bash" "$@"
build=$(dirname "$(dirname "$PPK")")
[[ -r /usr/lib/R/site-library/kernlab/data/promotergene.rda ]] ||
  fail "r-cran-kernlab is missing: install it with scripts/install-deps.sh"

python3 "$source_dir/bench/scoreboard.py" --build "$build" --sets promoters --work scoreboard -o printed.md \
  > stdout.md 2> stderr.txt || fail "bench/scoreboard.py --sets promoters failed: $(cat stderr.txt)"
cmp -s stdout.md printed.md || fail "-o FILE differs from standard output"
pass

# rows SET FILE: the lines of FILE's two accuracy tables whose first cell is SET; a table is the
# lines after its heading (## in the script's output, ### in the docs), up to the next heading.
rows() {
  awk -v set="$1" '
    /^##+ / { compare = ($0 ~ /^##+ (Held-out accuracy|Best plain baseline against best ppk route)$/) }
    compare && index($0, "| " set " |") == 1' "$2"
}
rows promoters printed.md > printed_rows.txt
rows promoters "$source_dir/docs/scoreboard.md" > doc_rows.txt
(($(wc -l < printed_rows.txt) == 11)) || fail "expected 10 routes and a summary row: $(cat printed_rows.txt)"
pass
diff doc_rows.txt printed_rows.txt > rows.diff ||
  fail "docs/scoreboard.md's promoters rows (<) are not the ones bench/scoreboard.py prints (>): $(cat rows.diff)"
pass
finish
