% LIBSVM's Octave interface on mutated models (libsvm-patch/07-matlab-model.patch), run by
% model_mutations.py, all in one Octave process (a crash fails the run):
%  1. every mutated model file of model_mutations.py: svmloadmodel refuses it (an empty answer and
%     a message) or gives a struct whose svmpredict labels are svm-predict's on the same file;
%  2. seeded mutations of the base models' structs, as a .mat file edited or damaged gives them
%     (fields dropped, renamed, reordered, of another class or shape, resized, values replaced, a
%     struct array): svmpredict refuses each (an empty answer and a message, or an Octave error)
%     or predicts every row; a struct it accepts, svmsavemodel writes, and svm-predict on that file
%     predicts the same labels on the rows libsvmwrite writes (the very rows of svmpredict: a
%     precomputed kernel's file read by libsvmread has its 0:serial in column 1).
%
%   octave-cli model_mutations.m MEXDIR CASES BASES SVM_PREDICT WORKDIR STRUCT_CASES
% CASES: lines "model<TAB>rows<TAB>svm-predict options<TAB>svm-predict's output or -";
% BASES: lines "model<TAB>rows" (the unmutated models).
1;

function [y, x] = rows_of(rows_cache, path)
  if ~isKey(rows_cache, path)
    [y, x] = libsvmread(path);
    rows_cache(path) = {y, x};
  end
  both = rows_cache(path);
  y = both{1};
  x = both{2};
end

% the labels in svm-predict's output file (after the header line of -b 1)
function labels = labels_in(path, probability)
  lines = strsplit(fileread(path), "\n");
  lines = lines(~cellfun(@isempty, lines));
  if probability
    lines = lines(2:end);
  end
  labels = cellfun(@(line) sscanf(line, "%f", 1), lines)';
end

% svm-predict's labels are written with %.17g, or %g with -b 1
function same = same_labels(ours, theirs, probability)
  if numel(ours) ~= numel(theirs)
    same = false;
  elseif probability
    same = all(abs(ours - theirs) <= 1e-5 * max(1, abs(theirs)));
  else
    same = isequal(ours, theirs);
  end
end

% [labels, message]: svmpredict's answer, or [] and what it printed (or the error it raised)
function [labels, message] = predict_quietly(y, x, model, options)
  labels = [];
  try
    message = evalc("labels = svmpredict(y, x, model, options);");
  catch err
    message = ["error: " err.message];
  end
end

function value = pick(choices)
  value = choices{randi(numel(choices))};
end

% one mutation of a model struct (a struct array for one kind)
function m = mutate(m)
  names = fieldnames(m);
  f = names{randi(numel(names))};
  v = m.(f);
  switch randi(11)
    case 1  % a field dropped
      m = rmfield(m, f);
    case 2  % a field renamed (and so moved last)
      m = rmfield(m, f);
      m.([f "_"]) = v;
    case 3  % the fields in another order
      m = orderfields(m);
    case 4  % a field replaced by a value of another class or size
      m.(f) = pick({[], 0, -1, NaN, Inf, 1e10, 1.5, "text", {}, int32(1), 1i, true, zeros(0, 3), ones(3, 3)});
    case 5  % the last row (or element) removed
      if isvector(v) && ~isempty(v)
        v(end) = [];
      elseif ~isempty(v)
        v(end, :) = [];
      end
      m.(f) = v;
    case 6  % the last row (or element) repeated
      if isempty(v)
        v = 1;
      elseif isvector(v) && size(v, 1) == 1
        v(end + 1) = v(end);
      else
        v(end + 1, :) = v(end, :);
      end
      m.(f) = v;
    case {7, 8}  % one value replaced
      if ~isempty(v) && isnumeric(v)
        i = randi(numel(v));
        v(i) = pick({NaN, Inf, -Inf, -1, 0, 1e10, -1e10, 0.5, v(i) + 1, 2^31, -2^31 - 1, 3, 100});
        m.(f) = v;
      end
    case 9  % transposed
      m.(f) = v';
    case 10  % of another class: sparse <-> full, single, integer, logical, complex
      if issparse(v)
        m.(f) = pick({full(v), logical(v), complex(v)});
      else
        m.(f) = pick({sparse(double(v)), single(v), int32(v), logical(v), complex(v)});
      end
    case 11  % a struct array
      m = [m m];
  end
end

args = argv();
[mexdir, cases_path, bases_path, svm_predict, work, struct_cases] = args{:};
struct_cases = str2double(struct_cases);
addpath(mexdir);
rows_cache = containers.Map();

% 1. the mutated model files
cases = strsplit(strtrim(fileread(cases_path)), "\n");
loaded = refused = 0;
for k = 1:numel(cases)
  c = strsplit(cases{k}, "\t", "CollapseDelimiters", false);
  [path, rows, options, output] = c{:};
  probability = ~isempty(options);
  message = evalc("model = svmloadmodel(path);");
  if isempty(model)
    if strcmp(output, "-") == 0
      error("FAIL: svmloadmodel refuses %s, which svm-predict predicts", path);
    end
    if isempty(strfind(message, "can't load model file"))
      error("FAIL: svmloadmodel refuses %s without saying so: %s", path, message);
    end
    refused++;
    continue;
  end
  [y, x] = rows_of(rows_cache, rows);
  [labels, message] = predict_quietly(y, x, model, strtrim([options " -q"]));
  if strcmp(output, "-")
    if ~isempty(labels)
      error("FAIL: svmpredict predicts with %s, which svm-predict refuses", path);
    end
    refused++;
  elseif ~same_labels(labels, labels_in(output, probability), probability)
    error("FAIL: %s: svmpredict's labels are not svm-predict's: %s", path, message);
  else
    loaded++;
  end
end
printf("Octave (svmloadmodel, svmpredict): %d mutated model files, %d predicted with svm-predict's labels, %d refused as svm-predict refuses them\n",
       numel(cases), loaded, refused);

% 2. mutated structs
rand("state", 20261128);
bases = strsplit(strtrim(fileread(bases_path)), "\n");
predicted = refused = 0;
saved = fullfile(work, "octave_saved.model");
predictions = fullfile(work, "octave_saved.out");
for k = 1:struct_cases
  b = strsplit(bases{mod(k - 1, numel(bases)) + 1}, "\t", "CollapseDelimiters", false);
  evalc("base = svmloadmodel(b{1});");
  [y, x] = rows_of(rows_cache, b{2});
  written = fullfile(work, sprintf("octave_rows_%d.txt", mod(k - 1, numel(bases)) + 1));
  if k <= numel(bases)
    libsvmwrite(written, y, x);
  end
  mutated = base;
  for n = 1:randi(2)  % one or two mutations (one that cannot be made, e.g. logical(NaN), is drawn again)
    for attempt = 1:20
      try
        mutated = mutate(mutated);
        break;
      catch
      end
    end
  end
  [labels, message] = predict_quietly(y, x, mutated, "-q");
  if isempty(labels)
    if isempty(strtrim(message))
      error("FAIL: struct case %d: svmpredict refuses it without a message", k);
    end
    refused++;
    continue;
  end
  if numel(labels) ~= numel(y) || ~all(isfinite(labels))
    error("FAIL: struct case %d: svmpredict gives %d labels (finite: %d) for %d rows", k, numel(labels),
          all(isfinite(labels)), numel(y));
  end
  % what svmpredict accepted, svmsavemodel writes and svm-predict predicts alike
  message = evalc("status = svmsavemodel(mutated, saved);");
  if status ~= 0
    error("FAIL: struct case %d: svmpredict accepts it, svmsavemodel does not: %s", k, message);
  end
  [status, output] = system(sprintf("'%s' '%s' '%s' '%s'", svm_predict, written, saved, predictions));
  if status ~= 0
    error("FAIL: struct case %d: svmpredict accepts it, svm-predict refuses the file of svmsavemodel: %s", k, output);
  end
  if ~same_labels(labels, labels_in(predictions, false), false)
    error("FAIL: struct case %d: svmpredict's labels are not svm-predict's on the file of svmsavemodel", k);
  end
  predicted++;
end
printf("Octave (svmpredict): %d mutated model structs, %d refused with a message, %d predicted with the labels of svm-predict on the file of svmsavemodel; 0 crashes\n",
       struct_cases, refused, predicted);
if refused < struct_cases / 2
  error("FAIL: only %d of %d struct mutations refused: the generator mutates too little", refused, struct_cases);
end
