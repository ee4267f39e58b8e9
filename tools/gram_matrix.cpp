#include "gram_matrix.hpp"

#include <atomic>
#include <cmath>
#include <limits>

#include "cli.hpp"
#include "parallel.hpp"

namespace ppk::cli {

PreparedFile prepare_rows(const std::vector<LabeledRow>& rows, const std::string& name, KernelKind kind,
                          const KernelParams& params) {
  PreparedFile file;
  file.name = name;
  file.models.reserve(rows.size());
  file.labels.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    file.models.push_back(prepare_labeled_row(rows[i], file.name, static_cast<long>(i + 1), kind, params));
    file.labels.push_back(rows[i].label);
  }
  return file;
}

std::string pair_name(const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j) {
  return a.name + ": row " + std::to_string(i + 1) + " and " + b.name + ": row " + std::to_string(j + 1);
}

double kernel_entry(KernelKind kind, const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j) {
  const double value = pair_value(
      a, i, b, j, [kind](const PreparedModel& left, const PreparedModel& right) { return evaluate(kind, left, right); });
  if (!std::isfinite(value))
    throw InputError(pair_name(a, i, b, j) + ": the kernel value " + format_double(value) + " is not finite");
  return value;
}

void check_first_row_and_column(KernelKind kind, const PreparedFile& a, const PreparedFile& b) {
  if (a.models.empty() || b.models.empty()) return;
  for (std::size_t j = 0; j < b.models.size(); ++j) kernel_entry(kind, a, 0, b, j);
  for (std::size_t i = 0; i < a.models.size(); ++i) kernel_entry(kind, a, i, b, 0);
}

GramMatrix compute_gram(KernelKind kind, const PreparedFile& a, const PreparedFile& b, bool against_self,
                        unsigned threads) {
  const auto rows = static_cast<Eigen::Index>(a.models.size());
  const auto cols = static_cast<Eigen::Index>(b.models.size());
  GramMatrix gram(rows, cols);
  for_each_index(a.models.size(), threads, "gram rows", [&](std::size_t i) {
    for (std::size_t j = against_self ? i : 0; j < b.models.size(); ++j)
      gram(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = kernel_entry(kind, a, i, b, j);
  });
  if (against_self)
    for (Eigen::Index i = 1; i < rows; ++i)
      for (Eigen::Index j = 0; j < i; ++j) gram(i, j) = gram(j, i);
  return gram;
}

std::optional<std::vector<GramMatrix>> compute_log_grams_over_lengths(const PreparedFile& a,
                                                                      const std::vector<int>& lengths, unsigned threads) {
  const std::size_t n = a.models.size();
  std::vector<double> first(lengths.size());
  if (n == 0 || !log_kernels_over_lengths(*a.models[0], *a.models[0], lengths, first.data())) return std::nullopt;
  const auto size = static_cast<Eigen::Index>(n);
  std::vector<GramMatrix> log_grams(lengths.size(), GramMatrix(size, size));
  std::atomic<bool> every_pair_in_one_pass{true};
  for_each_index(n, threads, "gram rows", [&](std::size_t i) {
    std::vector<double> logs(lengths.size());
    for (std::size_t j = i; j < n && every_pair_in_one_pass; ++j) {
      try {
        check_compatible(*a.models[i], *a.models[j]);
        if (!log_kernels_over_lengths(*a.models[i], *a.models[j], lengths, logs.data())) {
          every_pair_in_one_pass = false;  // rows of two families: each T on its own
          return;
        }
      } catch (const KernelDomainError& e) {
        throw InputError(pair_name(a, i, a, j) + ": " + e.what());
      }
      for (std::size_t t = 0; t < lengths.size(); ++t) {
        if (std::isnan(logs[t]) || logs[t] == std::numeric_limits<double>::infinity())
          throw InputError(pair_name(a, i, a, j) + " at T = " + std::to_string(lengths[t]) +
                           ": the log of the kernel value is " + format_double(logs[t]));
        log_grams[t](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = logs[t];
      }
    }
  });
  if (!every_pair_in_one_pass) return std::nullopt;
  for (GramMatrix& log_gram : log_grams) log_gram.triangularView<Eigen::StrictlyLower>() = log_gram.transpose();
  return log_grams;
}

GramMatrix gram_from_log_gram(KernelKind kind, const GramMatrix& log_gram, const PreparedFile& a) {
  const Eigen::Index n = log_gram.rows();
  GramMatrix gram(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i; j < n; ++j) {
      const double value = kernel_value(kind, log_gram(i, j), log_gram(i, i), log_gram(j, j));
      if (!std::isfinite(value))
        throw InputError(pair_name(a, static_cast<std::size_t>(i), a, static_cast<std::size_t>(j)) +
                         ": the kernel value " + format_double(value) + " is not finite");
      gram(i, j) = gram(j, i) = value;
    }
  return gram;
}

GramMatrix combined_gram(Eigen::Index n, const std::vector<const GramMatrix*>& parts, const std::vector<double>& weights,
                         KernelKind kind) {
  GramMatrix gram = GramMatrix::Zero(n, n);
  double sum = 0.0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (weights[i] > 0.0) gram += weights[i] * *parts[i];
    sum += weights[i];
  }
  if (kind == KernelKind::ppk_norm) gram /= sum;
  return gram;
}

}  // namespace ppk::cli
