# Monte Carlo rows (montecarlo.hpp) hold estimates of k, so their Gram matrices need not be positive
# semidefinite: one warning on standard error from ppk gram (per family, not per row), from svm-train
# and from svm-predict (the patched LIBSVM next to ppk, through the plugin); none for the plain
# Gaussian rows they wrap.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

printf '{"family":"gaussian","mean":[0,1],"var":1,"label":1}\n{"family":"gaussian","mean":[1,0],"var":2,"label":-1}\n{"family":"gaussian","mean":[2,1],"var":0.5,"label":1}\n' |
  "$PPK" encode > gaussians.ppk
"$PPK" montecarlo -n 500 gaussians.ppk -o mc.ppk
warning='montecarlo rows: the kernel values are Monte Carlo estimates of k (JMLR 2004 section 5), not k itself; the Gram matrix may not be positive semidefinite'
expect_one_warning() {  # FILE PREFIX: FILE holds exactly the line "PREFIX$warning"
  [[ $(cat "$1") == "$2$warning" ]] || fail "expected the one warning '$2$warning'; stderr was: $(cat "$1")"
  pass
}
"$PPK" gram -t ppk -g 1 mc.ppk > /dev/null 2> gram_stderr.txt
expect_one_warning gram_stderr.txt "ppk gram: warning: "
"$BIN/svm-train" -q -t ppk -g 1 mc.ppk mc.model 2> train_stderr.txt
expect_one_warning train_stderr.txt "ppk: warning: "
"$BIN/svm-predict" mc.ppk mc.model predictions.txt > /dev/null 2> predict_stderr.txt
expect_one_warning predict_stderr.txt "ppk: warning: "

"$PPK" gram -t ppk -g 1 gaussians.ppk > /dev/null 2> gaussian_stderr.txt
"$BIN/svm-train" -q -t ppk -g 1 gaussians.ppk gaussians.model 2>> gaussian_stderr.txt
"$BIN/svm-predict" gaussians.ppk gaussians.model predictions.txt > /dev/null 2>> gaussian_stderr.txt
[[ ! -s gaussian_stderr.txt ]] || fail "Gaussian rows gave warnings: $(cat gaussian_stderr.txt)"
pass
finish
