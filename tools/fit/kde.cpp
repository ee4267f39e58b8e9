// ppk fit kde: the kernel density estimate, set by its bandwidth.
#include <memory>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_mixture.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kKdeHelp = R"(
kde: the kernel density estimate (1/n) sum_i N(x_i, h I), a mixture with one
  isotropic Gaussian of variance h (--bandwidth) per vector.
  Mean maps: --mean-map-sigma SIGMA sets h = SIGMA^2/2. Since
  integral N(x|a,hI) N(x|b,hI) dx = N(a|b,2hI), the rho = 1 kernel of two sets is
    ppk -g 1:      (2 pi SIGMA^2)^(-D/2) (1/(n m)) sum_ij exp(-|x_i - y_j|^2/(2 SIGMA^2))
  = the constant times <mu_X, mu_Y> for the Gaussian RBF base kernel, and
    ppk_norm -g 1: <mu_X, mu_Y> / (|mu_X| |mu_Y|), the constant divided out.
)";

void add_kde_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("bandwidth", po::value<double>()->default_value(1.0)->value_name("H"), "the variance H > 0 of every component")
      ("mean-map-sigma", po::value<double>()->value_name("SIGMA"),
       "H = SIGMA^2/2: the rows' rho = 1 kernels are the mean-map kernel of the RBF base kernel "
       "exp(-|x - y|^2/(2 SIGMA^2)) times (2 pi SIGMA^2)^(-D/2) (not with --bandwidth)");
  // clang-format on
}

// The fields these flags set: KdeFitOptions::bandwidth, and the sigma of mean_map_bandwidth.
const OptionFlags kKdeFlags{{"bandwidth", "--bandwidth"}, {"sigma", "--mean-map-sigma"}};

// --bandwidth, or the bandwidth of --mean-map-sigma.
KdeFitOptions parse_kde_options(const po::variables_map& values) {
  if (!values.count("mean-map-sigma")) return KdeFitOptions{option(values, "bandwidth")};
  if (!values["bandwidth"].defaulted())
    throw UsageError("--mean-map-sigma sets the bandwidth (H = SIGMA^2/2); it cannot be combined with --bandwidth");
  return KdeFitOptions{mean_map_bandwidth(option(values, "mean-map-sigma"))};
}

std::unique_ptr<Estimator> make_kde(const FitContext&, const KdeFitOptions& options) { return kde_estimator(options); }

}  // namespace

FitFamily kde_family() {
  return {"kde",
          "kernel density estimate",
          kKdeHelp,
          Method::ml,
          "a kernel density estimate is set by its bandwidth",
          false,
          add_kde_options,
          typed_options<KdeFitOptions, parse_kde_options, make_kde, read_libsvm_input>,
          {kKdeFlags}};
}

}  // namespace ppk::cli
