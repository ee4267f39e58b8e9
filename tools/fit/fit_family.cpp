// The pieces of fit_family.hpp: INPUT's readers, the option readers and fitting every example.
#include "fit_family.hpp"

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "parallel.hpp"

namespace ppk::cli {
namespace {

// The models' dimension without --dim: the largest index of INPUT's examples.
long largest_index(const std::string& source, long max_index, bool has_examples) {
  if (max_index == 0 && has_examples) throw InputError(source + ": no example has any feature; give --dim D");
  return max_index;
}

// Examples fitted (and held) at a time by fit_streamed_rows.
constexpr std::size_t kChunkExamples = 4096;

// The row of example i of `data` (fit_rows); an example that cannot be fitted is an InputError naming it.
Row fit_row(const Estimator& estimator, const Dataset& data, std::size_t i, long dim, const Statistics* pooled,
            double lambda) {
  const Example& example = data.examples[i];
  std::unique_ptr<Model> model;
  try {
    model = estimate(estimator, example.vectors, dim, pooled, lambda);
  } catch (const PoolingUnsupported& e) {
    throw UsageError(message_of(e));
  } catch (const EstimationError& e) {
    throw data.error_at(example, message_of(e));
  }
  try {
    return encode_row(*model);
  } catch (const ModelError& e) {  // a row its reader would refuse (row.hpp, kMaxRowDenseValues)
    throw data.error_at(example, message_of(e));
  }
}

}  // namespace

void notes_to_stderr(const std::string& line) { std::cerr << line << '\n'; }

void FitRequest::note(const std::string& text) const {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) notes(line);
}

std::optional<long> dim_option(const po::variables_map& values) {
  if (!values.count("dim")) return std::nullopt;
  const long dim = values["dim"].as<long>();
  if (dim < 1 || dim > kMaxRowDenseValues)  // a row's D dense values (row.hpp)
    throw UsageError("--dim must be in [1, " + std::to_string(kMaxRowDenseValues) + "], got " + std::to_string(dim));
  return dim;
}

FitInput::FitInput(const FitSource& source, std::optional<long> dim)
    : source_(&source), data_(source.examples), dim_(dim) {}

FitInput::FitInput(Dataset data, long dim) : data_(std::make_shared<const Dataset>(std::move(data))), dim_(dim) {}

const Dataset& FitInput::data() const {
  if (!data_) {
    const std::unique_ptr<std::istream> in = source_->open();
    data_ = std::make_shared<const Dataset>(read_data(*in, source_->name));
  }
  return *data_;
}

long FitInput::dim() const {
  if (!dim_) {
    if (data_) {
      dim_ = largest_index(data_->source, data_->max_index, !data_->examples.empty());
    } else {
      const std::unique_ptr<std::istream> in = source_->open();
      DataStream stream(*in, source_->name);
      Example example;
      bool any = false;
      while (stream.next(example)) any = true;
      dim_ = largest_index(source_->name, stream.max_index(), any);
    }
  }
  return *dim_;
}

FitInput parse_libsvm_input(const FitSource& source, const FitRequest& request) { return FitInput(source, request.dim); }

void add_alphabet_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("alphabet", po::value<std::string>()->value_name("SYMBOLS"), "the symbols in index order, e.g. ACGT")
      ("alphabet-from", po::value<std::string>()->value_name("FILE"), "the alphabet saved by --save-alphabet")
      ("save-alphabet", po::value<std::string>()->value_name("FILE"), "write the alphabet used to FILE (one line)");
  // clang-format on
}

AlphabetOptions parse_alphabet_options(const po::variables_map& values) {
  if (values.count("alphabet") && values.count("alphabet-from"))
    throw UsageError("--alphabet and --alphabet-from exclude each other");
  AlphabetOptions options;
  for (auto [name, field] : {std::pair{"alphabet", &options.symbols}, std::pair{"alphabet-from", &options.from},
                             std::pair{"save-alphabet", &options.save}})
    if (values.count(name)) *field = values[name].as<std::string>();
  return options;
}

std::optional<Alphabet> alphabet_option(const AlphabetOptions& options) {
  if (options.symbols) return Alphabet(*options.symbols, "--alphabet");
  if (!options.from) return std::nullopt;
  InputFile file(*options.from);
  return read_alphabet(file.stream(), file.name());
}

