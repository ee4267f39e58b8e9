// Models that can be sampled: the capability behind the Monte Carlo kernel (montecarlo.hpp).
//
// JMLR 2004 section 5 estimates k_rho(p, p') = integral p^rho p'^rho = Z E_{x ~ p^rho/Z}[p'(x)^rho]
// from draws of the tilted model p^rho / Z, Z(rho) = integral p^rho dx. A family that can be
// sampled implements SamplableModel next to Model (in its own file): draws from p^rho / Z, log Z(rho),
// and log p(x) at a sample. Which rho a family supports is its own: the tilted model must be one it
// can draw from and Z must have a closed form (a Gaussian for any rho, a mixture at rho = 1 only).
//
// A sample x is a column of doubles (sample_size() entries): a real vector as it is, a category d
// as the single number d (0-based), a binary vector as its 0/1 entries, a sequence x_0..x_T as its
// elements' columns stacked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/model.hpp"

namespace ppk {

// Random draws that are the same on every platform: std::mt19937_64 is specified exactly by the C++
// standard, while std::uniform_real_distribution and friends are not, so the draws below are computed
// here from the engine's raw 64-bit words, with +, *, /, sqrt and log only.
class SampleGenerator {
 public:
  explicit SampleGenerator(std::uint64_t seed) : engine_(seed) {}
  // Uniform on (0, 1): (the top 53 bits of a word + 1/2) / 2^53, never 0 or 1.
  double uniform();
  // Standard normal, by Marsaglia's polar method: (u, v) uniform on the unit disc (by rejection
  // from [-1, 1]^2), s = u^2 + v^2, then u sqrt(-2 log s / s) and v sqrt(-2 log s / s) are two
  // independent standard normals (the second is kept for the next call).
  double normal();
  // The index i of the first cumulative[i] > u * cumulative[n - 1] (u uniform): index i with
  // probability (cumulative[i] - cumulative[i - 1]) / cumulative[n - 1]. cumulative: n >= 1
  // non-decreasing partial sums of non-negative weights, the total positive.
  std::size_t categorical(const double* cumulative, std::size_t n);
  // log G for G ~ Gamma(shape, 1) (density g^(shape-1) e^-g / Gamma(shape)), shape > 0, in logs so
  // that draws of a small shape (which crowd towards 0) do not underflow. Shape >= 1: Marsaglia and
  // Tsang (2000): d = shape - 1/3, c = 1/sqrt(9d); draw z standard normal and u uniform, v = (1 + c z)^3;
  // accept G = d v when 1 + c z > 0 and log u < z^2/2 + d (1 - v + log v) (first tried as the cheap
  // squeeze u < 1 - 0.0331 z^4), else draw again. Shape < 1: G = G' u^(1/shape), G' ~ Gamma(shape + 1, 1)
  // and u uniform (the product has the Gamma(shape, 1) density), so log G = log G' + log(u) / shape.
  double log_gamma_variate(double shape);

 private:
  std::mt19937_64 engine_;
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

class SamplableModel {
 public:
  virtual ~SamplableModel() = default;
  // False when a part of the model cannot be sampled (a mixture component, an HMM emission).
  virtual bool can_sample() const { return true; }
  // The number of doubles in one sample. Sequence models use their prepared length T.
  virtual long sample_size() const = 0;
  // log Z(rho), Z(rho) = integral of p(x)^rho dx. Throws KernelDomainError, naming the model and rho,
  // where the family cannot draw from p^rho / Z or has no closed form for Z.
  virtual double log_tilted_normalizer(double rho) const = 0;
  // Fills every column of `samples` (sample_size() rows) with an independent draw from p^rho / Z.
  // Requires a rho that log_tilted_normalizer accepts.
  virtual void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const = 0;
  // log p(x) for a sample x of the model's sample space (-inf where p(x) = 0).
  virtual double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const = 0;
  // The multiply-adds of one log_probability call, counted from the model's sizes (at its prepared
  // length): the Monte Carlo kernel makes N such calls per row and pair (kMaxKernelWork, row.hpp). One
  // pass over the sample's entries here; a family whose log p(x) costs more overrides it.
  virtual double log_probability_work() const { return static_cast<double>(sample_size()); }
};

// Fills column k of `samples` with a draw from parts[labels[k]] at rho, for models made of other
// models (a mixture's components, an HMM's emissions): each part draws all of its columns at once,
// parts in order, so the draws depend only on the labels and the generator.
void sample_parts(const std::vector<const SamplableModel*>& parts, const std::vector<std::size_t>& labels, double rho,
                  SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples);

// KernelDomainError unless rho = 1, for the models that Monte Carlo draws from only at rho = 1 (a
// mixture, an HMM, ...: p^rho / Z is not a model of their family and Z has no closed form), naming
// the model's family and sample space, `what` ("a mixture"), `why` and rho.
void require_rho_one(const Model& model, const std::string& what, const std::string& why, double rho);

// `model` as a samplable model, or nullptr when its family, or a part of it, cannot be sampled.
const SamplableModel* as_samplable(const Model& model);

}  // namespace ppk
