// ppk fit slds: a switching linear dynamical system by approximate, hard-assignment EM.
#include <memory>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_slds.hpp"
#include "prior_options.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kSldsHelp = R"(
slds: a switching linear dynamical system (JMLR 2004 section 5.1): a Markov
  chain of regimes r_0..r_T over K states (--states), and per regime k the
  dynamics s_t = A_k s_{t-1} + N(0, Q_k) of an n-dimensional state
  (--state-dim); s_0 ~ N(mean0, cov0), x_t = C s_t + N(0, R). Fitted to each
  sequence x_0..x_{N-1} (N >= 2) of qid-grouped LIBSVM vectors by APPROXIMATE
  EM: hard-assignment ("Viterbi-like") EM, which keeps one best regime path
  instead of the intractable posterior over K^N paths. It maximises over the
  parameters and the path r
    J = log p(r) + log p(X | r) + A (sum log pi + sum log trans)
        - (R/2) (tr(cov0^-1) + tr(R^-1) + sum_k tr(Q_k^-1 (I + A_k A_k')))
        + the inverse-Wishart log priors of lds on cov0, every Q_k and R,
  A = --smoothing, R = --ridge, by coordinate ascent. Start: the lds fit (same
  --state-dim, --ridge, --iterations, --tolerance, --restarts, --seed) for
  every regime, a uniform chain, and a first path from the data: for each step
  the least-squares local dynamics x_u ~ B x_u-1 over a window of 2h + 1 steps
  (h = max(5, d)), k-means (k-means++ means, seeded) of the B's into K clusters
  (Ferrari-Trecate et al. 2003, with windows in time); the lds fit's
  observation noise scaled by the factor in 1, 0.1, 0.01, 0.001 whose first
  round gives the largest J (the one-regime fit takes a fast regime's motion
  for noise). Each round:
  M-step: per regime A_k = P1 (P- + R I)^-1, Q_k = (P+ - A_k P1' + (R + nu psi)
  I)/(n_k + nu) over its n_k steps (a regime with no step keeps its dynamics),
  C, R, mean0, cov0 as for lds (the same priors, chosen by the lds fits), pi and trans from the path's counts + A; Kalman filter and
  RTS smoother along the path (time-varying A_t, Q_t); the Viterbi path
  maximising log pi_r0 + sum_t [log trans(r_t-1, r_t) + E log N(s_t; A_rt
  s_t-1, Q_rt)] under the smoothed states. J never decreases; EM stops when
  J gains less than --tolerance times |J| or after --iterations rounds; each
  of --restarts restarts draws its own k-means++ means and the one with the
  largest J is kept. With --states 1 the fit is the lds fit. The lds fit's
  constraints hold, with each A_k's spectral norm (not radius) <= 0.999.
  The row stores T = N - 1 or --length T and S = --paths paths for the kernel.
  --pooled: one SLDS fitted to all the sequences by the same hard EM (one
  regime path and one smoother per sequence, the sums over the sequences;
  start: the pooled lds for every regime, k-means of all the sequences'
  local dynamics together; R floor from all the vectors), without the
  --prior-* priors (they apply to per-example fits); it stores T of the
  first sequence. --adapt-from POOL (K, n from POOL): MAP hard EM from the
  pooled SLDS and its best path for the sequence, with TAU = --relevance
  pseudo-observations of it: the lds priors on (mean0, cov0) and (C, R), on
  each (A_k, Q_k) the lds's transition prior centred on (A0_k, Q0_k) with one
  column precision TAU M0 (M0 the pooled model's mean E[s_t s_t'] over its T,
  the regime chain summed out), and Dirichlet priors of TAU pseudo-counts
  centred on the pooled pi and trans rows; e.g. A_k = (P1_k + TAU A0_k M0)
  (P-_k + TAU M0)^-1, trans_jk = (n_jk + TAU trans0_jk)/(n_j + TAU). --adapt:
  start (pi, mean0, cov0), transitions (trans, A_k, Q_k), emissions (C, R).
  The constraints above are kept (the floors at most the pooled R0's and
  Q0_k's least eigenvalues). Adapted rows keep the pooled regimes and state
  basis, so they are comparable with each other and the pooled row; they
  store T = N - 1 (or --length) and S = --paths.
)";

void add_slds_options(po::options_description& options) {
  add_lds_prior_options(options);
  // clang-format off
  options.add_options()
      ("states", po::value<long>()->default_value(2)->value_name("K"), "the number of regimes K >= 1")
      ("state-dim", po::value<long>()->value_name("n"), "the state dimension n >= 1 (required)")
      ("paths", po::value<long>()->default_value(10)->value_name("S"), "the number S >= 1 of kernel paths stored in the rows")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start and transition count")
      ("ridge", po::value<double>()->value_name("R"), "r >= 0 added to Q_k, R and cov0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: N - 1)");
  // clang-format on
  add_em_options(options, 400, "at most N EM iterations (lds start) and N hard-EM rounds per restart");
}

// The fields of SldsFitOptions that these flags set.
const OptionFlags kSldsFlags{{"states", "--states"},       {"state_dim", "--state-dim"}, {"paths", "--paths"},
                             {"smoothing", "--smoothing"}, {"ridge", "--ridge"},         {"length", "--length"}};

LdsFamilyOptions<SldsFitOptions> parse_slds_options(const po::variables_map& values) {
  LdsFamilyOptions<SldsFitOptions> options;
  options.fit.states = values["states"].as<long>();
  options.fit.paths = values["paths"].as<long>();
  options.fit.smoothing = option(values, "smoothing");
  parse_lds_family_options(values, options);
  return options;
}

std::unique_ptr<Estimator> make_slds(const FitContext& context, const LdsFamilyOptions<SldsFitOptions>& given) {
  // --adapt-from reads the pooled SLDS, K and n included, from POOL.
  const bool from_pool = context.request.from_pool();
  if (!from_pool && !given.state_dim_given)
    throw UsageError("ppk fit slds needs --state-dim n (the dimension of the hidden state)");
  const bool per_example = per_example_lds_fit(context.request, given.prior);
  SldsFitOptions options = given.fit;
  if (per_example) read_lds_prior(context, given.prior, options);
  return slds_estimator(options);
}

}  // namespace

FitFamily slds_family() {
  return {"slds",
          "switching LDS by approximate, hard-assignment EM",
          kSldsHelp,
          Method::ml,
          "an SLDS is fitted by approximate EM",
          false,
          add_slds_options,
          typed_options<LdsFamilyOptions<SldsFitOptions>, parse_slds_options, make_slds, read_sequence_input>,
          {kSldsFlags, kLdsPriorFlags, kEmOptionFlags},
          true,
          {"states", "state-dim", "smoothing", "restarts", "seed"}};
}

}  // namespace ppk::cli
