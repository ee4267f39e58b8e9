#!/usr/bin/env bash
# LIBSVM's own Octave interface (matlab/ of the patched source, built with mkoctfile --mex):
# ppk fit -> libsvmread -> svmtrain -t 5 / -t 6 -> svmpredict gives the predictions, decision
# values, accuracy, cross-validation accuracy and probabilities of the svm-train/svm-predict
# command line on the same files; the model struct survives save/load; rows from a sparse matrix
# built in Octave or a dense matrix give the same; libsvmwrite writes rows that read back exactly;
# -t takes names and the plugin's -g/-d defaults.
#
#   octave_interface.sh MEXDIR SVM_TRAIN SVM_PREDICT DECISION_VALUES PPK
source "$(dirname "$0")/common.sh"
(($# == 5)) || fail "usage: $0 MEXDIR SVM_TRAIN SVM_PREDICT DECISION_VALUES PPK"
mexdir=$1 svm_train=$2 svm_predict=$3 decision_values=$4 ppk=$5
octave=$(command -v octave-cli) || fail "octave-cli is missing (scripts/install-deps.sh installs octave)"
for f in svmtrain svmpredict libsvmread libsvmwrite; do
  [[ -f $mexdir/$f.mex ]] || fail "$mexdir/$f.mex is missing"
done

gaussian_sets 75 4242 >sets
"$ppk" fit gaussian --cov diag sets -o all.ppk
head -n 45 all.ppk >train.ppk
tail -n 30 all.ppk >test.ppk

# the command line
for t in 5 6; do
  "$svm_train" -q -t $t -g 0.5 train.ppk m$t
  "$svm_predict" test.ppk m$t p$t | grep '^Accuracy' >acc$t
  "$decision_values" m$t test.ppk >dv$t
  "$svm_train" -v 5 -t $t -g 0.5 train.ppk | grep '^Cross Validation' >cv$t
  "$svm_train" -q -b 1 -t $t -g 0.5 train.ppk mb$t
  "$svm_predict" -b 1 test.ppk mb$t pb$t >/dev/null
done
# the plugin's own -g and -d defaults
"$svm_train" -q -t ppk_norm train.ppk m_defaults
sed -n 's/^\(degree\|gamma\) //p' m_defaults >defaults
# a test row that is no model (version 9)
echo "0 1:9 2:1 3:2 4:2 5:0 6:0 7:1 8:1" >bad.ppk

# the same in Octave
LC_ALL=C "$octave" --no-history --norc --quiet --eval "addpath('$mexdir');" --eval "$(cat <<'OCTAVE'
function check(ok, what)
  if ~ok, error('FAIL: %s', what); end
end
function write_lines(file, lines)
  f = fopen(file, 'w'); fprintf(f, '%s\n', lines{:}); fclose(f);
end
% "prediction decision values..." with every digit, as libsvm_decision_values prints them
function write_decisions(file, p, dv)
  lines = cell(numel(p), 1);
  for i = 1:numel(p)
    lines{i} = strtrim(sprintf('%.17g ', [p(i), dv(i, :)]));
  end
  write_lines(file, lines);
end

[y, x] = libsvmread('train.ppk');
[ty, tx] = libsvmread('test.ppk');
check(issparse(x) && numel(y) == 45 && numel(ty) == 30, 'libsvmread');
kernel_names = {'ppk', 'ppk_norm'};
for t = [5 6]
  m = svmtrain(y, x, sprintf('-q -t %d -g 0.5', t));
  check(m.Parameters(2) == t && m.Parameters(4) == 0.5, 'model parameters');
  [p, acc, dv] = svmpredict(ty, tx, m, '-q');
  write_decisions(sprintf('oct_dv%d', t), p, dv);
  write_lines(sprintf('oct_acc%d', t), {sprintf('Accuracy = %g%% (%d/%d) (classification)', ...
      acc(1), sum(p == ty), numel(ty))});
  cv = svmtrain(y, x, sprintf('-q -v 5 -t %d -g 0.5', t));
  write_lines(sprintf('oct_cv%d', t), {sprintf('Cross Validation Accuracy = %g%%', cv)});
  mb = svmtrain(y, x, sprintf('-q -b 1 -t %d -g 0.5', t));
  [pb, ~, prob] = svmpredict(ty, tx, mb, '-b 1 -q');
  lines = {strtrim(sprintf('labels%s', sprintf(' %d', mb.Label)))};
  for i = 1:numel(pb)
    lines{end + 1} = sprintf('%g%s', pb(i), sprintf(' %g', prob(i, :)));
  end
  write_lines(sprintf('oct_pb%d', t), lines);

  % -t by name: the same model
  check(isequal(svmtrain(y, x, sprintf('-q -t %s -g 0.5', kernel_names{t - 4})), m), '-t by name');

  % save/load round trip of the model struct, in Octave's text, binary and MATLAB v7 formats
  for format = {'-text', '-binary', '-v7'}
    saved = m;
    save(format{1}, 'model.mat', 'saved');
    clear saved; load('model.mat');
    check(isequal(saved, m), ['save ' format{1} ' / load: a different struct']);
    [p2, acc2, dv2] = svmpredict(ty, tx, saved, '-q');
    check(isequal(p2, p) && isequal(acc2, acc) && isequal(dv2, dv), ['save ' format{1} ' / load: other decisions']);
  end

  % rows from a dense matrix, and from a sparse matrix built here from the file's text
  [p2, ~, dv2] = svmpredict(ty, full(tx), m, '-q');
  check(isequal(p2, p) && isequal(dv2, dv), 'dense test matrix');
  text = strsplit(strtrim(fileread('train.ppk')), "\n");
  [r, c, v, labels] = deal([]);
  for i = 1:numel(text)
    fields = strsplit(strtrim(text{i}));
    labels(i, 1) = str2double(fields{1});
    for f = fields(2:end)
      pair = sscanf(f{1}, '%d:%f');
      [r(end + 1), c(end + 1), v(end + 1)] = deal(i, pair(1), pair(2));
    end
  end
  m2 = svmtrain(labels, sparse(r, c, v), sprintf('-q -t %d -g 0.5', t));
  [p2, ~, dv2] = svmpredict(ty, tx, m2, '-q');
  check(isequal(p2, p) && isequal(dv2, dv), 'a sparse matrix built in Octave');
  check(isequal(svmtrain(y, full(x), sprintf('-q -t %d -g 0.5', t)), m), 'a dense training matrix');
end

% libsvmwrite: rows that read back exactly (compared below with the command line's decisions)
libsvmwrite('written.ppk', ty, tx);
[wy, wx] = libsvmread('written.ppk');
check(isequal(wy, ty) && isequal(wx, tx), 'libsvmwrite / libsvmread round trip');

% the plugin's defaults for -g and -d
m = svmtrain(y, x, '-q -t ppk_norm');
write_lines('oct_defaults', {sprintf('%d', m.Parameters(3)), sprintf('%.17g', m.Parameters(4))});

% errors: a message and empty results, as LIBSVM's interface reports every error
out = evalc('bad = svmtrain(y, x, ''-t no_such_kernel'');');
check(isempty(bad) && ~isempty(strfind(out, 'Unknown kernel type: no_such_kernel')), ['-t no_such_kernel: ' out]);
[by, bx] = libsvmread('bad.ppk');
out = evalc('[bp, bacc, bdv] = svmpredict(by, bx, m);');
check(isempty(bp) && ~isempty(strfind(out, 'Error: testing instance 1: ')), ['a row that is no model: ' out]);
disp('octave: all checks passed');
OCTAVE
)" >octave.out 2>&1 || { cat octave.out >&2; fail "the Octave checks failed"; }
cat octave.out

for t in 5 6; do
  cmp dv$t oct_dv$t || fail "-t $t: Octave's predictions and decision values differ from svm-train/svm-predict"
  cmp acc$t oct_acc$t || fail "-t $t: accuracy differs: $(cat acc$t) / $(cat oct_acc$t)"
  cmp cv$t oct_cv$t || fail "-t $t -v 5: $(cat cv$t) / $(cat oct_cv$t)"
  cmp pb$t oct_pb$t || fail "-t $t -b 1: Octave's probabilities differ from svm-predict -b 1"
  pass "-t $t: Octave = command line ($(cat acc$t); $(cat cv$t))"
done
"$decision_values" m5 written.ppk >dv_written
cmp dv5 dv_written || fail "the test rows written by Octave's libsvmwrite give other decisions"
cmp defaults oct_defaults || fail "Octave's -t ppk_norm defaults differ from svm-train's: $(cat oct_defaults)"
pass "Octave: -t by name, the plugin's -g/-d defaults, save/load, sparse and dense rows, libsvmwrite, errors"
