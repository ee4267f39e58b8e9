// The generative-model interface behind every kernel family.
//
// A Model is one fitted distribution p(x) over a sample space. The probability
// product kernel (JMLR 2004, eq. 2) between two models of the same family is
//     k_rho(p, p') = integral of p(x)^rho p'(x)^rho dx,
// which each family evaluates in closed form (JMLR 2004, section 3).
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ppk {

struct FamilyInfo;

// The kernel's parameters, carried by LIBSVM's existing fields: -g is rho, -d is T.
struct KernelParams {
  double rho = 1.0;  // > 0; 1/2 is the Bhattacharyya kernel, 1 the expected-likelihood kernel
  int length = 0;    // T for sequence models (observations x_0..x_T); 0 = each model's own
};

// What a model is a distribution over. Two models have a kernel only when their
// sample spaces agree (the same kind over the same dimension).
struct SampleSpace {
  std::string kind;  // e.g. "real vectors", "binary vectors", "categories"
  long dim = 0;
  bool operator==(const SampleSpace& other) const { return kind == other.kind && dim == other.dim; }
  bool operator!=(const SampleSpace& other) const { return !(*this == other); }
  std::string describe() const { return kind + " of dimension " + std::to_string(dim); }
};

// A row, a JSON object or an estimate that does not describe a valid model.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A kernel that is not defined for this pair of models or this rho
// (different sample spaces, rho outside the family's domain, a divergent integral).
class KernelDomainError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws std::invalid_argument unless lengths[0..n) is not empty, strictly ascending, and within [0, steps]:
// what log_kernel_over_lengths takes from models prepared for steps = T.
inline void check_kernel_lengths(const int* lengths, std::size_t n, long steps) {
  if (n == 0) throw std::invalid_argument("kernel over lengths: no length T given");
  for (std::size_t k = 0; k < n; ++k) {
    if (lengths[k] < 0 || lengths[k] > steps)
      throw std::invalid_argument("kernel over lengths: T = " + std::to_string(lengths[k]) + " is outside [0, " +
                                  std::to_string(steps) + "], the T the models were prepared for");
    if (k > 0 && lengths[k] <= lengths[k - 1])
      throw std::invalid_argument("kernel over lengths: the lengths T must be strictly ascending; T = " +
                                  std::to_string(lengths[k]) + " follows T = " + std::to_string(lengths[k - 1]));
  }
}

class Model {
 public:
  virtual ~Model() = default;

  virtual const FamilyInfo& family() const = 0;
  virtual SampleSpace sample_space() const = 0;

  // Precomputes the per-example invariants that depend on the kernel parameters
  // (a_d^rho, ...). Called once after decoding, before any kernel evaluation.
  // Throws KernelDomainError when rho is outside the family's domain.
  virtual void prepare(const KernelParams& params) = 0;

  // log k_rho(*this, other) for `other` of the same family (the dispatcher
  // guarantees it; see kernel.hpp). Requires prepare() on both with the same params.
  virtual double log_kernel(const Model& other) const = 0;

  // The T of a sequence model (x_0..x_T): -d T once prepared, else the stored length; nothing (the
  // default) for a model without time steps. One -d T gives every such row a kernel of x_0..x_T.
  virtual std::optional<long> sequence_steps() const { return std::nullopt; }

  // What each time step of a sequence model observes, where its sample space does not say it (an HMM's
  // emission space: its sample space gives only their dimension); nothing by default. Two sequence
  // models of one family that differ only in T have a kernel once -d T is given when these agree.
  virtual std::optional<SampleSpace> step_space() const { return std::nullopt; }

  // The model whose kernel this row's values estimate (a montecarlo row's inner model); by default the
  // model itself.
  virtual const Model& estimated_model() const { return *this; }

  // A row whose kernel is the weighted sum of its parts' normalized kernels (combined.hpp:
  // K(a, b) = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i))): the weights w_1..w_P, and
  // part(i) its part i < P; nullptr for every other model (the default), whose part() throws
  // std::out_of_range. Such a row's feature map is its parts' maps side by side, part i's scaled by
  // sqrt(w_i) (maps/feature_map.hpp).
  virtual const std::vector<double>* part_weights() const { return nullptr; }
  virtual const Model& part(std::size_t /*i*/) const {
    throw std::out_of_range("Model::part: a model without weighted parts");
  }

  // This model's share w of the multiply-adds of one kernel evaluation, beyond a pass over the two
  // models' parameters (0: that pass is all), as counted by prepare(): an evaluation between models a
  // and b of one shape costs about w_a + w_b. Families whose kernel can cost far more than their row
  // holds count it and refuse a row beyond kMaxKernelWork (row.hpp); models made of other models
  // (mixture components, HMM emissions, network leaves) count their parts' kernels with it.
  virtual double kernel_work() const { return 0.0; }

  // log k_rho(*this, other) at each T = lengths[0..n) (strictly ascending, in [0, the prepared T]; 0 is x_0
  // alone, not -d 0's "each model's own length") into out[0..n), as log_kernel would give after
  // prepare({rho, T}) of both models with the stored length T: from one pass of the kernel's recursion over
  // time steps, for the families whose kernel at T is read off that recursion at step T (hmm: the forward
  // recursion over pairs of states, JMLR 2004 section 4.2; lds: the Kalman filter's prediction-error sums).
  // Both models are prepared with the same rho and the largest T, lengths[n-1] or more. Throws
  // std::invalid_argument (check_kernel_lengths) for lengths out of order or beyond the prepared T. Returns
  // false, writing nothing, for a family whose kernel at T is not a prefix of its computation at a larger
  // T (the default: every family that is not a sequence model, and slds, fhmm and montecarlo: see their
  // headers).
  virtual bool log_kernel_over_lengths(const Model& /*other*/, const int* /*lengths*/, std::size_t /*n*/,
                                       double* /*out*/) const {
    return false;
  }

  // k_rho(*this, other). Families whose kernel is a plain sum override this to
  // avoid the log/exp round trip; the default exponentiates log_kernel.
  virtual double kernel(const Model& other) const { return std::exp(log_kernel(other)); }

  // out[k] = kernel(*others[k]) and out[k] = log_kernel(*others[k]) for k < n, the same values
  // bit for bit, every others[k] of this family: LIBSVM asks for kernel columns in batches.
  // Families override these where a batch is cheaper than n pairs; the defaults loop.
  virtual void kernel_many(const Model* const* others, std::size_t n, double* out) const {
    for (std::size_t k = 0; k < n; ++k) out[k] = kernel(*others[k]);
  }
  virtual void log_kernel_many(const Model* const* others, std::size_t n, double* out) const {
    for (std::size_t k = 0; k < n; ++k) out[k] = log_kernel(*others[k]);
  }
};

}  // namespace ppk