FitInput read_symbol_input(const FitSource& source, const AlphabetOptions& options, SequenceFormat format,
                           const std::optional<Alphabet>& alphabet) {
  const std::unique_ptr<std::istream> text = source.open();
  const SequenceSet set = read_sequences(*text, source.name, format, alphabet);
  Dataset data;
  data.source = set.source;
  data.max_index = set.alphabet->size();
  for (const SymbolSequence& sequence : set.sequences) {
    Example example;
    example.label = sequence.label;
    example.line = sequence.line;
    example.vectors.reserve(sequence.symbols.size());
    for (long symbol : sequence.symbols) example.vectors.push_back(SparseVector{Feature{symbol, 1.0}});
    data.examples.push_back(std::move(example));
  }
  FitInput out(std::move(data), set.alphabet->size());
  out.alphabet = set.alphabet->symbols();
  if (options.save) out.side_outputs.emplace_back(*options.save, std::vector<std::string>{set.alphabet->symbols()});
  return out;
}

std::vector<Statistics> example_statistics(const Estimator& estimator, const Dataset& data, long dim) {
  std::vector<Statistics> statistics;
  for (const Example& example : data.examples) {
    try {
      statistics.push_back(estimator.statistics(example.vectors, dim));
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  return statistics;
}

Choice held_out_size(const SizeChoice& choice, const std::string& held_out, const char* symbol) {
  std::ostringstream how;
  how << "the held-out log-likelihood of " << held_out << " (";
  for (std::size_t i = 0; i < choice.grid.size(); ++i)
    how << (i ? ", " : "") << symbol << " = " << choice.grid[i] << ": " << std::fixed << std::setprecision(1)
        << choice.held_out_log_likelihoods[i];
  how << ")";
  return Choice{static_cast<double>(choice.size), how.str()};
}

double option(const po::variables_map& values, const char* name) { return values[name].as<double>(); }

std::optional<double> number_or_auto(const po::variables_map& values, const char* name, const char* fallback) {
  const std::string text = values.count(name) ? values[name].as<std::string>() : fallback;
  if (text == "auto") return std::nullopt;
  const std::optional<double> number = parse_double(text);
  if (!number) throw UsageError(std::string("--") + name + " must be a number or auto, got '" + text + "'");
  return number;
}

CovarianceForm covariance_form(const std::string& form) {
  if (form == "iso") return CovarianceForm::isotropic;
  if (form == "diag") return CovarianceForm::diagonal;
  if (form == "full") return CovarianceForm::full;
  throw UsageError("--cov must be iso, diag or full, got '" + form + "'");
}

std::vector<Row> fit_rows(const Estimator& estimator, const Dataset& data, long dim, const Statistics* pooled,
                          double lambda, unsigned threads) {
  std::vector<Row> rows(data.examples.size());
  for_each_index(data.examples.size(), threads, "fitting",
                 [&](std::size_t i) { rows[i] = fit_row(estimator, data, i, dim, pooled, lambda); });
  return rows;
}

void fit_streamed_rows(const Estimator& estimator, const FitSource& source, long dim, const Statistics* pooled,
                       double lambda, unsigned threads, std::ostream& out) {
  const std::unique_ptr<std::istream> in = source.open();
  DataStream stream(*in, source.name);
  Dataset chunk;
  chunk.source = source.name;
  std::vector<std::string> lines;
  long first_number = 1;
  for (;;) {
    chunk.examples.clear();
    Example example;
    while (chunk.examples.size() < kChunkExamples && stream.next(example)) chunk.examples.push_back(std::move(example));
    if (chunk.examples.empty()) return;
    chunk.grouped = stream.grouped();
    const std::size_t count = chunk.examples.size();
    lines.resize(count);
    for_each_index(count, threads,
                   "fitting examples " + std::to_string(first_number) + "-" +
                       std::to_string(first_number + static_cast<long>(count) - 1),
                   [&](std::size_t i) {
                     lines[i] =
                         format_row_line(chunk.examples[i].label, fit_row(estimator, chunk, i, dim, pooled, lambda));
                   });
    for (const std::string& line : lines) out << line << '\n';
    first_number += static_cast<long>(count);
  }
}

void add_em_options(po::options_description& options, long iterations, const char* iterations_help) {
  // clang-format off
  options.add_options()
      ("iterations", po::value<long>()->default_value(iterations)->value_name("N"), iterations_help)
      ("tolerance", po::value<double>()->default_value(1e-8)->value_name("T"),
       "stop when the objective gains less than T times its magnitude")
      ("restarts", po::value<long>()->default_value(3)->value_name("N"), "runs from different starts; the best is kept")
      ("seed", po::value<std::uint64_t>()->default_value(1)->value_name("S"), "the random seed");
  // clang-format on
}

}  // namespace ppk::cli
