# ppk fit streams a per-example fit (4096 examples at a time): the rows are those of the fit that
# reads INPUT whole (forced here by --save-pooled, whose pool needs every example) for plain and
# qid-grouped rows across chunk boundaries, any --threads, with and without --dim, shrunk toward a
# saved pool, from a file, a pipe and standard input; its peak memory does not grow with INPUT (the
# whole-file fit's does); an error in a later chunk names its line and writes nothing.
source "$(dirname "$0")/lib.bash" "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$HERE/../../examples

# 9,000 documents: three chunks, the last one partial.
python3 "$EXAMPLES/make_documents.py" --seed 2 --vocabulary 300 --n-train 9000 --n-test 0 --train docs.txt \
  --test /dev/null
[[ $(wc -l < docs.txt) == 9000 ]] || fail "expected 9000 documents, got $(wc -l < docs.txt)"
"$PPK" fit multinomial --dim 300 --alpha 0.5 --save-pooled pool.json docs.txt -o whole.ppk
[[ $(wc -l < whole.ppk) == 9000 ]] || fail "the whole-file fit wrote $(wc -l < whole.ppk) rows"
for threads in 1 2; do
  "$PPK" fit multinomial --dim 300 --alpha 0.5 --threads $threads docs.txt -o streamed.ppk
  cmp -s whole.ppk streamed.ppk || fail "the streamed rows (--threads $threads) differ from the whole-file fit"
  pass
done
# Without --dim the dimension is the largest index, found by a first pass.
largest=$(awk '{ split($NF, entry, ":"); if (entry[1] + 0 > m) m = entry[1] + 0 } END { print m }' docs.txt)
"$PPK" fit multinomial --dim "$largest" --alpha 0.5 --save-pooled pool2.json docs.txt -o whole_largest.ppk
"$PPK" fit multinomial --alpha 0.5 docs.txt -o streamed_largest.ppk
cmp -s whole_largest.ppk streamed_largest.ppk || fail "the streamed rows without --dim differ"
pass
# Shrinkage toward a saved pool streams too: the rows of --shrink L --pooled-from POOL are those of the
# whole-file fit that saved POOL from the same file.
"$PPK" fit multinomial --dim 300 --alpha 0.5 --shrink 0.01 --save-pooled shrink.json docs.txt -o shrunk_whole.ppk
"$PPK" fit multinomial --dim 300 --alpha 0.5 --shrink 0.01 --pooled-from shrink.json docs.txt -o shrunk_streamed.ppk
cmp -s whole.ppk shrunk_whole.ppk && fail "--shrink 0.01 changed no row: the check cannot tell"
cmp -s shrunk_whole.ppk shrunk_streamed.ppk || fail "the streamed shrunk rows differ from the whole-file fit"
pass
# A pipe and standard input are read whole, once, and fitted the same way.
"$PPK" fit multinomial --dim 300 --alpha 0.5 <(cat docs.txt) -o piped.ppk
cmp -s whole.ppk piped.ppk || fail "the rows of a pipe differ"
pass
"$PPK" fit multinomial --dim 300 --alpha 0.5 - < docs.txt > stdin.ppk
cmp -s whole.ppk stdin.ppk || fail "the rows of standard input differ"
pass

# qid groups that straddle the chunk boundaries: 3,000 sets of 1 to 4 vectors (7,000-odd lines).
python3 - > sets.txt <<'PY'
import random
random.seed(4)
for group in range(1, 3001):
    label = 1 if group % 3 else -1
    for _ in range(random.randint(1, 4)):
        x = [random.gauss(label, 1) for _ in range(3)]
        print(label, "qid:%d" % group, " ".join("%d:%r" % (d + 1, v) for d, v in enumerate(x)))
PY
for threads in 1 2; do
  "$PPK" fit gaussian --var 1 --threads $threads sets.txt -o sets_streamed.ppk
  "$PPK" fit gaussian --var 1 --threads $threads --save-pooled sets_whole.json sets.txt -o sets_whole.ppk
  [[ $(wc -l < sets_whole.ppk) == 3000 ]] || fail "expected 3000 rows, got $(wc -l < sets_whole.ppk)"
  cmp -s sets_whole.ppk sets_streamed.ppk || fail "grouped rows (--threads $threads) differ from the whole-file fit"
  pass
done

# A bad count in the third chunk (line 8,500): the error names the line, and no output is written.
awk 'NR == 8500 { $2 = "1:-1" } { print }' docs.txt > bad.txt
expect_error 1 "bad.txt:8500:" "negative" -- "$PPK" fit multinomial --dim 300 --alpha 0.5 bad.txt -o bad.ppk
expect_no_output bad.ppk
# A line that does not parse, in the second chunk: the same.
awk 'NR == 5000 { $0 = $0 " x:y" } { print }' docs.txt > unparsable.txt
expect_error 1 "unparsable.txt:5000:" -- "$PPK" fit multinomial --dim 300 --alpha 0.5 unparsable.txt -o bad.ppk
expect_no_output bad.ppk
# An existing output is left as it was.
cp whole.ppk kept.ppk
expect_error 1 "bad.txt:8500:" -- "$PPK" fit multinomial --dim 300 --alpha 0.5 bad.txt -o kept.ppk
cmp -s whole.ppk kept.ppk || fail "a failed streamed fit changed the existing output"
pass

# Peak memory (the child's maximum resident set, KB): the streamed fit of 27,000 documents holds no
# more than that of 9,000, while the fit that reads INPUT whole grows with it.
peak_kb() {
  /usr/bin/python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
cat docs.txt docs.txt docs.txt > docs3.txt
streamed_small=$(peak_kb "$PPK" fit multinomial --dim 300 --alpha 0.5 --threads 2 docs.txt -o /dev/null)
streamed_large=$(peak_kb "$PPK" fit multinomial --dim 300 --alpha 0.5 --threads 2 docs3.txt -o /dev/null)
whole_small=$(peak_kb "$PPK" fit multinomial --dim 300 --alpha 0.5 --threads 2 --save-pooled p.json docs.txt -o /dev/null)
whole_large=$(peak_kb "$PPK" fit multinomial --dim 300 --alpha 0.5 --threads 2 --save-pooled p.json docs3.txt -o /dev/null)
echo "peak KB: streamed $streamed_small -> $streamed_large, whole file $whole_small -> $whole_large"
((whole_large - whole_small > 30000)) || fail "the whole-file fit grew by less than 30 MB: the measurement cannot tell"
((streamed_large - streamed_small < 8000)) || fail "the streamed fit grew from $streamed_small KB to $streamed_large KB"
pass
finish
