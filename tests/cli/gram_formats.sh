# ppk gram's outputs besides the plain matrix: --format precomputed (LIBSVM's -t 4 rows), --psd
# (the spectrum, against matrices of known eigenvalues), --png (a heat map: a valid PNG, checked
# chunk by chunk, whose pixels are the matrix sorted by label), and --threads (the same bytes for
# any thread count).
source "$(dirname "$0")/lib.bash" "$@"

# Isotropic Gaussians N(x, 0.5 I), labels deliberately unsorted.
printf '2 1:0 2:0\n1 1:1 2:2\n-1 1:2\n2 1:-0.5 2:0.25\n1 1:0.3\n' > a.txt
printf '1 1:3 2:3\n-1 2:-1\n1 1:0.1\n' > b.txt
"$PPK" fit gaussian --var 0.5 a.txt -o a.ppk
"$PPK" fit gaussian --var 0.5 b.txt -o b.ppk

# --format precomputed: "label 0:i 1:K(i,1) ..." with the labels of A and the plain matrix's values.
# check_precomputed PRECOMPUTED MATRIX ROWS_FILE
check_precomputed() {
  python3 - "$@" <<'PY' || fail "precomputed $*"
import sys
precomputed, matrix, rows = (open(p).read().splitlines() for p in sys.argv[1:])
assert len(precomputed) == len(matrix) == len(rows), "row counts"
for i, (line, values, row) in enumerate(zip(precomputed, matrix, rows)):
    tokens = line.split(" ")
    assert tokens[0] == row.split(" ")[0], f"row {i + 1}: label {tokens[0]}"
    assert tokens[1] == f"0:{i + 1}", f"row {i + 1}: {tokens[1]}, expected 0:{i + 1}"
    expected = [f"{j + 1}:{v}" for j, v in enumerate(values.split(" "))]
    assert tokens[2:] == expected, f"row {i + 1}: {tokens[2:]} != {expected}"
PY
  pass
}
"$PPK" gram -t ppk -g 1 a.ppk > aa.txt
"$PPK" gram -t ppk -g 1 --format precomputed a.ppk > aa.k
check_precomputed aa.k aa.txt a.ppk
"$PPK" gram -t ppk_norm -g 0.5 b.ppk a.ppk > ba.txt
"$PPK" gram -t ppk_norm -g 0.5 --format precomputed b.ppk a.ppk -o ba.k
check_precomputed ba.k ba.txt b.ppk

# --threads: the same bytes on 1 and 3 threads, against itself and against B, with 60 rows.
awk 'BEGIN { srand(7); for (i = 0; i < 60; i++) printf "%d 1:%.4f 2:%.4f\n", i % 3, rand(), rand() }' > many.txt
"$PPK" fit gaussian --var 0.2 many.txt -o many.ppk
for args in "many.ppk" "many.ppk a.ppk" "a.ppk many.ppk"; do
  "$PPK" gram -t ppk -g 0.7 --threads 1 $args > one.txt
  "$PPK" gram -t ppk -g 0.7 --threads 3 $args > three.txt
  cmp one.txt three.txt || fail "gram $args: 1 and 3 threads differ"
  pass
done
# The progress: nothing on a redirected standard error, "gram rows: 60/60" on a terminal
# (script(1) gives the command a pseudo-terminal), erased at the end; the matrix is the same.
"$PPK" gram -t ppk -g 0.7 --threads 2 many.ppk -o quiet.txt 2> quiet.err
[[ ! -s quiet.err ]] || fail "progress written to a non-terminal: $(cat quiet.err)"
script -qec "'$PPK' gram -t ppk -g 0.7 --threads 2 many.ppk -o tty.txt" /dev/null > tty.out
grep -qF "gram rows: 60/60" tty.out || fail "no final progress line on a terminal: $(od -c tty.out | head -5)"
grep -qF $'\033[K' tty.out || fail "the progress line is not erased: $(od -c tty.out | head -5)"
cmp -s quiet.txt tty.txt || fail "the matrix written under a terminal differs"
pass
# Against itself the matrix is exactly symmetric on any number of threads.
"$PPK" gram -t ppk -g 0.7 --threads 2 many.ppk > self.txt
python3 - <<'PY' || fail "gram against itself is not exactly symmetric"
rows = [line.split(" ") for line in open("self.txt").read().splitlines()]
assert len(rows) == 60 and all(rows[i][j] == rows[j][i] for i in range(60) for j in range(60))
PY
pass

# --psd against known spectra.
# One-event multinomials (1, 0), (0, 1), (1/2, 1/2) at rho = 1: K = P P^T (k = sum_d p_d p'_d),
# whose non-zero eigenvalues are those of P^T P = [[5/4, 1/4], [1/4, 5/4]]: 3/2 and 1; and 0.
printf '{"family":"multinomial","p":[1,0]}\n{"family":"multinomial","p":[0,1]}\n{"family":"multinomial","p":[0.5,0.5]}\n' |
  "$PPK" encode > m.ppk
