# ppk fit across threads: the rows do not depend on --threads, the error reported is the first
# failing example in file order whatever the threads, and a progress line appears only when
# standard error is a terminal.
source "$(dirname "$0")/lib.bash" "$@"

# 80 qid groups of 2-D points from a fixed generator; groups 41 and 57 (1-based) have one point,
# too few for a 2-component mixture.
python3 - <<'PY'
import random
random.seed(7)
with open("sets.txt", "w") as out, open("bad.txt", "w") as bad:
    for group in range(1, 81):
        label = 1 if group % 2 else -1
        count = 1 if group in (41, 57) else 12
        for _ in range(count):
            centre = random.choice([-2.0, 2.0])
            line = f"{label} qid:{group} 1:{centre + random.gauss(0, 0.5):.6f} 2:{random.gauss(0, 1):.6f}\n"
            bad.write(line)
            if count > 1:
                out.write(line)
PY

"$PPK" fit mixture --components 2 --threads 1 sets.txt -o one.ppk
[[ $(wc -l < one.ppk) == 78 ]] || fail "expected 78 rows, got $(wc -l < one.ppk)"
pass
for threads in 2 3 8; do
  "$PPK" fit mixture --components 2 --threads "$threads" sets.txt -o many.ppk
  cmp -s one.ppk many.ppk || fail "--threads $threads differs from --threads 1: $(diff one.ppk many.ppk | head -4)"
  pass
done
# OMP_NUM_THREADS sets the default.
OMP_NUM_THREADS=2 "$PPK" fit mixture --components 2 sets.txt -o env.ppk
cmp -s one.ppk env.ppk || fail "OMP_NUM_THREADS=2 differs from --threads 1"
pass

# The first bad example in file order is reported, with any number of threads.
first_bad_line=$(grep -n "qid:41 " bad.txt | head -1 | cut -d: -f1)
for threads in 1 2 8; do
  for repeat in 1 2 3; do
    expect_error 1 "bad.txt:$first_bad_line:" "qid 41" -- "$PPK" fit mixture --components 2 --threads "$threads" bad.txt -o bad.ppk
    expect_no_output bad.ppk
  done
done

expect_error 2 "--threads must be in [1, 1024], got 0" -- "$PPK" fit mixture --threads 0 sets.txt
expect_error 2 "--threads must be in [1, 1024], got -3" -- "$PPK" fit mixture --threads -3 sets.txt

# Progress: none when standard error is a file ...
"$PPK" fit mixture --components 2 --threads 2 sets.txt -o quiet.ppk 2> quiet.err
[[ ! -s quiet.err ]] || fail "progress written to a non-terminal: $(cat quiet.err)"
pass
# ... and "fitting: 78/78" on a terminal (script(1) gives the command a pseudo-terminal), erased
# at the end; the rows are the same.
script -qec "'$PPK' fit mixture --components 2 --threads 2 sets.txt -o tty.ppk" /dev/null > tty.out
grep -qF "fitting: 78/78" tty.out || fail "no final progress line on a terminal: $(od -c tty.out | head -5)"
pass
grep -qF $'\033[K' tty.out || fail "the progress line is not erased: $(od -c tty.out | head -5)"
pass
cmp -s one.ppk tty.ppk || fail "rows written under a terminal differ"
pass

finish
