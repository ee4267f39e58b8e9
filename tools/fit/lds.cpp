// ppk fit lds: a linear dynamical system by EM with a Kalman smoother.
#include <memory>
#include <string>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "prior_options.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kLdsHelp = R"(
lds: a linear dynamical system s_0 ~ N(mean0, cov0), s_t = A s_{t-1} + N(0, Q),
  x_t = C s_t + N(0, R) with an n-dimensional state (--state-dim), fitted to each
  sequence x_0..x_{N-1} (N >= 2) of qid-grouped LIBSVM vectors, in line order, by
  EM (Shumway and Stoffer 1982; Ghahramani and Hinton 1996). The model has no
  offset (E x_t = C A^t mean0): centre the data first if they are not about 0.
  E-step: Kalman filter (log p(X) by the prediction-error decomposition) and
  Rauch-Tung-Striebel smoother, giving E[s_t], E[s_t s_t'] and E[s_t s_t-1'].
  M-step: C = Sxs P^-1, R = (Sxx - C Sxs' + r I + nu phi V)/(N + nu),
  A = P1 (P-)^-1, Q = (P+ - A P1' + (r + nu psi) I)/(N - 1 + nu),
  mean0 = E[s_0], cov0 = (Cov(s_0) + (r + nu) I)/(1 + nu), with P, P- and P+ the sums of
  E[s_t s_t'] over all t, t < N - 1 and t > 0, P1 the sum of E[s_t s_t-1'],
  Sxs = sum x_t E[s_t]' and V = diag(the coordinates' variances). This is EM
  for the MAP objective L = log p(X) - (r/2) sum_S tr(S^-1)
  - (nu/2) sum_S (log|S| + tr(S^-1 Psi_S)) over S = cov0, Q, R: inverse-
  Wishart priors of nu pseudo-observations (--prior-strength) centred on
  I, psi I (--prior-state-noise) and phi V (--prior-observation-noise), and
  the ridge r (--ridge); L never decreases. The priors on cov0 and Q fix the
  state's unit scale. auto (the default): psi and phi are geometric means over
  maximum-likelihood fits of the training file, nu in {0,1,4,16,64,256}
  maximises the likelihood of each sequence's last third scored as a fresh
  sequence under the fit to its first two thirds (at most 30 sequences, 1000
  vectors). Printed; --save-pooled saves them and --pooled-from reuses them
  for test files. --prior-strength 0: maximum likelihood (cov0 then shrinks to
  a point at the sequence's first state: kernels between models become ~0).
  Kept for finite kernels at every T: spectral radius of A <= 0.999 (A moves
  towards P1 (P-)^-1 only as far as it stays stable), R >= 0.01 diag(the
  coordinates' variances), Q >= 1e-4 (the state's mean square) I.
  Starts: C and R by principal components of (1/N) sum x_t x_t', A random
  with largest singular value in [0.5, 0.95], Q = I - A A' + r I, mean0 = 0,
  cov0 = I; seeded by (--seed, the sequence), so fits are reproducible; the
  best of --restarts runs is kept. The row stores T = N - 1 or --length T; LDS
  kernels need one T for all rows (svm-train/ppk gram -d T sets it).
  --pooled: one LDS fitted to all the sequences by the same EM (sums over the
  sequences; R floor from all the vectors' variances), without the priors
  above (--prior-* apply to per-example fits); it stores T of the first
  sequence. --adapt-from POOL (n from POOL): MAP-EM from the
  pooled LDS with TAU = --relevance pseudo-observations of it: matrix-normal
  priors on A and C centred on A0, C0 (row covariance Q resp. R, column
  precision TAU M0, M0 the pooled model's mean E[s_t s_t'] over its T),
  inverse-Wishart priors with modes Q0, R0, and a normal-inverse-Wishart one
  on (mean0, cov0); e.g. C = (Sxs + TAU C0 M0)(P + TAU M0)^-1. --adapt: start
  (mean0, cov0), transitions (A, Q), emissions (C, R). The constraints above
  are kept (the floors at most the pooled R0's and Q0's least eigenvalues).
  Every adapted LDS is in the pooled model's state basis, which makes the rows
  comparable (per-sequence fits are each in a basis of their own).
  --fisher-from POOL: each sequence's Fisher score under the pooled LDS, by the
  smoother's E[s_t], E[s_t s_t'], E[s_t s_t-1'] (e.g. Q^-1 (P1 - A P-) for A),
  per vector, as LIBSVM features: the entries of mean0 (start), A
  (transitions) and C (emissions), and the upper triangles of cov0, Q and R.
)";

void add_lds_options(po::options_description& options) {
  add_lds_prior_options(options);
  // clang-format off
  options.add_options()
      ("state-dim", po::value<long>()->value_name("n"), "the state dimension n >= 1 (required)")
      ("ridge", po::value<double>()->value_name("R"), "r >= 0 added to Q, R and cov0 (beside the priors); default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: N - 1)");
  // clang-format on
  add_em_options(options, 400, "at most N EM iterations per restart");
}

// The fields of LdsFitOptions that these flags set.
const OptionFlags kLdsFlags{{"state_dim", "--state-dim"}, {"ridge", "--ridge"}, {"length", "--length"}};

LdsFamilyOptions<LdsFitOptions> parse_lds_options(const po::variables_map& values) {
  LdsFamilyOptions<LdsFitOptions> options;
  parse_lds_family_options(values, options);
  return options;
}

std::unique_ptr<Estimator> make_lds(const FitContext& context, const LdsFamilyOptions<LdsFitOptions>& given) {
  // --adapt-from and --fisher-from read the pooled LDS, state dimension included, from POOL. Only
  // per-example fits have priors to choose: the pooled fit has every sequence's data, and an adapted
  // fit's prior is centred on the pooled model.
  const bool from_pool = context.request.from_pool();
  if (!from_pool && !given.state_dim_given)
    throw UsageError("ppk fit lds needs --state-dim n (the dimension of the hidden state)");
  const bool per_example = per_example_lds_fit(context.request, given.prior);
  LdsFitOptions options = given.fit;
  if (per_example) read_lds_prior(context, given.prior, options);
  return lds_estimator(options);
}

}  // namespace

FitFamily lds_family() {
  return {"lds",
          "linear dynamical system by EM with a Kalman smoother",
          kLdsHelp,
          Method::ml,
          "an LDS is fitted by EM (maximum likelihood)",
          false,
          add_lds_options,
          typed_options<LdsFamilyOptions<LdsFitOptions>, parse_lds_options, make_lds, read_sequence_input>,
          {kLdsFlags, kLdsPriorFlags, kEmOptionFlags},
          true,
          {"state-dim", "restarts", "seed"}};
}

}  // namespace ppk::cli
