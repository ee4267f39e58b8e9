// ppk gram: the kernel matrix between the model rows of two files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "cli.hpp"
#include "gram_matrix.hpp"
#include "parallel.hpp"
#include "png_image.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/kernel_diagnostic.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/spectrum.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kGramUsage = R"usage(Usage: ppk gram -t ppk|ppk_norm -g RHO [-d T] A [B] [options]

Computes the kernel matrix K(i, j) = k(row i of A, row j of B) between the model
rows of A and B (B = A if absent; '-' = standard input for one of them).
  ppk       k_rho(p, p') = integral of p(x)^rho p'(x)^rho dx        (-t 5)
  ppk_norm  k_rho(p, p') / sqrt(k_rho(p, p) k_rho(p', p'))           (-t 6)
These are svm-train's -t, -g and -d. -d T: time steps of sequence models (hmm,
fhmm, lds, slds): the kernel compares x_0..x_T, i.e. T + 1 observations (default
0: each row's own stored T; rows of different T need one -d T). Each row is
decoded and validated once.

The matrix is written (to -o OUTPUT, else standard output unless --psd, --png or
--summary is given) in one of two formats, every value in the fewest digits that
read back as the same double, except subnormal values (0 < |K| < 2.2e-308),
which LIBSVM's reader refuses: they are written as 2.2250738585072014e-308, the
smallest normal double. That changes no decision: a decision value sums
alpha_i y_i K(x_i, x) with alpha_i <= C, so the change is below C * 2.3e-308 per
term, far below what the solver resolves (-e, default 0.001).
  matrix       one matrix row per line, values separated by single spaces
  precomputed  LIBSVM's precomputed-kernel rows "LABEL 0:i 1:K(i,1) ... m:K(i,m)",
               the label from row i of A, for svm-train -t 4 / svm-predict:
                 ppk gram -t ppk -g 1 --format precomputed train.ppk -o train.k
                 ppk gram -t ppk -g 1 --format precomputed test.ppk train.ppk -o test.k
--psd (A alone) prints the spectrum of the symmetric K on standard output:
  size, smallest and largest eigenvalue, the tolerance, and the number of
  eigenvalues below -tolerance (a valid kernel has none).
--png FILE writes K as an 8-bit greyscale image, one pixel per entry, rows and
columns sorted by label (stably), black = the smallest entry, white = the largest.
--summary prints on standard output the quantiles (min, 1%, 10%, 25%, 50%, 75%,
90%, 99%, max) of the normalised values c = k(p,p')/sqrt(k(p,p) k(p',p')) between
different rows (in log space: they can span hundreds of orders of magnitude),
and how many are below 1e-6 and above 1 - 1e-6. Choose rho (-g) and T (-d) with
it before a grid search: nearly all c near 0 make K nearly the identity (every
row unrelated to every other), nearly all near 1 make it nearly constant.
Without --summary, 200 pairs drawn with a fixed seed are checked instead; in both
cases ppk gram (and svm-train -t ppk|ppk_norm) warns on standard error when at
least 95% of the values are below 1e-6 or above 1 - 1e-6, with what to try.
)usage";

PreparedFile prepare_file(const std::string& path, KernelKind kind, const KernelParams& params) {
  InputFile input(path);
  return prepare_rows(read_rows(input.stream(), input.name()), input.name(), kind, params);
}

// One warning on standard error per family in A or B whose kernel is a bound or an estimate
// (FamilyInfo::approximation), in the order the families first appear.
void warn_about_inexact_kernels(const PreparedFile& a, const PreparedFile& b) {
  std::vector<const FamilyInfo*> warned;
  for (const PreparedFile* file : {&a, &b})
    for (const auto& model : file->models) {
      const FamilyInfo& family = model->family();
      if (family.exact() || std::find(warned.begin(), warned.end(), &family) != warned.end()) continue;
      warned.push_back(&family);
      std::cerr << "ppk gram: warning: " << inexact_kernel_warning(family) << "\n";
    }
}

std::vector<const PreparedModel*> model_pointers(const PreparedFile& file) {
  std::vector<const PreparedModel*> models;
  for (const auto& model : file.models) models.push_back(model.get());
  return models;
}

// log of the normalised kernel c(a_i, b_j) = k / sqrt(k(a_i, a_i) k(b_j, b_j)), checked: -inf (k = 0)
// is a value, NaN and +inf are errors.
double log_normalized_entry(const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j) {
  const double value = pair_value(a, i, b, j, [](const PreparedModel& left, const PreparedModel& right) {
    return log_normalized_kernel(left, right);
  });
  if (std::isnan(value) || value == std::numeric_limits<double>::infinity())
    throw InputError(pair_name(a, i, b, j) + ": the log of the normalised kernel value is " + format_double(value));
  return value;
}

// log c(a_i, b_j) for every pair of different rows (i < j against itself), row by row on `threads`
// threads: what --summary describes.
std::vector<double> all_log_normalized_kernels(const PreparedFile& a, const PreparedFile& b, bool against_self,
                                               unsigned threads) {
  std::vector<std::vector<double>> rows(a.models.size());
  for_each_index(a.models.size(), threads, "summary rows", [&](std::size_t i) {
    for (std::size_t j = against_self ? i + 1 : 0; j < b.models.size(); ++j)
      rows[i].push_back(log_normalized_entry(a, i, b, j));
  });
  std::vector<double> values;
  for (const std::vector<double>& row : rows) values.insert(values.end(), row.begin(), row.end());
  return values;
}

// --summary: the quantiles of the normalised kernel values between different rows, and how many are
// near 0 and near 1 (the thresholds of the degenerate-kernel warning).
void print_summary(const std::vector<double>& log_values) {
  const KernelSpread spread = kernel_spread(log_values);
  std::cout << "normalised kernel values k(p,p')/sqrt(k(p,p) k(p',p')) between different rows: " << spread.pairs
            << " pairs\nquantile value log10\n";
  char line[128];
  for (const KernelQuantile& quantile : kernel_quantiles(log_values)) {
    const std::string name = quantile.percent == 0     ? "min"
                             : quantile.percent == 100 ? "max"
                                                       : std::to_string(quantile.percent) + "%";
    std::snprintf(line, sizeof line, "%s %s %.6f\n", name.c_str(), format_exp(quantile.log_value, 6).c_str(),
                  quantile.log_value / std::log(10.0));
    std::cout << line;
  }
  std::cout << "below 1e-6: " << spread.near_zero << "\nabove 1 - 1e-6: " << spread.near_one << '\n';
}

// The matrix format: row i as "K(i,1) ... K(i,m)"; the precomputed format: row i as
// "label_i 0:i 1:K(i,1) ... m:K(i,m)" (LIBSVM's README, "precomputed kernel"). Both write every
// value libsvm_readable: a subnormal K as +-DBL_MIN, which LIBSVM's reader accepts.
void write_gram(std::ostream& out, const GramMatrix& gram, const std::vector<double>& labels, bool precomputed) {
  std::string line;
  for (Eigen::Index i = 0; i < gram.rows(); ++i) {
    line.clear();
    if (precomputed) {
      Row row;
      row.push_back({0, static_cast<double>(i + 1)});
      for (Eigen::Index j = 0; j < gram.cols(); ++j) row.push_back({static_cast<int>(j + 1), gram(i, j)});
      line = format_row_line(labels[static_cast<std::size_t>(i)], row);
    } else {
      for (Eigen::Index j = 0; j < gram.cols(); ++j) {
        if (j > 0) line += ' ';
        append_number(line, libsvm_readable(gram(i, j)));
      }
    }
    line += '\n';
    out << line;
  }
}

void print_spectrum(const GramMatrix& gram, const GramSpectrum& spectrum) {
  std::cout << "size: " << gram.rows() << "\nsmallest eigenvalue: " << format_double(spectrum.smallest)
            << "\nlargest eigenvalue: " << format_double(spectrum.largest)
            << "\ntolerance: " << format_double(spectrum.tolerance)
            << "\nnegative eigenvalues: " << spectrum.negative_count << '\n';
}

// The positions 0..n-1 stably sorted by label.
std::vector<std::size_t> label_order(const std::vector<double>& labels) {
  std::vector<std::size_t> order(labels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return labels[x] < labels[y]; });
  return order;
}

// The heat map: pixel (r, c) = K(row_order[r], col_order[c]) mapped linearly from
// [min K, max K] onto grey levels 0..255 (all white if K is constant).
void write_heat_map(std::ostream& out, const std::string& name, const GramMatrix& gram,
                    const std::vector<double>& row_labels, const std::vector<double>& col_labels) {
  const std::vector<std::size_t> row_order = label_order(row_labels);
  const std::vector<std::size_t> col_order = label_order(col_labels);
  const double low = gram.minCoeff();
  const double range = gram.maxCoeff() - low;
  std::vector<unsigned char> pixels;
  pixels.reserve(static_cast<std::size_t>(gram.size()));
  for (std::size_t r : row_order)
    for (std::size_t c : col_order) {
      const double value = gram(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
      const double level = range > 0 ? 255 * (value - low) / range : 255;
      pixels.push_back(static_cast<unsigned char>(std::lround(level)));
    }
  write_greyscale_png(out, name, static_cast<int>(gram.cols()), static_cast<int>(gram.rows()), pixels);
}

}  // namespace

int run_gram(const std::vector<std::string>& args) {
  std::string kind_text, output_path, path_a, path_b, format, png_path;
  KernelParams params;
  double psd_tolerance = -1;
  po::options_description options("Options");
  // clang-format off
  add_kernel_options(options, kind_text, params);
  options.add_options()
      ("output,o", po::value<std::string>(&output_path)->value_name("OUTPUT"),
       "where to write the matrix ('-' = standard output, the default without --psd and --png)")
      ("format", po::value<std::string>(&format)->default_value("matrix")->value_name("matrix|precomputed"),
       "the matrix's format: plain rows, or LIBSVM's precomputed-kernel rows (svm-train -t 4)")
      ("psd", "print the spectrum of K (A alone): smallest and largest eigenvalue, and how many are negative")
      ("psd-tolerance", po::value<double>(&psd_tolerance)->value_name("TOL"),
       "with --psd: eigenvalues in [-TOL, 0) are rounding, not negative (default: n * DBL_EPSILON * "
       "max |eigenvalue|, what a symmetric eigensolver cannot resolve)")
      ("png", po::value<std::string>(&png_path)->value_name("FILE"),
       "write K as a greyscale PNG heat map, rows and columns sorted by label")
      ("summary", "print the quantiles of the normalised kernel values between different rows, to choose "
       "rho and T (the matrix is computed only with -o, --psd or --png)");
  // clang-format on
  add_threads_option(options, "compute N matrix rows at a time");
  options.add_options()("help,h", "this text");
  if (wants_help(args)) {
    std::cout << kGramUsage << "\n" << options;
    return 0;
  }
  po::options_description all = options;
  all.add_options()("a", po::value<std::string>(&path_a), "A")("b", po::value<std::string>(&path_b), "B");
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  const po::variables_map values = parse_command_line(args, all, positional);
  const KernelKind kind = kernel_option_values(values, kind_text, params);
  if (format != "matrix" && format != "precomputed")
    throw UsageError("--format must be matrix or precomputed, got '" + format + "'");
  if (!values.count("a")) throw UsageError("missing A, the file of model rows");
  const bool against_self = !values.count("b");
  if (!against_self && path_a == "-" && path_b == "-") throw UsageError("A and B cannot both be standard input");
  const bool psd = values.count("psd") > 0;
  if (psd && !against_self) throw UsageError("--psd needs the symmetric matrix of A with itself: give A alone, not B");
  if (values.count("psd-tolerance") && !psd) throw UsageError("--psd-tolerance needs --psd");
  if (values.count("psd-tolerance") && !(psd_tolerance >= 0 && std::isfinite(psd_tolerance)))
    throw UsageError("--psd-tolerance must be a finite number >= 0, got " + format_double(psd_tolerance));
  if (psd && output_path == "-")
    throw UsageError("--psd prints the spectrum on standard output: write the matrix with -o FILE");
  const bool summary = values.count("summary") > 0;
  if (summary && output_path == "-")
    throw UsageError("--summary prints the quantiles on standard output: write the matrix with -o FILE");
  const bool png = values.count("png") > 0;
  if (png && (png_path.empty() || png_path == "-")) throw UsageError("--png needs a file name");
  if (!values.count("output") && !psd && !png && !summary) output_path = "-";
  const unsigned threads = threads_option(values);

  const PreparedFile a = prepare_file(path_a, kind, params);
  const PreparedFile b_file = against_self ? PreparedFile{} : prepare_file(path_b, kind, params);
  const PreparedFile& b = against_self ? a : b_file;
  warn_about_inexact_kernels(a, b);
  if (png && (a.models.empty() || b.models.empty()))
    throw InputError("--png: the matrix is empty (" + std::to_string(a.models.size()) + " x " +
                     std::to_string(b.models.size()) + "), and a PNG image cannot be");

  check_first_row_and_column(kind, a, b);
  const bool needs_matrix = !output_path.empty() || psd || png;
  const GramMatrix gram = needs_matrix ? compute_gram(kind, a, b, against_self, threads) : GramMatrix{};

  // The degenerate-kernel warning: on every pair with --summary, else on a sample of pairs.
  const std::vector<double> log_values =
      summary ? all_log_normalized_kernels(a, b, against_self, threads)
              : sample_log_normalized_kernels(model_pointers(a), model_pointers(b), against_self);
  const std::string warning = degenerate_kernel_warning(kernel_spread(log_values), params);
  if (!warning.empty()) std::cerr << "ppk gram: warning: " << warning << "\n";

  const GramSpectrum spectrum = psd ? gram_spectrum(gram, psd_tolerance) : GramSpectrum{};

  // Both files are committed only when both are written, so a failure leaves neither.
  std::optional<OutputFile> matrix_file, png_file;
  if (!output_path.empty()) {
    matrix_file.emplace(output_path);
    write_gram(matrix_file->stream(), gram, a.labels, format == "precomputed");
  }
  if (png) {
    png_file.emplace(png_path);
    write_heat_map(png_file->stream(), png_path, gram, a.labels, b.labels);
  }
  if (matrix_file) matrix_file->commit();
  if (png_file) png_file->commit();
  if (psd) print_spectrum(gram, spectrum);
  if (summary) print_summary(log_values);
  return 0;
}

}  // namespace ppk::cli