"$PPK" gram -t ppk -g 1 --psd m.ppk > psd.txt
[[ $(sed -n 1p psd.txt) == "size: 3" ]] || fail "psd: $(cat psd.txt)"
expect_close "$(sed -n 's/^smallest eigenvalue: //p' psd.txt)" 0 1e-14
expect_close "$(sed -n 's/^largest eigenvalue: //p' psd.txt)" 1.5 1e-14
expect_close "$(sed -n 's/^tolerance: //p' psd.txt)" "3 * 2^-52 * 1.5" 1e-15
[[ $(sed -n 's/^negative eigenvalues: //p' psd.txt) == 0 ]] || fail "psd: $(cat psd.txt)"
[[ $(wc -l < psd.txt) == 5 ]] || fail "psd prints 5 lines: $(cat psd.txt)"
pass
# Two Gaussians N(mu, s2 I) at |mu - mu'|^2 = 5, normalised: K = [[1, r], [r, 1]] with
# r = exp(-rho |mu - mu'|^2 / (4 s2)) (JMLR 2004 §3.1): eigenvalues 1 - r and 1 + r.
head -n 2 a.ppk > two.ppk
"$PPK" gram -t ppk_norm -g 0.5 --psd --psd-tolerance 0.25 two.ppk -o two.txt > psd.txt
expect_close "$(sed -n 's/^smallest eigenvalue: //p' psd.txt)" "1 - exp(-0.5 * 5 / 2)" 1e-14
expect_close "$(sed -n 's/^largest eigenvalue: //p' psd.txt)" "1 + exp(-0.5 * 5 / 2)" 1e-14
[[ $(sed -n 's/^tolerance: //p' psd.txt) == 0.25 ]] || fail "psd: $(cat psd.txt)"
[[ $(wc -l < two.txt) == 2 ]] || fail "--psd with -o writes the matrix too"
pass

# --png: a valid PNG (signature, chunk CRCs, IHDR of the matrix's size, 8-bit greyscale), whose
# pixels are the matrix sorted stably by label and mapped linearly onto 0..255.
# check_png PNG MATRIX ROW_LABELS_FILE COLUMN_LABELS_FILE
check_png() {
  python3 - "$@" <<'PY' || fail "png $*"
import struct, sys, zlib
png, matrix_path, rows_path, cols_path = sys.argv[1:]
data = open(png, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, chunks = 8, []
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
    assert zlib.crc32(kind + body) == crc, f"CRC of {kind}"
    chunks.append((kind, body))
    pos += 12 + length
assert pos == len(data), "trailing bytes"
assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", [k for k, _ in chunks]
width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
matrix = [[float(v) for v in line.split(" ")] for line in open(matrix_path).read().splitlines()]
assert (width, height) == (len(matrix[0]), len(matrix)), f"{width} x {height}"
assert (depth, colour, compression, filtering, interlace) == (8, 0, 0, 0, 0)
raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
assert len(raw) == height * (width + 1), "IDAT size"
# Undo the PNG filters (PNG specification, section 9) on one byte per pixel.
pixels, previous = [], [0] * width
for y in range(height):
    kind, line = raw[y * (width + 1)], list(raw[y * (width + 1) + 1:(y + 1) * (width + 1)])
    for x in range(width):
        a = line[x - 1] if x else 0
        b = previous[x]
        c = previous[x - 1] if x else 0
        if kind == 1: line[x] = (line[x] + a) & 255
        elif kind == 2: line[x] = (line[x] + b) & 255
        elif kind == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else: assert kind == 0, f"filter {kind}"
    pixels.append(line)
    previous = line
label = lambda path: [float(line.split(" ")[0]) for line in open(path).read().splitlines()]
row_order = sorted(range(height), key=lambda i: label(rows_path)[i])  # sorted() is stable
col_order = sorted(range(width), key=lambda j: label(cols_path)[j])
low = min(min(r) for r in matrix)
high = max(max(r) for r in matrix)
for y, i in enumerate(row_order):
    for x, j in enumerate(col_order):
        level = 255 * (matrix[i][j] - low) / (high - low)
        assert abs(pixels[y][x] - level) <= 0.5 + 1e-9, f"pixel ({y}, {x}) = {pixels[y][x]}, expected {level}"
PY
  pass
}
"$PPK" gram -t ppk -g 1 --png aa.png a.ppk
check_png aa.png aa.txt a.ppk a.ppk
"$PPK" gram -t ppk_norm -g 0.5 --png ba.png b.ppk a.ppk > ba_stdout.txt
[[ ! -s ba_stdout.txt ]] || fail "--png alone printed the matrix"
check_png ba.png ba.txt b.ppk a.ppk
"$PPK" gram -t ppk -g 0.7 --png many.png --threads 2 many.ppk -o many_matrix.txt
check_png many.png many_matrix.txt many.ppk many.ppk

# Bad command lines (exit 2) and bad data (exit 1): nothing written.
expect_error 2 "--format must be matrix or precomputed" -- "$PPK" gram -t ppk -g 1 --format dense a.ppk
expect_error 2 "--psd needs the symmetric matrix" -- "$PPK" gram -t ppk -g 1 --psd a.ppk b.ppk
expect_error 2 "--psd-tolerance needs --psd" -- "$PPK" gram -t ppk -g 1 --psd-tolerance 1 a.ppk
expect_error 2 "--psd-tolerance must be a finite number >= 0" -- "$PPK" gram -t ppk -g 1 --psd --psd-tolerance -1 a.ppk
expect_error 2 "write the matrix with -o FILE" -- "$PPK" gram -t ppk -g 1 --psd -o - a.ppk
expect_error 2 "--png needs a file name" -- "$PPK" gram -t ppk -g 1 --png - a.ppk
expect_error 2 "--threads must be in [1, 1024], got 0" -- "$PPK" gram -t ppk -g 1 --threads 0 a.ppk
: > empty.ppk
expect_error 1 "--png: the matrix is empty (0 x 0)" -- "$PPK" gram -t ppk -g 1 --png empty.png empty.ppk
expect_no_output empty.png
# A row that fails only late (row 5 against row 4: different dimensions) stops both outputs.
{ cat m.ppk; head -n 1 a.ppk; } > mixed.ppk
expect_error 1 "mixed.ppk: row" -- "$PPK" gram -t ppk -g 1 --png mixed.png -o mixed.txt mixed.ppk
expect_no_output mixed.png
expect_no_output mixed.txt
finish
