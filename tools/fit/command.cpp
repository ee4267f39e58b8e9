// ppk fit FAMILY [options] INPUT [-o OUTPUT]: one model row per example.
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "covariance_prior.hpp"
#include "mixture_options.hpp"
#include "parallel.hpp"
#include "ppk/data.hpp"
#include "ppk/estimate.hpp"
#include "ppk/estimate_bayesnet.hpp"
#include "ppk/estimate_lds.hpp"
#include "ppk/estimate_slds.hpp"
#include "ppk/evidence.hpp"
#include "ppk/row.hpp"
#include "smoothing_cv.hpp"
#include "training_choices.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFitInput = R"(
Fits one model per example of INPUT, a LIBSVM data file ('-' = standard input),
and writes one model row per example, in input order, with the example's label.
An example is one line 'label index:value ...', or, when the lines carry qid:
(the SVMlight convention), the run of consecutive lines sharing 'label qid:N'.
The sequence families (hmm, fhmm, lds, slds) need qid groups: one sequence per
group. hmm also reads symbol sequences: FASTA or 'LABEL SEQUENCE' lines.
INPUT's format is detected from its first line that is neither blank nor a '#'
comment: a FASTA header '>...', a LIBSVM row (a label, alone or with qid:N or
index:value fields) or a 'LABEL SEQUENCE' line (a label and anything else). A
file in a format the family does not read is refused, naming the file, the
line and what to use instead.
)";

constexpr const char* kEstimatorHelp = R"(
Estimators (--estimator): ml = maximum likelihood; map = the posterior mode
under the family's conjugate prior (--prior-* options); posterior = the
posterior predictive, where it stays in the family (bernoulli, multinomial,
gaussian with --var).
)";

constexpr const char* kPoolHelp = R"(
Training and test files: whatever a fit decides on its training file (values
chosen by the data, such as --alpha auto, and statistics pooled over its
examples) is saved by --save-pooled POOL and reused, unchanged, for a test file
fitted with --pooled-from POOL: nothing is re-estimated on test data.
)";

constexpr const char* kShrinkHelp = R"(
Shrinkage (--shrink L, COLT 2003): each example's estimate maximises
  log p(example | theta) + L * sum over the training examples j of log p(x_j | theta),
i.e. its statistics plus L times those pooled over the training set. Fit the
training file with --shrink L --save-pooled POOL, and the test file with
--shrink L --pooled-from POOL, so that both use the same pool.
)";

constexpr const char* kGaussianHelp = R"(
gaussian: N(mu, Sigma) from the example's vectors; x-bar their mean, S their
  scatter sum (x_i - x-bar)(x_i - x-bar)'.
  ml (default): mu = x-bar; Sigma = S/n + R I (full), diag(S)/n + R I (diag) or
    (trace(S)/(n D) + R) I (iso). Without --ridge an example needs enough
    vectors for a non-singular covariance (2 for iso/diag, D + 1 for full).
  map: prior mu ~ N(M 1, Sigma/K), Sigma ~ inverse-Wishart (full) or scaled
    inverse-chi^2 (each diagonal variance, or the isotropic one) with N0
    pseudo-observations of variance S0. With m = (n x-bar + K M)/(n + K) and
    B = K n/(K + n) (x-bar - M)(x-bar - M)': mu = m and Sigma =
    (N0 S0 I + S + B)/(N0 + n + D + 2) (full), (N0 S0 + S_dd + B_dd)/(N0 + n + 3)
    (diag), (N0 S0 + trace(S + B))/(N0 + n D + D + 2) (iso).
  map --prior pooled (docs/priors-by-evidence.md): mu flat, Sigma ~
    inverse-Wishart(N0, (N0 - D - 1) C) with mean C, the pooled within-example
    covariance sum_i S_i / sum_i (n_i - 1) of INPUT (diag: per variance; iso:
    the one variance, D -> 1). mu = x-bar and, by --pooled-estimate,
      mean (default): Sigma's posterior mean ((N0 - D - 1) C + S)/(N0 + n - D - 2)
        (full), ((N0 - 2) C_dd + S_dd)/(N0 + n - 3) (diag),
        ((N0 - 2) c + trace S)/(N0 + (n - 1) D - 2) (iso);
      mode: the joint mode ((N0 - D - 1) C + S)/(N0 + n + D + 1) (full),
        ((N0 - 2) C_dd + S_dd)/(N0 + n + 2) (diag), ((N0 - 2) c + trace S)/
        (N0 + n D + 2) (iso), which shrinks small sets' covariances.
    --prior-count auto (the default there) chooses N0 by maximum evidence: the
    marginal likelihood of every example's scatter, Sigma integrated out. C and
    N0 are saved by --save-pooled and reused by --pooled-from.
  --var V fixes Sigma = V I and fits only the mean (one vector x gives N(x, V I),
    whose kernels are RBF kernels): ml mu = x-bar; map mu = m (prior
    mu ~ N(M 1, V/K I)); posterior N(m, V (1 + 1/(n + K)) I).
)";

constexpr const char* kBernoulliHelp = R"(
bernoulli: independent binary features (a non-zero value counts as 1) of the
  example's n vectors, k_d of which have feature d; prior g_d ~ Beta(A, A):
  posterior (default): g_d = (k_d + A) / (n + 2A)  (A = 1: Laplace's rule)
  map: g_d = (k_d + A - 1) / (n + 2A - 2)  (A >= 1);  ml: g_d = k_d / n.
  Rows list only the features that occur; the others share a base probability.
  --alpha 3 (default): for one vector per example the kernel (rho = 1/2) is
  m^|x XOR x'|, m = 2 sqrt(A (1 + A)) / (1 + 2A): an RBF kernel on the binary
  vectors whose width A sets. Measured on word-presence rows of two real
  corpora (docs/documents-smoothing.md), A = 3 was 2.1 and 2.7 points above
  A = 1 held out and within 0.3 of the best A; A <= 0.1 (and ml) make the
  kernel matrix nearly the identity (chance accuracy).
  --alpha auto: A (or ml) and the SVM's C chosen by cross-validated accuracy,
  as for multinomial rows (below; --cv-alphas default evidence,0.1,1,3,10,30).
  --alpha evidence: A maximises the evidence (the beta-binomial likelihood of
  the training file, g integrated out); needs examples of several vectors
  (qid:).
)";

constexpr const char* kMultinomialHelp = R"(
multinomial: counts c_d >= 0 (summed over the example's vectors), N = sum c_d;
  prior a ~ Dirichlet(A, .., A):
  posterior (default): a_d = (c_d + A) / (N + A D), the Dirichlet-multinomial mean
  --alpha 1/D (default): one pseudo-count in all (A D = 1, Perks's prior), a
  share 1/(N + 1) of each row whatever the vocabulary; a fixed A puts A D
  pseudo-counts against every document (A = 1 on 20,000 words swamps a
  40-word document), and measured on two real corpora and the demo corpus
  1/D was within 0.7 points of ML rows and 6 to 27 points above A = 1.
  map: a_d = (c_d + A - 1) / (N + D (A - 1))  (A >= 1);  ml: a_d = c_d / N.
  --alpha auto: the smoothing and the SVM's C chosen together by the k-fold
  cross-validated accuracy of the kernel SVM on INPUT (LIBSVM's
  svm_cross_validation, as svm-train -v K -c C -t KERNEL -g RHO on the rows):
  every candidate of --cv-alphas (default evidence,1/D,ml,1,0.1,0.01,0.001;
  evidence is skipped when the evidence has no maximum, ml under --base pooled)
  at every C of --cv-c.
  The table and the choice are printed on stderr, the chosen rows written;
  --save-pooled saves the smoothing, C and kernel settings, and --pooled-from
  applies the smoothing to a test file. Costs candidates x C values x K SVM
  trainings. On a real corpus of short documents (WordNet glosses) it chose
  ml, the most accurate held out, where evidence was 1.3 points below.
  --alpha evidence: A D maximises the evidence (the Dirichlet-multinomial
  likelihood of the training file, each document's a integrated out), printed
  with its standard error. It is the best generative fit, not the best for
  classification: on short documents it smooths more than the SVM wants
  (docs/documents-smoothing.md).
  Whatever smoothing --save-pooled saves (--estimator and --alpha, chosen or
  given) is reused by --pooled-from; a test file given other ones is refused.
  Rows list only the words that occur, so a short document over a large
  vocabulary stays sparse. --trials selects the model: one = a single draw (any
  rho), S = S draws, all = summed over all draw counts with decay L (both need
  rho = 1/2: svm-train -g 0.5).
  --base pooled centres the prior on the training file's word frequencies
  (Dirichlet(A D m), a_d = (c_d + A D m_d) / (N + A D); Zhai & Lafferty 2001):
  m_d = (C_d + 1/2) / (C + D/2) from the pooled counts C_d, quantised to at most
  32 levels so that rows stay sparse and the kernel exact (docs/base-measure.md).
  Fit the training file with --base pooled --save-pooled POOL and the test file
  with --base pooled --pooled-from POOL (and the same --dim): both share one base.
)";

constexpr const char* kPoissonHelp = R"(
poisson: independent Poisson counts per feature (whole numbers >= 0; absent = 0);
  prior rate_d ~ Gamma(shape A, rate B):
  ml (default): rate_d = sum_i x_id / n;  map: rate_d = max(0, sum_i x_id + A - 1) / (n + B).
  map --prior pooled (docs/priors-by-evidence.md): rate_d ~ Gamma(A, A / r_d),
    r_d the pooled rate of feature d on INPUT; --prior-shape auto (the default
    there) chooses A by maximum negative-binomial evidence. --pooled-estimate
    mean (default): rate_d = (sum_i x_id + A)/(n + A/r_d); mode: max(0, sum_i
    x_id + A - 1)/(n + A/r_d). A and r are saved by --save-pooled and reused
    by --pooled-from.
)";

constexpr const char* kExponentialHelp = R"(
exponential: independent exponential values per feature (>= 0; absent = 0),
  scale b_d (the mean); prior on the rate 1/b_d ~ Gamma(shape A, rate B):
  ml (default): b_d = sum_i x_id / n;  map: b_d = (sum_i x_id + B) / (n + A - 1).
  map --prior pooled (docs/priors-by-evidence.md): 1/b_d ~ Gamma(A, (A - 1) bbar_d),
    bbar_d the pooled mean of feature d on INPUT (the prior mean of b_d);
    --prior-shape auto (the default there) chooses A > 1 by maximum Lomax
    evidence. --pooled-estimate mean (default): b_d = (sum_i x_id + (A - 1)
    bbar_d)/(n + A - 1); mode: (sum_i x_id + (A - 1) bbar_d)/(n + A + 1).
    A and bbar are saved by --save-pooled and reused by --pooled-from.
)";

constexpr const char* kGammaHelp = R"(
gamma: independent gamma values per feature (> 0, every feature present);
  ml (default): scale = mean / shape, and the shape solves
    log(shape) - digamma(shape) = log(mean x) - mean(log x)
    (needs values that are not all equal).
  map: the mode in the natural parameters under the conjugate prior worth N0
    pseudo-observations typical of Gamma(A0, B0): the ML fit of the data plus
    N0 observations with mean x = A0 B0 and mean log x = digamma(A0) + log B0.
  map --prior pooled (docs/priors-by-evidence.md): the same conjugate prior
    centred on INPUT's pooled statistics: N0 pseudo-observations with mean x =
    m_d and mean log x = l_d, the pooled means of feature d over every vector
    of INPUT. --prior-count auto (the default there) chooses N0 by maximum
    evidence (the exact marginal likelihood; its normaliser is a 1-D integral
    over the shape). m, l and N0 are saved by --save-pooled and reused by
    --pooled-from. With one vector per example the evidence cannot separate
    the examples and N0 runs to 1e8 (every row the pooled gamma); give
    --prior-count (N0 = 1 was best measured on such data).
)";

constexpr const char* kDirichletHelp = R"(
dirichlet: probability vectors (every x_d > 0, summing to 1; a Beta over
  proportions x is the case D = 2, x = (x, 1 - x)).
  ml (default): the fixed point digamma(alpha_d) - digamma(sum alpha) =
    mean(log x_d) by Newton's method (needs vectors that are not all equal).
  map: as for gamma, with N0 pseudo-observations typical of Dirichlet(A0, .., A0):
    mean log x_d = digamma(A0) - digamma(D A0).
  map --prior pooled (docs/priors-by-evidence.md): N0 pseudo-observations with
    mean log x_d = l_d, the pooled mean of log x_d over every vector of INPUT.
    --prior-count auto (the default there) chooses N0 on the grid 2^-3..2^10 by
    held-out likelihood (each example's vectors left out in turn, the rest fitted;
    examples of one vector are not used). l and N0 are saved by --save-pooled
    and reused by --pooled-from.
)";

constexpr const char* kMixtureHelp = R"(
mixture: a mixture of K Gaussians fitted by EM to the example's vectors (needs
  n >= K). Each M-step sets w_k = N_k/n, mu_k the responsibility-weighted mean
  and Sigma_k = (S_k + R I)/N_k in the --cov form: EM for the log-likelihood
  minus (R/2) sum_k trace(Sigma_k^-1), which never decreases. Default R: 1e-6
  times the mean per-coordinate variance of the example. Means are seeded
  k-means++ style from a generator seeded by (--seed, n, D), so fits are
  reproducible; the best of --restarts runs is kept.
  --prior pooled (docs/priors-by-evidence.md): every Sigma_k ~ inverse-Wishart
  (NU, (NU - D - 1) C), E[Sigma_k] = C the pooled within-example covariance of
  the training file (as gaussian --prior pooled), by MAP-EM beside the ridge:
    full  Sigma_k = ((NU - D - 1) C + S_k + R I)/(NU + N_k + D + 1)
    diag  ((NU - 2) C_dd + S_k,dd + R)/(NU + N_k + 2)
    iso   ((NU - 2) c + tr S_k + R D)/(NU + N_k D + 2), c = tr(C)/D;
  EM then never decreases the penalised log-likelihood plus the log prior.
  --prior-count auto (the default with --prior pooled) chooses NU on INPUT by
  held-out likelihood: every third vector of up to 100 sets is held out, the
  rest fitted for each NU = p + 1 + 2^j (j = -3..10; p = D full, 1 diag/iso),
  and the NU whose posterior predictive (a Student t per component, given the
  kept vectors weighted by their responsibilities) scores the held-out vectors
  best is kept. NU and C are printed, saved by --save-pooled and reused by
  --pooled-from (fit a test file with it: nothing is then re-estimated).
  Not the default (--prior none): on digits as point sets the chosen prior
  lost to it (docs/priors-by-evidence.md).
)";

constexpr const char* kKdeHelp = R"(
kde: the kernel density estimate (1/n) sum_i N(x_i, h I), a mixture with one
  isotropic Gaussian of variance h (--bandwidth) per vector.
  Mean maps: --mean-map-sigma SIGMA sets h = SIGMA^2/2. Since
  integral N(x|a,hI) N(x|b,hI) dx = N(a|b,2hI), the rho = 1 kernel of two sets is
    ppk -g 1:      (2 pi SIGMA^2)^(-D/2) (1/(n m)) sum_ij exp(-|x_i - y_j|^2/(2 SIGMA^2))
  = the constant times <mu_X, mu_Y> for the Gaussian RBF base kernel, and
    ppk_norm -g 1: <mu_X, mu_Y> / (|mu_X| |mu_Y|), the constant divided out.
)";

constexpr const char* kHmmHelp = R"(
hmm: a hidden Markov model with M states fitted to each sequence x_0..x_{n-1}
  by Baum-Welch (JMLR 2004 section 4.2 for the kernel). Input (--format):
    fasta   '>NAME ... label=VALUE' headers, each followed by its sequence on any
            number of lines (a header without label= is an error);
    lines   one 'LABEL SEQUENCE' per line;
    libsvm  qid-grouped LIBSVM rows, one sequence per qid group, in line order.
  Default: libsvm with --emission gaussian, else the format of INPUT's first data
  line (above): qid-grouped vectors are read as libsvm, with gaussian emissions
  unless --emission is given, and a note on standard error says so. A --format
  that contradicts INPUT is an error naming the file, the line and the format
  to give; so is a LIBSVM row in a lines file (a sequence field 'qid:1 1:2.5'
  is no symbols). Whitespace inside a sequence is ignored;
  symbols are single characters, case-sensitive, numbered by --alphabet
  (default: the sorted set of symbols in INPUT). Fit the training file with
  --save-alphabet FILE and the test file with --alphabet-from FILE: a test
  symbol outside the alphabet is an error naming file, line, column and symbol.
  Emissions (--emission): discrete = one-event multinomials over the O symbols
  (default for sequences; LIBSVM vectors must then be one 'index:1' each);
  gaussian = N(mu_q, Sigma_q) over the LIBSVM vectors (default for libsvm).
  E-step: scaled forward-backward; gamma_t(q) = P(s_t = q | X) and
  xi_t(p, q) = P(s_t = p, s_t+1 = q | X); log p(X) = sum_t log c_t (the scales).
  M-step with A = --smoothing pseudo-counts: pi_q ~ gamma_0(q) + A,
  A_pq ~ sum_t xi_t(p, q) + A, E_qo ~ sum_{t: x_t = o} gamma_t(q) + A; Gaussian
  means and (S_q + R I)/N_q covariances as for mixture. This is the MAP under
  Dirichlet(1 + A) priors (and the mixture's ridge penalty), so the penalised
  log-likelihood never decreases, and A > 0 keeps every probability positive.
  --prior pooled (the default for gaussian emissions): the mixture's inverse-
  Wishart prior on every state's covariance, centred on the training file's
  pooled within-sequence covariance, by MAP-EM; --prior-count auto chooses NU
  by the held-out likelihood of each sequence's last third (scored from the
  fitted start probabilities, under the plug-in fit to the rest). NU and C
  are printed, saved by --save-pooled and reused unchanged by --pooled-from: fit the training file with --save-pooled
  POOL and test files with --pooled-from POOL (a file fitted without it
  chooses its own). On digits as sequences of pixel rows it beat the ridge
  alone by 33 points (docs/priors-by-evidence.md). --prior none: the ridge
  alone (the maximum-likelihood fit of earlier versions).
  --states auto (JMLR 2004 section 8.2): M = floor(sqrt(O^2 + 4 (n z + O + 1))/2
  - O/2) + 1, n the number of symbols, z = --param-ratio, O the alphabet size
  (Gaussian: the emission parameters per state, D + 1 iso, 2D diag,
  D + D(D+1)/2 full). Starts are random, seeded by (--seed, the sequence), so
  fits are reproducible; the best of --restarts runs is kept. The row stores
  T = n - 1 (x_0..x_T) or --length T; HMM kernels need one T for all rows
  (svm-train/ppk gram -d T sets it).
)";

constexpr const char* kFhmmHelp = R"(
fhmm: a factorial HMM (C chains of M states; x_t ~ N(sum_c W_c[:, k_t^c], Sigma))
  fitted to each sequence of real vectors x_0..x_{n-1}, one qid group of LIBSVM
  rows per sequence, by EM. --e-step exact: the scaled forward-backward
  recursions over the M^C product states (at most 1024). --e-step mean-field:
  the structured variational approximation of Ghahramani & Jordan (1997): one
  HMM per chain whose emissions see the other chains' expected means, updated in
  turn by forward-backward; EM then maximises a lower bound on the
  log-likelihood (exact when C = 1), at most 1000 states C M in all. Default:
  exact when M^C <= 1024, mean-field above. M-step with A = --smoothing
  pseudo-counts: pi_c and A_c from the chains' posterior marginals (+ A),
  W = (sum_t x_t E[s_t]') (sum_t E[s_t s_t'])^+ (s_t the stacked one-hot states
  of the chains), Sigma = (expected residual scatter + R I)/n: the MAP under
  Dirichlet(1 + A) priors and the ridge penalty -(R/2) tr Sigma^-1, so the
  penalised log-likelihood (or its bound) never decreases. Starts are random,
  seeded by (--seed, the sequence); the best of --restarts runs is kept.
  --prior pooled: Sigma ~ inverse-Wishart(NU, (NU - D - 1) C), C the training
  file's pooled within-sequence covariance (as for hmm), by MAP-EM:
  Sigma = ((NU - D - 1) C + residual scatter + R I)/(NU + n + D + 1);
  --prior-count auto chooses NU by the exact held-out likelihood of each
  sequence's last third under the plug-in fit to the rest (needs M^C <= 1024),
  printed, saved by --save-pooled, reused by --pooled-from. Not the default
  (--prior none: the ridge alone): not measured on real data.
  The row stores T = n - 1 or --length T (at most 10^6). The kernel between
  factorial HMMs is a mean-field lower bound (docs/families.md).
)";

// The examples to fit, the models' dimension, and files to write when every example fits.
struct FitInput {
  Dataset data;
  long dim = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> side_outputs;  // path, lines
};
// INPUT as examples; `command` ("ppk fit lds") names the command in messages.
using InputReader = FitInput (*)(const FitSource& source, const po::variables_map& values, const std::string& command);

// What a family's estimator is made from: the options, INPUT (its format and its examples) and the
// hyperparameters chosen on the training file.
struct FitContext {
  const po::variables_map& values;
  Method method;
  const FitSource& source;
  const FitInput& input;
  TrainingChoices& choices;
  const std::string& command;  // "ppk fit FAMILY", for messages
};
using EstimatorFactory = std::unique_ptr<Estimator> (*)(const FitContext& context);

struct FitFamily {
  const char* name;
  const char* summary;  // one line for the FAMILY list
  const char* help;
  // --estimator: the default method, or, when the family offers no choice, why (nullptr: offered).
  Method default_method;
  const char* no_estimator;
  bool pools;  // --shrink, --save-pooled and --pooled-from (an exponential family's statistics)
  void (*add_options)(po::options_description& options);  // the family's own options
  EstimatorFactory make_estimator;
  InputReader read_input;
};

double option(const po::variables_map& values, const char* name) { return values[name].as<double>(); }

// A number option that may be `auto` (nothing); `fallback` when absent.
std::optional<double> number_or_auto(const po::variables_map& values, const char* name, const char* fallback) {
  const std::string text = values.count(name) ? values[name].as<std::string>() : fallback;
  if (text == "auto") return std::nullopt;
  const std::optional<double> number = parse_double(text);
  if (!number) throw UsageError(std::string("--") + name + " must be a number or auto, got '" + text + "'");
  return number;
}

// Every example's model row. Each example is fitted on its own (estimators are const and seed from
// the example's data), so the examples run in parallel and the rows do not depend on the number of
// threads. `pooled` (null: none) and `lambda` are --shrink's pool and weight.
std::vector<Row> fit_rows(const Estimator& estimator, const Dataset& data, long dim, const Statistics* pooled,
                          double lambda, unsigned threads) {
  std::vector<Row> rows(data.examples.size());
  for_each_index(data.examples.size(), threads, "fitting", [&](std::size_t i) {
    const Example& example = data.examples[i];
    std::unique_ptr<Model> model;
    try {
      model = estimate(estimator, example.vectors, dim, pooled, lambda);
    } catch (const PoolingUnsupported& e) {
      throw UsageError(e.what());
    } catch (const EstimationError& e) {
      throw data.error_at(example, e.what());
    }
    rows[i] = encode_row(*model);
  });
  return rows;
}

// A strength chosen by maximum evidence, as printed and saved; `dominates` says what a choice at the
// search's upper end means.
Choice evidence_choice(const StrengthChoice& choice, const std::string& dominates) {
  if (choice.at_upper_bound)
    return Choice{choice.nu, "maximum evidence (still rising at the search's end: " + dominates +
                                 ", so the prior imposes the pooled value)"};
  std::ostringstream how;
  how.precision(3);
  how << "maximum evidence (standard error " << choice.standard_error << ")";
  return Choice{choice.nu, how.str()};
}

// The --pooled-estimate option of --prior pooled (gaussian, poisson).
void add_pooled_estimate_option(po::options_description& options) {
  options.add_options()("pooled-estimate", po::value<std::string>()->default_value("mean")->value_name("mean|mode"),
                        "--prior pooled: the posterior mean (default; measured better for kernels) or mode");
}

// --prior fixed|pooled and --pooled-estimate: true for pooled (then `posterior_mean` is set).
bool pooled_prior_option(const po::variables_map& values, Method method, bool& posterior_mean) {
  const std::string prior = values["prior"].as<std::string>();
  if (prior != "fixed" && prior != "pooled") throw UsageError("--prior must be fixed or pooled, got '" + prior + "'");
  if (prior == "fixed") {
    if (!values["pooled-estimate"].defaulted()) throw UsageError("--pooled-estimate applies to --prior pooled");
    return false;
  }
  if (method != Method::map) throw UsageError("--prior pooled is a prior of the map estimator: add --estimator map");
  const std::string estimate = values["pooled-estimate"].as<std::string>();
  if (estimate != "mean" && estimate != "mode")
    throw UsageError("--pooled-estimate must be mean or mode, got '" + estimate + "'");
  posterior_mean = estimate == "mean";
  return true;
}

void add_gaussian_options(po::options_description& options) {
  options.add_options()
      ("cov", po::value<std::string>()->default_value("full")->value_name("iso|diag|full"),
       "covariance form: isotropic (sigma^2 I), diagonal, or full")
      ("var", po::value<double>()->value_name("V"),
       "fixed isotropic variance V > 0; only the mean is fitted (no --ridge; --cov iso)")
      ("ridge", po::value<double>()->default_value(0.0)->value_name("R"),
       "R >= 0 added to the covariance diagonal")
      ("prior-mean", po::value<double>()->default_value(0.0)->value_name("M"), "map/posterior: prior mean M (every coordinate)")
      ("prior-strength", po::value<double>()->default_value(0.0)->value_name("K"),
       "map/posterior: K >= 0 pseudo-observations of the mean (0: flat prior on the mean)")
      ("prior-var", po::value<double>()->default_value(1.0)->value_name("S0"), "map: prior variance S0 > 0")
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"),
       "map: the covariance prior: fixed (N0 pseudo-observations of variance S0) or pooled "
       "(inverse-Wishart centred on INPUT's pooled within-example covariance, strength N0)")
      ("prior-count", po::value<std::string>()->value_name("N0|auto"),
       "map: the prior's strength: N0 > 0 pseudo-observations of the variance (--prior fixed, default 1), or the "
       "inverse-Wishart's degrees of freedom (--prior pooled: N0 > D + 1 full, > 2 diag/iso; default auto = "
       "maximum evidence on INPUT)");
  add_pooled_estimate_option(options);
}

// --prior pooled: the centre (the pooled within-example covariance) and nu, chosen on the training
// file (by maximum evidence for --prior-count auto) or read from --pooled-from.
void choose_pooled_prior(const FitContext& context, GaussianFitOptions& options) {
  const Dataset& data = context.input.data;
  options.prior_centre = pooled_covariance_centre(data, context.input.dim, options.covariance, context.choices);
  const auto in_input = [&](const EstimationError& e) { return InputError(data.source + ": " + e.what()); };
  const std::optional<double> count = number_or_auto(context.values, "prior-count", "auto");
  if (count) {
    options.prior_count = context.choices.given("prior-count", *count);
    return;
  }
  options.prior_count = context.choices.value("prior-count", [&] {
    StrengthChoice choice;
    try {
      choice = maximise_evidence(gaussian_prior_evidence(example_statistics(data, context.input.dim, options.covariance),
                                                         options.covariance, *options.prior_centre));
    } catch (const EstimationError& e) {
      throw in_input(e);
    }
    return evidence_choice(choice, "the examples' covariances are indistinguishable from the pooled one");
  });
}

// --cov iso|diag|full.
CovarianceForm covariance_form(const std::string& form) {
  if (form == "iso") return CovarianceForm::isotropic;
  if (form == "diag") return CovarianceForm::diagonal;
  if (form == "full") return CovarianceForm::full;
  throw UsageError("--cov must be iso, diag or full, got '" + form + "'");
}

std::unique_ptr<Estimator> make_gaussian(const FitContext& context) {
  const po::variables_map& values = context.values;
  const Method method = context.method;
  GaussianFitOptions options;
  options.method = method;
  const std::string form = values["cov"].as<std::string>();
  options.covariance = covariance_form(form);
  options.ridge = option(values, "ridge");
  if (values.count("var")) {
    if (!values["cov"].defaulted() && options.covariance != CovarianceForm::isotropic)
      throw UsageError("--var fixes an isotropic covariance; it cannot be combined with --cov " + form);
    if (!values["ridge"].defaulted()) throw UsageError("--var fixes the covariance; it cannot be combined with --ridge");
    options.covariance = CovarianceForm::isotropic;
    options.variance = option(values, "var");
  }
  options.prior_mean = option(values, "prior-mean");
  options.prior_strength = option(values, "prior-strength");
  options.prior_variance = option(values, "prior-var");
  if (pooled_prior_option(values, method, options.pooled_posterior_mean)) {
    for (const char* fixed_only : {"prior-mean", "prior-var"})
      if (!values[fixed_only].defaulted())
        throw UsageError(std::string("--") + fixed_only + " belongs to --prior fixed; --prior pooled centres the "
                         "covariance on INPUT's pooled covariance and leaves the mean flat");
    choose_pooled_prior(context, options);
  } else {
    const std::optional<double> count = number_or_auto(values, "prior-count", "1");
    if (!count) throw UsageError("--prior-count auto chooses the strength of --prior pooled; add --prior pooled");
    options.prior_count = *count;
  }
  return gaussian_estimator(options);
}

// --iterations (default `iterations`), --tolerance, --restarts and --seed of the EM fits.
void add_em_options(po::options_description& options, long iterations, const char* iterations_help) {
  options.add_options()
      ("iterations", po::value<long>()->default_value(iterations)->value_name("N"), iterations_help)
      ("tolerance", po::value<double>()->default_value(1e-8)->value_name("T"),
       "stop when the objective gains less than T times its magnitude")
      ("restarts", po::value<long>()->default_value(3)->value_name("N"), "runs from different starts; the best is kept")
      ("seed", po::value<std::uint64_t>()->default_value(1)->value_name("S"), "the random seed");
}

// The options of add_em_options into an estimator's options.
template <class FitOptions>
void read_em_options(const po::variables_map& values, FitOptions& options) {
  options.iterations = values["iterations"].as<long>();
  options.tolerance = option(values, "tolerance");
  options.restarts = values["restarts"].as<long>();
  options.seed = values["seed"].as<std::uint64_t>();
}

void add_alpha_option(po::options_description& options, const char* description) {
  options.add_options()("alpha", po::value<double>()->default_value(1.0)->value_name("A"), description);
}

// --alpha A|1/D|auto|evidence of bernoulli and multinomial rows (`default_text` its default,
// `value_name` its forms), and the options of --alpha auto (`candidates`: --cv-alphas's default).
void add_chosen_alpha_option(po::options_description& options, const char* default_text, const char* value_name,
                             const char* candidates, const char* description) {
  options.add_options()("alpha", po::value<std::string>()->default_value(default_text)->value_name(value_name),
                        description);
  add_cv_options(options, candidates);
}

// What bernoulli and multinomial rows share: a prior whose strength is alpha, chosen by --alpha.
struct SmoothedFamily {
  std::string name;                     // the family, as pool files name it
  std::function<PolyaCounts()> counts;  // INPUT's counts under the prior, for the evidence
  double per_alpha;                     // the prior's concentration per unit of alpha (D; 2 for Beta(A, A))
  std::string units;                    // that concentration's name, for messages
  bool one_over_d;                      // whether --alpha 1/D (alpha = 1 / per_alpha) applies
  // The estimator for a smoothing: `method` (ml, map or posterior) and alpha.
  std::function<std::unique_ptr<Estimator>(Method method, double alpha)> make;
};

// The alpha of maximum evidence on INPUT (evidence.hpp): the concentration A maximising the evidence
// of rows.counts, reported as alpha = A / rows.per_alpha with its standard error. InputError naming
// INPUT and `option` (the --alpha or candidate that asked) when the evidence has no interior maximum.
Choice evidence_alpha(const FitContext& context, const SmoothedFamily& rows, const std::string& option) {
  EvidenceMaximum best;
  try {
    best = maximise_polya_evidence(rows.counts());
  } catch (const EstimationError& e) {
    throw InputError(context.source.name + ": --alpha " + option + ": " + e.what());
  }
  std::ostringstream how;
  how << std::setprecision(4) << "maximum evidence (standard error " << best.standard_error / rows.per_alpha
      << "; concentration " << rows.units << " = " << best.concentration << ")";
  return Choice{best.concentration / rows.per_alpha, how.str()};
}

// --alpha given as a number, or as 1/D where rows.one_over_d; UsageError otherwise.
double alpha_number(const std::string& text, const SmoothedFamily& rows) {
  const std::optional<double> number = text == "1/D" && rows.one_over_d ? 1.0 / rows.per_alpha : parse_double(text);
  if (!number)
    throw UsageError("--alpha must be a number, " + std::string(rows.one_over_d ? "1/D, " : "") +
                     "auto or evidence, got '" + text + "'");
  return *number;
}

// How bernoulli or multinomial rows are smoothed, as decided on the training file and saved by
// --save-pooled (PoolFile::smoothing): the estimator, its alpha (unused for ml), the --alpha that
// gave it (auto, evidence, 1/D or the number) and how its value was decided.
struct RowSmoothing {
  Method method = Method::posterior;
  double alpha = 0;
  std::string option;
  std::string how;
  nlohmann::json cross_validation;  // --alpha auto's choice and table (smoothing_cv.hpp)

  nlohmann::json record() const {
    nlohmann::json out = {{"estimator", method_name(method)}, {"alpha_option", option}, {"chosen_by", how}};
    if (method != Method::ml) out["alpha"] = alpha;
    if (!cross_validation.is_null()) out["cross_validation"] = cross_validation;
    return out;
  }
  static RowSmoothing from_record(const nlohmann::json& saved) {
    RowSmoothing out{parse_method(saved["estimator"].get<std::string>()), 0, saved["alpha_option"].get<std::string>(),
                     saved["chosen_by"].get<std::string>(), saved.value("cross_validation", nlohmann::json())};
    if (out.method != Method::ml) out.alpha = saved["alpha"].get<double>();
    return out;
  }
  // The options that fitted the rows, for messages: "--estimator ml", "--alpha 0.1",
  // "--alpha evidence (alpha = 0.0023)", "--alpha auto (ml)".
  std::string options() const {
    const bool chosen = option == "auto" || option == "evidence" || option == "1/D";
    if (method == Method::ml && option != "auto") return "--estimator ml";
    std::string text = method == Method::posterior || option == "auto" ? "" : "--estimator " + std::string(method_name(method)) + " ";
    text += "--alpha " + option;
    if (chosen) text += " (" + (method == Method::ml ? std::string("ml") : "alpha = " + format_shortest(alpha)) + ")";
    return text;
  }
};

// The smoothing decided on INPUT, a training file, by --estimator and --alpha: a number or 1/D (one
// pseudo-count in all), evidence (the alpha of maximum evidence, evidence_alpha), or auto: the
// smoothing chosen with C by cross-validated accuracy among the candidates of `options`
// (choose_smoothing_by_cv on the rows rows.make gives for each).
RowSmoothing training_smoothing(const FitContext& context, const CvOptions& options, const SmoothedFamily& rows) {
  const po::variables_map& values = context.values;
  const std::string text = values["alpha"].as<std::string>();
  if (text == "evidence") {
    if (context.method == Method::ml)
      throw UsageError("--alpha evidence chooses the prior's strength, but --estimator ml uses no prior");
    const Choice choice = evidence_alpha(context, rows, text);
    return {context.method, choice.value, text, choice.how, {}};
  }
  if (text != "auto") {
    if (text == "1/D" && context.method == Method::map)
      throw UsageError("--estimator map needs --alpha A >= 1 (the Dirichlet's mode is on the boundary otherwise); "
                       "--alpha 1/D" + std::string(values["alpha"].defaulted() ? ", the default," : "") +
                       " serves the posterior mean (--estimator posterior)");
    const double alpha = alpha_number(text, rows);
    return {context.method, alpha, text == "1/D" ? text : format_shortest(alpha), "the command line", {}};
  }
  if (values.count("estimator"))
    throw UsageError("--alpha auto chooses between maximum-likelihood rows and posterior means itself; drop --estimator");
  if (values.count("shrink")) throw UsageError("--alpha auto and --shrink exclude each other");
  const Dataset& data = context.input.data;
  std::vector<double> labels;
  for (const Example& example : data.examples) labels.push_back(example.label);
  const unsigned threads = threads_option(values);
  const CvChoice choice = choose_smoothing_by_cv(
      options, labels,
      [&](const std::string& name, std::string& reason) -> std::optional<double> {
        if (name == "1/D") return 1.0 / rows.per_alpha;
        try {
          return evidence_alpha(context, rows, "evidence").value;
        } catch (const InputError& e) {
          reason = e.what();
          return std::nullopt;
        }
      },
      [&](const Smoothing& smoothing) {
        std::unique_ptr<Estimator> estimator;
        try {
          estimator = rows.make(smoothing.ml ? Method::ml : Method::posterior, smoothing.alpha);
        } catch (const EstimationError& e) {
          throw InputError(e.what());
        }
        return fit_rows(*estimator, data, context.input.dim, nullptr, 0, threads);
      },
      context.command, context.source.name);
  return {choice.smoothing.ml ? Method::ml : Method::posterior, choice.smoothing.alpha, text, choice.how, choice.record};
}

// The smoothing of a test file fitted with --pooled-from `from`: the training file's, saved there,
// never decided again. An --estimator or --alpha given for the test file that differs from it is
// refused, naming both files and both smoothings.
RowSmoothing reused_smoothing(const FitContext& context, const PoolFile& from, const SmoothedFamily& rows) {
  const po::variables_map& values = context.values;
  if (from.smoothing.is_null())  // the family and dimension are checked with the pool file
    throw UsageError(from.path + " holds no smoothing of the training file " + from.source + ": fit it with ppk fit " +
                     rows.name + " --save-pooled " + from.path);
  const RowSmoothing saved = RowSmoothing::from_record(from.smoothing);
  std::string given;  // the test file's own --estimator and --alpha
  bool differs = false;
  if (values.count("estimator")) {
    given = "--estimator " + values["estimator"].as<std::string>();
    differs = context.method != saved.method;
  }
  if (!values["alpha"].defaulted()) {
    const std::string text = values["alpha"].as<std::string>();
    given += (given.empty() ? "" : " ") + std::string("--alpha ") + text;
    if (text == "auto" || text == "evidence") {
      differs = differs || text != saved.option;
    } else {
      const double alpha = alpha_number(text, rows);
      if (text == "1/D") given += " (alpha = " + format_shortest(alpha) + ")";
      differs = differs || saved.method == Method::ml || alpha != saved.alpha;
    }
  }
  if (differs)
    throw UsageError("the test file " + context.source.name + " is fitted with " + given + ", but the training file " +
                     from.source + " was fitted with " + saved.options() + " (saved in " + from.path +
                     "): the test rows would be smoothed unlike the training rows; drop " + given +
                     " to reuse the training file's smoothing");
  return saved;
}

// The estimator of bernoulli or multinomial rows: smoothed as decided on INPUT (training_smoothing),
// or, for a test file (--pooled-from), as saved for the training file (reused_smoothing). Printed
// when chosen by the data or reused, and recorded for --save-pooled.
std::unique_ptr<Estimator> smoothed_estimator(const FitContext& context, const SmoothedFamily& rows) {
  const po::variables_map& values = context.values;
  const std::string text = values["alpha"].as<std::string>();
  if (text == "cv")
    throw UsageError("--alpha cv is now --alpha auto (the smoothing and the SVM's C chosen together by "
                     "cross-validated accuracy); --alpha evidence is maximum evidence");
  if (text == "1/D" && !rows.one_over_d)
    throw UsageError("--alpha 1/D (one pseudo-count over the vocabulary) applies to multinomial rows; the "
                     "bernoulli prior is Beta(A, A) on every feature: give --alpha A");
  const PoolFile* from = context.choices.pool_from();
  CvOptions options = read_cv_options(values, from == nullptr && text == "auto", rows.one_over_d);
  // Maximum-likelihood rows have no base measure: --base pooled leaves ml out of the default candidates
  // (a --cv-alphas that names it is refused when its rows are fitted).
  if (values.count("base") && values["base"].as<std::string>() == "pooled" && values["cv-alphas"].defaulted())
    options.candidates.erase(std::remove(options.candidates.begin(), options.candidates.end(), "ml"),
                             options.candidates.end());
  const RowSmoothing smoothing = from != nullptr ? reused_smoothing(context, *from, rows)
                                                 : training_smoothing(context, options, rows);
  if (from != nullptr || smoothing.how != "the command line") {
    const std::string where = from != nullptr ? from->source + " (read from " + from->path + ")" : context.source.name;
    std::cerr << context.command << ": "
              << (smoothing.method == Method::ml ? std::string("maximum-likelihood rows (ml)")
                                                 : "alpha = " + format_shortest(smoothing.alpha))
              << ", chosen by " << smoothing.how << " on " << where << "\n";
  }
  context.choices.set_smoothing(smoothing.record());
  return rows.make(smoothing.method, smoothing.alpha);
}

void add_bernoulli_options(po::options_description& options) {
  add_chosen_alpha_option(options, "3", "A|auto|evidence", "evidence,0.1,1,3,10,30",
                          "the Beta(A, A) prior: g_d = (k_d + A) / (n + 2A) (posterior); auto: the smoothing (A "
                          "or ml) chosen with C by cross-validated SVM accuracy on the training file; evidence: "
                          "A chosen by maximum evidence (needs examples of several vectors)");
}

std::unique_ptr<Estimator> make_bernoulli(const FitContext& context) {
  const std::vector<Example>& examples = context.input.data.examples;
  return smoothed_estimator(
      context,
      SmoothedFamily{"bernoulli",
                     [&] {
                       bool several = false;
                       for (const Example& example : examples) several = several || example.vectors.size() > 1;
                       if (!several)
                         throw EstimationError("every example is one vector, and the evidence of one binary draw "
                                               "is 1/2 whatever the Beta(A, A) prior, so the data cannot choose A; "
                                               "group each example's vectors with qid:, or give --alpha a number");
                       return bernoulli_polya_counts(examples, context.input.dim);
                     },
                     2.0, "2A (Beta(A, A) per feature)", false,
                     [](Method method, double alpha) { return bernoulli_estimator(BernoulliFitOptions{method, alpha}); }});
}

void add_multinomial_options(po::options_description& options) {
  add_chosen_alpha_option(options, "1/D", "A|1/D|auto|evidence", "evidence,1/D,ml,1,0.1,0.01,0.001",
                          "the Dirichlet(A) prior: a_d = (c_d + A) / (N + A D) (posterior); 1/D: one "
                          "pseudo-count in all, A D = 1 (Perks's prior), whatever the vocabulary; auto: the "
                          "smoothing (A or ml) chosen with C by cross-validated SVM accuracy on the training file; "
                          "evidence: A chosen by maximum evidence");
  options.add_options()
      ("trials", po::value<std::string>()->default_value("one")->value_name("one|S|all"),
       "the model's number of draws: one, a whole number S >= 1, or all")
      ("decay", po::value<double>()->value_name("L"),
       "with --trials all (required there): the kernel is 1/(1 - L B), B = sum_d "
       "sqrt(a_d a'_d), 0 < L <= 1; L = 1 makes every self-kernel infinite, so an SVM "
       "needs L < 1")
      ("base", po::value<std::string>()->default_value("uniform")->value_name("uniform|pooled"),
       "the prior's centre: uniform (m_d = 1/D) or pooled (the training file's smoothed word "
       "frequencies; needs --save-pooled or --pooled-from)");
}

// --base pooled: the training file's base, computed on INPUT (with --save-pooled) or read from the
// --pooled-from file, and recorded for the pool file; null for --base uniform. UsageError when the
// two files disagree about the base or when a pooled base could not be shared with the test file.
std::shared_ptr<const LeveledBase> base_option(const FitContext& context) {
  const std::string base = context.values["base"].as<std::string>();
  if (base != "uniform" && base != "pooled") throw UsageError("--base must be uniform or pooled, got '" + base + "'");
  const PoolFile* from = context.choices.pool_from();
  const std::string& input = context.source.name;
  if (base == "uniform") {
    if (from != nullptr && !from->base.is_null())
      throw UsageError(from->path + " holds the pooled base of the training file " + from->source +
                       " (fitted with --base pooled), but " + input +
                       " is fitted with --base uniform: give it --base pooled too");
    return nullptr;
  }
  auto leveled = std::make_shared<LeveledBase>();
  if (from != nullptr) {
    const nlohmann::json& saved = from->base;
    if (saved.is_null())
      throw UsageError(input + " is fitted with --base pooled, but " + from->path + " (from the training file " +
                       from->source + ") holds no pooled base: fit " + from->source +
                       " with --base pooled --save-pooled " + from->path);
    try {
      leveled->levels.value = saved.at("level_values").get<std::vector<double>>();
      leveled->levels.count = saved.at("level_counts").get<std::vector<long>>();
      leveled->word_level = saved.at("word_levels").get<std::vector<int>>();
    } catch (const nlohmann::json::exception&) {
      throw InputError(from->path + ": \"base\": expected {\"level_values\", \"level_counts\", \"word_levels\"}");
    }
    if (static_cast<long>(leveled->word_level.size()) != context.input.dim)
      throw UsageError(from->path + " holds the pooled base of " + from->source + " over " +
                       std::to_string(leveled->word_level.size()) + " words, but " + input + " has D = " +
                       std::to_string(context.input.dim) + " (give both files the same --dim)");
    // The table is checked as a row's would be (a model with no listed word), and every word's level
    // against it: the level counts are the number of words at each level.
    std::vector<long> words_at(leveled->levels.count.size(), 0);
    for (int level : leveled->word_level) {
      if (level < 0 || static_cast<std::size_t>(level) >= words_at.size())
        throw InputError(from->path + ": \"base\": a word level outside the level table");
      ++words_at[static_cast<std::size_t>(level)];
    }
    if (words_at != leveled->levels.count)
      throw InputError(from->path + ": \"base\": \"level_counts\" differ from the number of words at each level");
    try {
      MultinomialModel(LeveledProbabilities{context.input.dim, 1.0, leveled->levels, {}, {}, {}}, Trials());
    } catch (const ModelError& e) {
      throw InputError(from->path + ": \"base\": " + e.what());
    }
  } else {
    if (!context.values.count("save-pooled"))
      throw UsageError("--base pooled on " + input + " needs --save-pooled POOL (the training file, whose base the "
                       "test file must share) or --pooled-from POOL (a test file)");
    const Dataset& data = context.input.data;
    std::vector<double> pooled(static_cast<std::size_t>(context.input.dim), 0.0);
    for (const Example& example : data.examples)
      for (const SparseVector& vector : example.vectors)
        for (const Feature& feature : vector) {
          if (feature.value < 0)
            throw data.error_at(example, "count " + format_double(feature.value) + " at index " +
                                             std::to_string(feature.coord + 1) + " is negative; multinomial counts "
                                             "must be >= 0");
          pooled[static_cast<std::size_t>(feature.coord)] += feature.value;
        }
    *leveled = quantised_pooled_base(pooled);
    std::cerr << "ppk fit multinomial: pooled base of " << input << " quantised to "
              << leveled->levels.value.size() << " levels\n";
  }
  context.choices.set_base({{"kind", "pooled"},
                            {"smoothing", "(C_d + 1/2) / (C + D/2)"},
                            {"level_values", leveled->levels.value},
                            {"level_counts", leveled->levels.count},
                            {"word_levels", leveled->word_level}});
  return leveled;
}

Trials trials_option(const po::variables_map& values) {
  Trials trials;
  const std::string text = values["trials"].as<std::string>();
  if (text == "one") {
    trials.kind = Trials::one_event;
  } else if (text == "all") {
    trials.kind = Trials::all;
  } else {
    const std::optional<long> count = parse_long(text);
    if (!count || *count < 1) throw UsageError("--trials must be one, all or a whole number >= 1, got '" + text + "'");
    trials.kind = Trials::fixed;
    trials.count = *count;
  }
  if (values.count("decay")) {
    if (trials.kind != Trials::all) throw UsageError("--decay applies only to --trials all");
    trials.decay = option(values, "decay");
    if (!(trials.decay > 0 && trials.decay <= 1))
      throw UsageError("--decay must be in (0, 1], got " + format_double(trials.decay));
  } else if (trials.kind == Trials::all) {
    throw UsageError("--trials all needs --decay L: the kernel sums (L B)^s over all s, which "
                     "is 1/(1 - L B); with L = 1 every self-kernel is infinite, so an SVM "
                     "needs 0 < L < 1");
  }
  return trials;
}

std::unique_ptr<Estimator> make_multinomial(const FitContext& context) {
  const long dim = context.input.dim;
  std::shared_ptr<const LeveledBase> base = base_option(context);
  const Trials trials = trials_option(context.values);
  return smoothed_estimator(
      context,
      SmoothedFamily{"multinomial",
                     [&] {
                       // The prior Dirichlet(A m), A = alpha D: m_d = 1/D, or the pooled base's level of word d.
                       Eigen::VectorXd m = Eigen::VectorXd::Constant(dim, 1.0 / static_cast<double>(dim));
                       if (base)
                         for (long d = 0; d < dim; ++d) m[d] = base->levels.value[base->word_level[d]];
                       return multinomial_polya_counts(context.input.data.examples, m);
                     },
                     static_cast<double>(dim), "alpha D", true,
                     [&](Method method, double alpha) {
                       return multinomial_estimator(MultinomialFitOptions{method, alpha, trials, base});
                     }});
}

// The statistics of every example of `data` read by `reader`, computed on first use (never when a
// --pooled-from file supplies everything the prior needs); an example that cannot be read is an
// InputError naming it.
class LazyExampleStatistics {
 public:
  LazyExampleStatistics(const Estimator& reader, const Dataset& data, long dim) : reader_(reader), data_(data), dim_(dim) {}
  const std::vector<Statistics>& operator()() {
    if (!statistics_) {
      statistics_.emplace();
      for (const Example& example : data_.examples) {
        try {
          statistics_->push_back(reader_.statistics(example.vectors, dim_));
        } catch (const EstimationError& e) {
          throw data_.error_at(example, e.what());
        }
      }
    }
    return *statistics_;
  }

 private:
  const Estimator& reader_;
  const Dataset& data_;
  long dim_;
  std::optional<std::vector<Statistics>> statistics_;
};

// Poisson and exponential: a Gamma prior on the rate, fixed (Gamma(A, B)) or pooled (centred on
// INPUT's pooled mean of each feature, `pooled_help`).
void add_gamma_prior_on_rate(po::options_description& options, const char* pooled_help) {
  options.add_options()
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"), pooled_help)
      ("prior-shape", po::value<std::string>()->value_name("A|auto"),
       "map: the Gamma shape A > 0 (default 2; with --prior pooled default auto = maximum evidence on INPUT)")
      ("prior-rate", po::value<double>()->default_value(1.0)->value_name("B"), "map, --prior fixed: prior Gamma rate B >= 0");
  add_pooled_estimate_option(options);
}

void add_poisson_options(po::options_description& options) {
  add_gamma_prior_on_rate(options,
                          "map: the rate prior: fixed (Gamma(A, B)) or pooled (Gamma(A, A / r_d), mean r_d the pooled "
                          "rate of feature d on INPUT)");
}

void add_exponential_options(po::options_description& options) {
  add_gamma_prior_on_rate(options,
                          "map: the prior on the rate 1/b_d: fixed (Gamma(A, B)) or pooled (Gamma(A, (A - 1) bbar_d), "
                          "the prior mean of b_d the pooled mean bbar_d of feature d on INPUT)");
}

// --prior fixed|pooled, --prior-shape A|auto and --prior-rate. For --prior pooled: the pooled mean
// sum_i s_id / sum_i n_i of each feature on INPUT (the Poisson rate r_d, the exponential scale
// bbar_d; saved and reused as the matrix `means_name` into options.*pooled_means), and the shape A,
// given or chosen by maximum evidence (the examples added to a GammaRateEvidence by `add_example`).
// The Poisson and exponential estimators (`make`) share it.
template <class FitOptions>
std::unique_ptr<Estimator> make_gamma_rate_estimator(
    const FitContext& context, std::unique_ptr<Estimator> (*make)(const FitOptions&),
    std::optional<Eigen::VectorXd> FitOptions::*pooled_means, const std::string& means_name,
    void (GammaRateEvidence::*add_example)(double, const Eigen::VectorXd&, const Eigen::VectorXd&)) {
  const po::variables_map& values = context.values;
  FitOptions options;
  options.method = context.method;
  options.prior_rate = option(values, "prior-rate");
  if (!pooled_prior_option(values, context.method, options.pooled_posterior_mean)) {
    const std::optional<double> shape = number_or_auto(values, "prior-shape", "2");
    if (!shape) throw UsageError("--prior-shape auto chooses the shape of --prior pooled; add --prior pooled");
    options.prior_shape = *shape;
    return make(options);
  }
  if (!values["prior-rate"].defaulted())
    throw UsageError("--prior pooled sets the prior's rates from INPUT's pooled means; drop --prior-rate");
  const Dataset& data = context.input.data;
  const long dim = context.input.dim;
  const std::unique_ptr<Estimator> statistics_of = make(FitOptions{});
  LazyExampleStatistics examples(*statistics_of, data, dim);
  const Eigen::MatrixXd means = context.choices.matrix(means_name, [&] {
    Eigen::VectorXd sums = Eigen::VectorXd::Zero(dim);
    double vectors = 0;
    for (const Statistics& example : examples()) sums += example.sums.at("x").col(0), vectors += example.count;
    return Eigen::MatrixXd(sums / vectors);
  });
  if (means.rows() != dim || means.cols() != 1)
    throw UsageError(values["pooled-from"].as<std::string>() + " holds " + means_name + " of dimension " +
                     std::to_string(means.rows()) + ", but " + data.source + " is fitted over dimension " +
                     std::to_string(dim) + ": give both files the same --dim");
  const Eigen::VectorXd pooled = means.col(0);
  options.*pooled_means = pooled;
  const std::optional<double> shape = number_or_auto(values, "prior-shape", "auto");
  if (shape) {
    options.prior_shape = context.choices.given("prior-shape", *shape);
  } else {
    options.prior_shape = context.choices.value("prior-shape", [&] {
      GammaRateEvidence evidence;
      for (const Statistics& example : examples())
        (evidence.*add_example)(example.count, example.sums.at("x").col(0), pooled);
      StrengthChoice choice;
      try {
        choice = maximise_evidence(evidence);
      } catch (const EstimationError& e) {
        throw InputError(data.source + ": " + e.what());
      }
      return evidence_choice(choice, "the examples' rates are indistinguishable from the pooled ones");
    });
  }
  return make(options);
}

std::unique_ptr<Estimator> make_poisson(const FitContext& context) {
  return make_gamma_rate_estimator(context, poisson_estimator, &PoissonFitOptions::prior_rates, "prior-rates",
                                   &GammaRateEvidence::add_counts);
}

std::unique_ptr<Estimator> make_exponential(const FitContext& context) {
  return make_gamma_rate_estimator(context, exponential_estimator, &ExponentialFitOptions::prior_scales,
                                   "prior-scales", &GammaRateEvidence::add_waiting_times);
}

void add_gamma_options(po::options_description& options) {
  options.add_options()
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"),
       "map: the conjugate prior's centre: fixed (statistics of Gamma(A0, B0)) or pooled (INPUT's pooled mean "
       "of x and of log x per feature)")
      ("prior-shape", po::value<double>()->default_value(1.0)->value_name("A0"),
       "map, --prior fixed: pseudo-observations typical of Gamma(A0, B0)")
      ("prior-scale", po::value<double>()->default_value(1.0)->value_name("B0"), "map, --prior fixed: (see --prior-shape)")
      ("prior-count", po::value<std::string>()->value_name("N0|auto"),
       "map: the prior is worth N0 > 0 pseudo-observations (default 1; with --prior pooled default auto = "
       "maximum evidence on INPUT)");
}

// The centre of a conjugate prior, "prior-centre": column k the mean over every vector of INPUT of
// the sufficient statistic statistic_names[k] (a D x K matrix), or the one read from --pooled-from,
// whose shape must agree (UsageError naming both files).
Eigen::MatrixXd pooled_statistics_centre(const FitContext& context, LazyExampleStatistics& examples,
                                         const std::vector<std::string>& statistic_names) {
  const long dim = context.input.dim;
  const auto columns = static_cast<Eigen::Index>(statistic_names.size());
  const Eigen::MatrixXd centre = context.choices.matrix("prior-centre", [&] {
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(dim, columns);
    double vectors = 0;
    for (const Statistics& example : examples()) {
      for (Eigen::Index k = 0; k < columns; ++k)
        sums.col(k) += example.sums.at(statistic_names[static_cast<std::size_t>(k)]).col(0);
      vectors += example.count;
    }
    return Eigen::MatrixXd(sums / vectors);
  });
  if (centre.rows() != dim || centre.cols() != columns)
    throw UsageError(context.values["pooled-from"].as<std::string>() + " holds a prior-centre of " +
                     std::to_string(centre.rows()) + " x " + std::to_string(centre.cols()) + ", but " +
                     context.input.data.source + " needs " + std::to_string(dim) + " x " + std::to_string(columns) +
                     ": fit both files with the same family and --dim");
  return centre;
}

// N0 of --prior pooled (gamma, dirichlet): --prior-count N0 as given, or, for --prior-count auto
// (the default), chosen on INPUT by `choose`; read from --pooled-from for a test file.
double pooled_prior_count(const FitContext& context, const std::function<Choice()>& choose) {
  const std::optional<double> count = number_or_auto(context.values, "prior-count", "auto");
  if (count) return context.choices.given("prior-count", *count);
  return context.choices.value("prior-count", choose);
}

// --prior pooled: the centre (INPUT's pooled mean of x and of log x per feature, saved as
// "prior-centre") and N0, given or chosen by maximum evidence on INPUT (GammaShapeEvidence), or both
// read from --pooled-from.
void choose_gamma_prior(const FitContext& context, GammaFitOptions& options) {
  const Dataset& data = context.input.data;
  const long dim = context.input.dim;
  const std::unique_ptr<Estimator> reader = gamma_estimator(GammaFitOptions{});
  LazyExampleStatistics examples(*reader, data, dim);
  const Eigen::MatrixXd centre = pooled_statistics_centre(context, examples, {"x", "log_x"});
  options.prior_centre = centre;
  options.prior_count = pooled_prior_count(context, [&] {
    GammaShapeEvidence evidence;
    StrengthChoice choice;
    try {
      for (const Statistics& example : examples())
        evidence.add(example.count, example.sums.at("x").col(0), example.sums.at("log_x").col(0), centre.col(0),
                     centre.col(1));
      choice = maximise_evidence(evidence);
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + e.what());
    }
    return evidence_choice(choice, "the examples' gamma fits are indistinguishable from the pooled one");
  });
}

void add_dirichlet_options(po::options_description& options) {
  options.add_options()
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"),
       "map: the conjugate prior's centre: fixed (statistics of Dirichlet(A0, .., A0)) or pooled (INPUT's "
       "pooled mean of log x_d)")
      ("prior-alpha", po::value<double>()->default_value(1.0)->value_name("A0"),
       "map, --prior fixed: pseudo-observations typical of Dirichlet(A0, .., A0)")
      ("prior-count", po::value<std::string>()->value_name("N0|auto"),
       "map: the prior is worth N0 > 0 pseudo-observations (default 1; with --prior pooled default auto = "
       "maximum held-out likelihood on INPUT)");
}

// --prior fixed|pooled for gamma and dirichlet: true for pooled (which needs --estimator map and
// refuses the options of --prior fixed, `fixed_only`).
bool conjugate_prior_is_pooled(const FitContext& context, std::initializer_list<const char*> fixed_only) {
  const std::string prior = context.values["prior"].as<std::string>();
  if (prior != "fixed" && prior != "pooled") throw UsageError("--prior must be fixed or pooled, got '" + prior + "'");
  if (prior == "fixed") {
    if (!number_or_auto(context.values, "prior-count", "1"))
      throw UsageError("--prior-count auto chooses the strength of --prior pooled; add --prior pooled");
    return false;
  }
  if (context.method != Method::map)
    throw UsageError("--prior pooled is a prior of the map estimator: add --estimator map");
  for (const char* option_name : fixed_only)
    if (!context.values[option_name].defaulted())
      throw UsageError(std::string("--") + option_name + " belongs to --prior fixed; --prior pooled centres the "
                       "prior on INPUT's pooled statistics");
  return true;
}

// --prior pooled: the centre (INPUT's pooled mean of log x_d, saved as "prior-centre", D x 1) and
// N0, given or chosen by held-out likelihood on INPUT (choose_dirichlet_prior_count), or both read
// from --pooled-from.
void choose_dirichlet_prior(const FitContext& context, DirichletFitOptions& options) {
  const Dataset& data = context.input.data;
  const long dim = context.input.dim;
  const std::unique_ptr<Estimator> reader = dirichlet_estimator(DirichletFitOptions{});
  LazyExampleStatistics examples(*reader, data, dim);
  const Eigen::MatrixXd centre = pooled_statistics_centre(context, examples, {"log_x"});
  options.prior_log_means = centre.col(0);
  options.prior_count = pooled_prior_count(context, [&] {
    examples();  // every example read and checked first
    std::vector<Eigen::MatrixXd> log_vectors;
    for (const Example& example : data.examples) {
      Eigen::MatrixXd logs(static_cast<Eigen::Index>(example.vectors.size()), dim);
      for (std::size_t j = 0; j < example.vectors.size(); ++j)
        for (const Feature& f : example.vectors[j]) logs(static_cast<Eigen::Index>(j), f.coord) = std::log(f.value);
      log_vectors.push_back(std::move(logs));
    }
    DirichletPriorChoice choice;
    try {
      choice = choose_dirichlet_prior_count(log_vectors, centre.col(0));
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + e.what());
    }
    std::ostringstream how;
    how << "maximum held-out likelihood (each vector left out in turn; grid 0.125..1024"
        << (choice.count == choice.scores.front().first || choice.count == choice.scores.back().first
                ? ", best at its end" : "")
        << ")";
    return Choice{choice.count, how.str()};
  });
}

std::unique_ptr<Estimator> make_dirichlet(const FitContext& context) {
  DirichletFitOptions options;
  options.method = context.method;
  if (conjugate_prior_is_pooled(context, {"prior-alpha"})) {
    choose_dirichlet_prior(context, options);
    return dirichlet_estimator(options);
  }
  options.prior_alpha = option(context.values, "prior-alpha");
  options.prior_count = *number_or_auto(context.values, "prior-count", "1");
  return dirichlet_estimator(options);
}

std::unique_ptr<Estimator> make_gamma(const FitContext& context) {
  GammaFitOptions options;
  options.method = context.method;
  if (conjugate_prior_is_pooled(context, {"prior-shape", "prior-scale"})) {
    choose_gamma_prior(context, options);
    return gamma_estimator(options);
  }
  options.prior_shape = option(context.values, "prior-shape");
  options.prior_scale = option(context.values, "prior-scale");
  options.prior_count = *number_or_auto(context.values, "prior-count", "1");
  return gamma_estimator(options);
}


}  // namespace

void add_mixture_options(po::options_description& options) {
  options.add_options()
      ("components", po::value<long>()->default_value(2)->value_name("K"), "the number of components K >= 1")
      ("cov", po::value<std::string>()->default_value("full")->value_name("iso|diag|full"),
       "the components' covariance form")
      ("ridge", po::value<double>()->value_name("R"), "R > 0 (see above); default 1e-6 times the data's variance");
  add_em_options(options, 200, "at most N EM iterations per restart");
}

MixtureFitOptions mixture_fit_options(const po::variables_map& values) {
  MixtureFitOptions options;
  options.components = values["components"].as<long>();
  options.covariance = covariance_form(values["cov"].as<std::string>());
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  try {
    check_mixture_fit_options(options);
  } catch (const EstimationError& e) {
    throw UsageError(e.what());
  }
  return options;
}

namespace {

// ppk fit mixture: the EM options and --prior / --prior-count (covariance_prior.hpp).
void add_mixture_fit_options(po::options_description& options) {
  add_mixture_options(options);
  add_covariance_prior_options(options, "none");
}

// --prior pooled of mixture and hmm: the centre and nu (chosen by `choose` for --prior-count auto).
std::optional<CovariancePrior> covariance_prior(const FitContext& context, CovarianceForm form, const Estimator& reader,
                                                const PriorCountChooser& choose) {
  return covariance_prior_option(context.values, number_or_auto(context.values, "prior-count", "auto"),
                                 context.input.data, context.input.dim, form, reader, context.choices, choose);
}

std::unique_ptr<Estimator> make_mixture(const FitContext& context) {
  MixtureFitOptions options = mixture_fit_options(context.values);
  options.prior = covariance_prior(context, options.covariance, *mixture_estimator(options),
                                   [&](const std::vector<Eigen::MatrixXd>& sets, const Eigen::MatrixXd& centre,
                                       const std::vector<double>& counts) {
                                     return choose_mixture_prior(sets, options, centre, counts, 100,
                                                                 threads_option(context.values));
                                   });
  return mixture_estimator(options);
}

void add_kde_options(po::options_description& options) {
  options.add_options()
      ("bandwidth", po::value<double>()->default_value(1.0)->value_name("H"), "the variance H > 0 of every component")
      ("mean-map-sigma", po::value<double>()->value_name("SIGMA"),
       "H = SIGMA^2/2: the rows' rho = 1 kernels are the mean-map kernel of the RBF base kernel "
       "exp(-|x - y|^2/(2 SIGMA^2)) times (2 pi SIGMA^2)^(-D/2) (not with --bandwidth)");
}

std::unique_ptr<Estimator> make_kde(const FitContext& context) {
  const po::variables_map& values = context.values;
  if (!values.count("mean-map-sigma")) return kde_estimator(KdeFitOptions{option(values, "bandwidth")});
  if (!values["bandwidth"].defaulted())
    throw UsageError("--mean-map-sigma sets the bandwidth (H = SIGMA^2/2); it cannot be combined with --bandwidth");
  return kde_estimator(KdeFitOptions{mean_map_bandwidth(option(values, "mean-map-sigma"))});
}

// The models' dimension: --dim, or the largest index in the data.
long model_dimension(const Dataset& data, const po::variables_map& values) {
  if (!values.count("dim")) {
    if (data.max_index == 0 && !data.examples.empty())
      throw InputError(data.source + ": no example has any feature; give --dim D");
    return data.max_index;
  }
  const long dim = values["dim"].as<long>();
  if (dim < 1) throw UsageError("--dim must be at least 1, got " + std::to_string(dim));
  return dim;
}

// INPUT's LIBSVM rows (its format checked by the caller); the dimension from --dim or the data.
FitInput parse_libsvm_input(const FitSource& source, const po::variables_map& values) {
  FitInput out;
  std::istringstream text(source.text);
  out.data = read_data(text, source.name);
  out.dim = model_dimension(out.data, values);
  return out;
}

constexpr FitFormats kRows{true, true, false, false};
constexpr FitFormats kSequenceRows{false, true, false, false};

// LIBSVM rows, one example per line or per qid group.
FitInput read_libsvm_input(const FitSource& source, const po::variables_map& values, const std::string& command) {
  check_fit_format(source, kRows, command);
  return parse_libsvm_input(source, values);
}

// qid-grouped LIBSVM rows, one sequence per group.
FitInput read_sequence_input(const FitSource& source, const po::variables_map& values, const std::string& command) {
  check_fit_format(source, kSequenceRows, command);
  return parse_libsvm_input(source, values);
}

void add_hmm_options(po::options_description& options) {
  options.add_options()
      ("states", po::value<std::string>()->default_value("auto")->value_name("M|auto"),
       "the number of hidden states M >= 1, or auto: the section 8.2 rule")
      ("param-ratio", po::value<double>()->default_value(0.1, "0.1")->value_name("Z"),
       "auto: the ratio z > 0 of parameters to symbols")
      ("emission", po::value<std::string>()->value_name("discrete|gaussian"),
       "the emission models (discrete for sequences, gaussian for libsvm)")
      ("format", po::value<std::string>()->value_name("fasta|lines|libsvm"), "INPUT's format (see above)")
      ("alphabet", po::value<std::string>()->value_name("SYMBOLS"), "the symbols in index order, e.g. ACGT")
      ("alphabet-from", po::value<std::string>()->value_name("FILE"), "the alphabet saved by --save-alphabet")
      ("save-alphabet", po::value<std::string>()->value_name("FILE"), "write the alphabet used to FILE (one line)")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start, transition and symbol count")
      ("cov", po::value<std::string>()->value_name("iso|diag|full"), "gaussian: the covariance form (full)")
      ("ridge", po::value<double>()->value_name("R"), "gaussian: R > 0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: n - 1)");
  add_covariance_prior_options(options, "pooled");
  add_em_options(options, 400, "at most N Baum-Welch iterations per restart (the paper's 400)");
}

const char* format_name(DataFormat format) {
  switch (format) {
    case DataFormat::fasta:
      return "fasta";
    case DataFormat::lines:
      return "lines";
    case DataFormat::libsvm:
    case DataFormat::unknown:
      break;
  }
  return "libsvm";
}

bool gaussian_emissions_given(const po::variables_map& values) {
  return values.count("emission") && values["emission"].as<std::string>() == "gaussian";
}

// The format ppk fit hmm reads INPUT in: --format; else libsvm with --emission gaussian; else the
// format INPUT is in (detect_format; a file in none is read as lines, whose reader says why not).
DataFormat hmm_format(const po::variables_map& values, const FitSource& source) {
  if (values.count("format")) {
    const std::string format = values["format"].as<std::string>();
    for (DataFormat known : {DataFormat::fasta, DataFormat::lines, DataFormat::libsvm})
      if (format == format_name(known)) return known;
    throw UsageError("--format must be fasta, lines or libsvm, got '" + format + "'");
  }
  if (gaussian_emissions_given(values)) return DataFormat::libsvm;
  if (source.format && source.format->format != DataFormat::unknown) return source.format->format;
  return DataFormat::lines;
}

std::unique_ptr<Estimator> make_hmm(const FitContext& context) {
  const po::variables_map& values = context.values;
  const FitSource& source = context.source;
  const DataFormat format = hmm_format(values, source);
  const bool vectors = format == DataFormat::libsvm;
  HmmFitOptions options;
  if (values.count("emission")) {
    const std::string emission = values["emission"].as<std::string>();
    if (emission != "discrete" && emission != "gaussian")
      throw UsageError("--emission must be discrete or gaussian, got '" + emission + "'");
    options.emissions = emission == "gaussian" ? HmmEmissions::gaussian : HmmEmissions::discrete;
    if (options.emissions == HmmEmissions::gaussian && !vectors)
      throw UsageError(std::string("--emission gaussian takes vectors: LIBSVM input (--format libsvm), not ") +
                       format_name(format));
  } else if (vectors) {
    options.emissions = HmmEmissions::gaussian;
  }
  if (options.emissions == HmmEmissions::discrete &&
      (values.count("cov") || values.count("ridge") || !values["prior"].defaulted() || values.count("prior-count")))
    throw UsageError("--cov, --ridge, --prior and --prior-count apply to --emission gaussian");
  if (vectors && (values.count("alphabet") || values.count("alphabet-from") || values.count("save-alphabet")))
    throw UsageError("--alphabet, --alphabet-from and --save-alphabet apply to sequences, not to LIBSVM input");
  if (!vectors && values.count("dim"))
    throw UsageError("--dim applies to LIBSVM input; for sequences the alphabet sets the dimension");
  if (values.count("alphabet") && values.count("alphabet-from"))
    throw UsageError("--alphabet and --alphabet-from exclude each other");
  const std::string states = values["states"].as<std::string>();
  if (states != "auto") {
    options.states = parse_long(states);
    if (!options.states) throw UsageError("--states must be a whole number or auto, got '" + states + "'");
  }
  options.param_ratio = option(values, "param-ratio");
  options.smoothing = option(values, "smoothing");
  if (values.count("cov")) options.covariance = covariance_form(values["cov"].as<std::string>());
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  if (values.count("length")) options.length = values["length"].as<long>();
  if (options.emissions == HmmEmissions::gaussian)
    options.prior = covariance_prior(context, options.covariance, *hmm_estimator(options),
                                     [&](const std::vector<Eigen::MatrixXd>& sequences, const Eigen::MatrixXd& centre,
                                         const std::vector<double>& counts) {
                                       return choose_hmm_prior(sequences, options, centre, counts, 100,
                                                               threads_option(values));
                                     });
  return hmm_estimator(options);
}

void add_fhmm_options(po::options_description& options) {
  options.add_options()
      ("chains", po::value<long>()->default_value(2)->value_name("C"), "the number of chains C >= 1")
      ("states", po::value<long>()->default_value(2)->value_name("M"), "states per chain M >= 1")
      ("e-step", po::value<std::string>()->value_name("E"),
       "exact (M^C <= 1024) or mean-field (structured variational; C M <= 1000); default: exact when M^C <= 1024")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start and transition count")
      ("ridge", po::value<double>()->value_name("R"), "R > 0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: n - 1)");
  add_covariance_prior_options(options, "none");
  add_em_options(options, 400, "at most N EM iterations per restart");
}

std::unique_ptr<Estimator> make_fhmm(const FitContext& context) {
  const po::variables_map& values = context.values;
  FhmmFitOptions options;
  options.chains = values["chains"].as<long>();
  options.states = values["states"].as<long>();
  if (values.count("e-step")) {
    const std::string e_step = values["e-step"].as<std::string>();
    if (e_step != "exact" && e_step != "mean-field")
      throw UsageError("--e-step must be exact or mean-field, got '" + e_step + "'");
    options.e_step = e_step == "exact" ? FhmmEStep::exact : FhmmEStep::mean_field;
  }
  options.smoothing = option(values, "smoothing");
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  if (values.count("length")) options.length = values["length"].as<long>();
  options.prior = covariance_prior(context, CovarianceForm::full, *fhmm_estimator(options),
                                   [&](const std::vector<Eigen::MatrixXd>& sequences, const Eigen::MatrixXd& centre,
                                       const std::vector<double>& counts) {
                                     return choose_fhmm_prior(sequences, options, centre, counts, 100,
                                                              threads_option(values));
                                   });
  return fhmm_estimator(options);
}

// qid-grouped LIBSVM rows, or symbol sequences as examples of one-hot vectors over the alphabet. The
// format is checked against INPUT's (check_fit_format); one detected as LIBSVM rows is noted on
// standard error, since it chooses the emissions.
FitInput read_hmm_input(const FitSource& source, const po::variables_map& values, const std::string& command) {
  const DataFormat format = hmm_format(values, source);
  // What INPUT may be under these options; the remedy for any other format.
  FitFormats formats{false, true, true, true};
  std::string given = command, advice;
  if (values.count("format")) {
    formats = FitFormats{false, format == DataFormat::libsvm, format == DataFormat::fasta, format == DataFormat::lines};
    given += std::string(" --format ") + format_name(format);
    if (source.format && (source.format->format != DataFormat::libsvm || source.format->grouped))
      advice = std::string("give --format ") + format_name(source.format->format) +
               ", or leave --format out: INPUT's format is detected";
  } else if (gaussian_emissions_given(values)) {
    formats = kSequenceRows;
    given += " --emission gaussian";
    if (source.format && source.format->format != DataFormat::libsvm)
      advice = "--emission gaussian takes vectors; symbol sequences take --emission discrete (the default for them)";
  }
  check_fit_format(source, formats, given, advice);
  if (format == DataFormat::libsvm) {
    if (!values.count("format") && !gaussian_emissions_given(values))
      std::cerr << command << ": note: " << source.name << ":" << source.format->line << " is "
                << describe_format(*source.format) << ": one HMM per qid group, with "
                << (values.count("emission") ? "discrete emissions over one-hot vectors"
                                             : "Gaussian emissions (--format libsvm --emission gaussian)")
                << "\n";
    return parse_libsvm_input(source, values);
  }
  std::optional<Alphabet> alphabet;
  if (values.count("alphabet")) alphabet.emplace(values["alphabet"].as<std::string>(), "--alphabet");
  if (values.count("alphabet-from")) {
    InputFile file(values["alphabet-from"].as<std::string>());
    alphabet = read_alphabet(file.stream(), file.name());
  }
  std::istringstream text(source.text);
  const SequenceSet set = read_sequences(text, source.name,
                                         format == DataFormat::fasta ? SequenceFormat::fasta : SequenceFormat::lines,
                                         alphabet);
  FitInput out;
  out.data.source = set.source;
  out.data.max_index = set.alphabet->size();
  out.dim = set.alphabet->size();
  for (const SymbolSequence& sequence : set.sequences) {
    Example example;
    example.label = sequence.label;
    example.line = sequence.line;
    example.vectors.reserve(sequence.symbols.size());
    for (long symbol : sequence.symbols) example.vectors.push_back(SparseVector{Feature{symbol, 1.0}});
    out.data.examples.push_back(std::move(example));
  }
  if (values.count("save-alphabet"))
    out.side_outputs.emplace_back(values["save-alphabet"].as<std::string>(), std::vector<std::string>{set.alphabet->symbols()});
  return out;
}

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
)";

// --prior-strength, --prior-state-noise, --prior-observation-noise (lds, slds): the inverse-Wishart
// priors of estimate_lds.hpp; "auto" (the default) chooses them on the training file
// (choose_lds_prior) or reads them from --pooled-from.
void add_lds_prior_options(po::options_description& options) {
  options.add_options()
      ("prior-strength", po::value<std::string>()->default_value("auto")->value_name("auto|NU"),
       "pseudo-observations NU >= 0 of the priors on cov0, Q, R (0: none); auto: by held-out likelihood")
      ("prior-state-noise", po::value<std::string>()->default_value("auto")->value_name("auto|PSI"),
       "Q's prior centre PSI I (unit state scale); auto: pooled over ML fits")
      ("prior-observation-noise", po::value<std::string>()->default_value("auto")->value_name("auto|PHI"),
       "R's prior centre PHI diag(variances); auto: pooled over ML fits");
}

// "auto" (nothing) or a finite number > 0 (>= 0 when zero_allowed) for --NAME.
std::optional<double> auto_or_number(const po::variables_map& values, const char* name, bool zero_allowed) {
  const std::optional<double> value = number_or_auto(values, name, "auto");
  if (value && (!std::isfinite(*value) || *value < 0 || (!zero_allowed && *value == 0)))
    throw UsageError(std::string("--") + name + " must be auto or a finite number " + (zero_allowed ? ">= 0" : "> 0") +
                     ", got '" + values[name].as<std::string>() + "'");
  return value;
}

// The priors of an lds or slds fit: given values are recorded, "auto" ones chosen on INPUT (one
// choose_lds_prior for all of them) or read from --pooled-from.
void read_lds_prior(const FitContext& context, LdsFitOptions& options) {
  const po::variables_map& values = context.values;
  const std::optional<double> strength = auto_or_number(values, "prior-strength", true),
                              state = auto_or_number(values, "prior-state-noise", false),
                              observation = auto_or_number(values, "prior-observation-noise", false);
  std::optional<LdsPriorChoice> chosen;
  const auto choose = [&]() -> const LdsPriorChoice& {
    if (!chosen) {
      std::vector<Eigen::MatrixXd> sequences;
      const std::unique_ptr<Estimator> reader = lds_estimator(options);
      for (const Example& example : context.input.data.examples) {
        try {
          sequences.push_back(reader->statistics(example.vectors, context.input.dim).sums.at("x"));
        } catch (const EstimationError&) {  // reported with its line when the example is fitted
        }
      }
      chosen = choose_lds_prior(sequences, options, strength ? std::vector<double>{*strength} : default_prior_strengths(), 30,
                                threads_option(values));
    }
    return *chosen;
  };
  const std::string pooled = "the geometric mean over maximum-likelihood fits";
  options.prior.strength = strength ? context.choices.given("prior-strength", *strength) : context.choices.value("prior-strength", [&] {
    return Choice{choose().prior.strength, "maximum held-out likelihood of the last third of each sequence"};
  });
  if (options.prior.strength == 0.0) return;  // no prior: its centres do not matter
  options.prior.state_noise = state ? context.choices.given("prior-state-noise", *state)
                                    : context.choices.value("prior-state-noise", [&] { return Choice{choose().prior.state_noise, pooled}; });
  options.prior.observation_noise =
      observation ? context.choices.given("prior-observation-noise", *observation)
                  : context.choices.value("prior-observation-noise", [&] { return Choice{choose().prior.observation_noise, pooled}; });
}

void add_lds_options(po::options_description& options) {
  add_lds_prior_options(options);
  options.add_options()
      ("state-dim", po::value<long>()->value_name("n"), "the state dimension n >= 1 (required)")
      ("ridge", po::value<double>()->value_name("R"), "r >= 0 added to Q, R and cov0 (beside the priors); default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: N - 1)");
  add_em_options(options, 400, "at most N EM iterations per restart");
}

std::unique_ptr<Estimator> make_lds(const FitContext& context) {
  const po::variables_map& values = context.values;
  if (!values.count("state-dim")) throw UsageError("ppk fit lds needs --state-dim n (the dimension of the hidden state)");
  LdsFitOptions options;
  options.state_dim = values["state-dim"].as<long>();
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  if (values.count("length")) options.length = values["length"].as<long>();
  read_lds_prior(context, options);
  return lds_estimator(options);
}

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
)";

void add_slds_options(po::options_description& options) {
  add_lds_prior_options(options);
  options.add_options()
      ("states", po::value<long>()->default_value(2)->value_name("K"), "the number of regimes K >= 1")
      ("state-dim", po::value<long>()->value_name("n"), "the state dimension n >= 1 (required)")
      ("paths", po::value<long>()->default_value(10)->value_name("S"), "the number S >= 1 of kernel paths stored in the rows")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start and transition count")
      ("ridge", po::value<double>()->value_name("R"), "r >= 0 added to Q_k, R and cov0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: N - 1)");
  add_em_options(options, 400, "at most N EM iterations (lds start) and N hard-EM rounds per restart");
}

std::unique_ptr<Estimator> make_slds(const FitContext& context) {
  const po::variables_map& values = context.values;
  if (!values.count("state-dim")) throw UsageError("ppk fit slds needs --state-dim n (the dimension of the hidden state)");
  SldsFitOptions options;
  options.states = values["states"].as<long>();
  options.state_dim = values["state-dim"].as<long>();
  options.paths = values["paths"].as<long>();
  options.smoothing = option(values, "smoothing");
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  if (values.count("length")) options.length = values["length"].as<long>();
  read_lds_prior(context, options);
  return slds_estimator(options);
}

constexpr const char* kBayesNetHelp = R"(
bayesnet: a Bayesian network of the structure in --structure S.json, a network's
  JSON without CPTs: {"nodes":[{"states":K,"parents":[..],"variable":j},..]}
  ("variable" absent: a hidden node). Every node must be discrete (emission
  leaves are not fitted). Each vector of the example is one joint observation
  of the observed variables: variable j at index j + 1, with a value in 1..K.
  With n(c, k) the observations in which a node is in state k and its parents
  in configuration c, under a Dirichlet(A) prior, P(k | c) is
  ml: n(c, k) / n(c); map: (n(c, k) + A - 1) / (n(c) + K (A - 1));
  posterior (default): (n(c, k) + A) / (n(c) + K A);
  that is (n(c, k) + s) / (n(c) + K s) with s = 0, A - 1 resp. A.
  Fully observed: the counts, in closed form (--shrink pools them).
  Hidden nodes: EM. E-step: the posterior P(h | x) of every joint hidden
  configuration h given each observation x, by enumerating them (at most 65536
  = 2^16; log space), gives expected counts n(c, k) = sum_x P(k, c | x); M-step:
  the formula above. The update is the MAP under Dirichlet(1 + s) priors, so EM
  never decreases L = sum_x log p(x) + s sum log P(k | c): for ml the
  log-likelihood, for map the log-posterior under Dirichlet(A), for posterior
  the log-posterior under Dirichlet(1 + A) (whose mode is the smoothed mean).
  Starts are random, seeded by (--seed, the observations), so fits are
  reproducible; the best of --restarts runs is kept. No --shrink.
)";

void add_bayesnet_options(po::options_description& options) {
  options.add_options()("structure", po::value<std::string>()->value_name("S.json"),
                        "the network's structure (required)");
  add_alpha_option(options, "the Dirichlet(A) prior on each CPT row (posterior: (n(c, k) + A) / (n(c) + K A))");
  add_em_options(options, 200, "hidden nodes: at most N EM iterations per restart");
}

std::unique_ptr<Estimator> make_bayesnet(const FitContext& context) {
  const po::variables_map& values = context.values;
  const Method method = context.method;
  if (!values.count("structure")) throw UsageError("ppk fit bayesnet needs --structure S.json (the network's nodes)");
  InputFile input(values["structure"].as<std::string>());
  nlohmann::json structure;
  try {
    structure = nlohmann::json::parse(input.stream());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(input.name() + ": not a JSON network structure: " + e.what());
  }
  try {
    BayesNetFitOptions options;
    options.method = method;
    options.alpha = option(values, "alpha");
    read_em_options(values, options);
    return bayesnet_estimator(structure, options);
  } catch (const ModelError& e) {
    throw InputError(input.name() + ": " + e.what());
  }
}

constexpr const char* kBaumWelch = "an HMM is fitted by Baum-Welch (--smoothing sets its Dirichlet prior)";

const FitFamily kFamilies[] = {
    {"gaussian", "Gaussian N(mu, Sigma), iso, diag or full", kGaussianHelp, Method::ml, nullptr, true,
     add_gaussian_options, make_gaussian, read_libsvm_input},
    {"bernoulli", "independent binary features", kBernoulliHelp, Method::posterior, nullptr, true,
     add_bernoulli_options, make_bernoulli, read_libsvm_input},
    {"multinomial", "word counts: one draw, S draws or all", kMultinomialHelp, Method::posterior, nullptr, true,
     add_multinomial_options, make_multinomial, read_libsvm_input},
    {"poisson", "independent Poisson counts", kPoissonHelp, Method::ml, nullptr, true, add_poisson_options,
     make_poisson, read_libsvm_input},
    {"exponential", "independent exponential values", kExponentialHelp, Method::ml, nullptr, true,
     add_exponential_options, make_exponential, read_libsvm_input},
    {"gamma", "independent gamma values", kGammaHelp, Method::ml, nullptr, true, add_gamma_options, make_gamma,
     read_libsvm_input},
    {"dirichlet", "Dirichlet over probability vectors", kDirichletHelp, Method::ml, nullptr, true,
     add_dirichlet_options, make_dirichlet, read_libsvm_input},
    {"mixture", "Gaussian mixture by EM", kMixtureHelp, Method::ml, "a mixture is fitted by maximum likelihood (EM)",
     false, add_mixture_fit_options, make_mixture, read_libsvm_input},
    {"kde", "kernel density estimate", kKdeHelp, Method::ml, "a kernel density estimate is set by its bandwidth",
     false, add_kde_options, make_kde, read_libsvm_input},
    {"hmm", "hidden Markov model by Baum-Welch", kHmmHelp, Method::ml, kBaumWelch, false, add_hmm_options, make_hmm,
     read_hmm_input},
    {"fhmm", "factorial HMM by EM", kFhmmHelp, Method::ml,
     "a factorial HMM is fitted by EM (--smoothing sets its Dirichlet prior)", false, add_fhmm_options, make_fhmm,
     read_sequence_input},
    {"bayesnet", "discrete Bayesian network of a given structure; EM for hidden nodes", kBayesNetHelp,
     Method::posterior, nullptr, true, add_bayesnet_options, make_bayesnet, read_libsvm_input},
    {"lds", "linear dynamical system by EM with a Kalman smoother", kLdsHelp, Method::ml,
     "an LDS is fitted by EM (maximum likelihood)", false, add_lds_options, make_lds, read_sequence_input},
    {"slds", "switching LDS by approximate, hard-assignment EM", kSldsHelp, Method::ml,
     "an SLDS is fitted by approximate EM", false, add_slds_options, make_slds, read_sequence_input},
};

// `ppk fit mi`, a command of its own (mi.cpp) listed among the families.
constexpr const char* kMiName = "mi";
constexpr const char* kMiSummary = "mutual-information kernel rows: 'ppk fit mi --help'";

// "gaussian, bernoulli, ..., slds or mi" (last_join "or") or "... and mi".
std::string family_names(const char* last_join) {
  std::vector<std::string> names;
  for (const FitFamily& family : kFamilies) names.emplace_back(family.name);
  names.emplace_back(kMiName);
  return join_list(names, last_join);
}

// The families that have a property: "a, b and c".
std::string families_where(bool (*has)(const FitFamily&)) {
  std::vector<std::string> names;
  for (const FitFamily& family : kFamilies)
    if (has(family)) names.emplace_back(family.name);
  return join_list(names, "and");
}

bool offers_estimator(const FitFamily& family) { return family.no_estimator == nullptr; }
bool offers_pooling(const FitFamily& family) { return family.pools; }
bool defaults_to_posterior(const FitFamily& family) {
  return offers_estimator(family) && family.default_method == Method::posterior;
}

// --estimator, for `family` (null: for every family that offers it).
void add_estimator_option(po::options_description& options, const FitFamily* family) {
  const std::string defaults =
      family != nullptr ? std::string("default ") + method_name(family->default_method)
                        : "offered by " + families_where(offers_estimator) + "; default posterior for " +
                              families_where(defaults_to_posterior) + ", ml otherwise";
  options.add_options()("estimator", po::value<std::string>()->value_name("ml|map|posterior"),
                        ("the estimate (" + defaults + ")").c_str());
}

// --shrink (COLT 2003), for `family` (null: for every family that offers it).
void add_shrink_option(po::options_description& options, const FitFamily* family) {
  const std::string which = family != nullptr ? " (COLT 2003)" : " (COLT 2003; " + families_where(offers_pooling) + ")";
  options.add_options()("shrink", po::value<double>()->value_name("L"),
                        ("shrink toward the pooled training data with weight L > 0" + which).c_str());
}

// --save-pooled and --pooled-from: every family.
void add_pool_file_options(po::options_description& options) {
  options.add_options()
      ("save-pooled", po::value<std::string>()->value_name("POOL"),
       "write what was decided on INPUT (the training file: chosen values, pooled statistics) to POOL")
      ("pooled-from", po::value<std::string>()->value_name("POOL"),
       "fit INPUT (a test file) with what was decided on the training file and saved in POOL");
}

// The options of `family` besides its own (null: of every family). The one source of its --help
// and of what its command line accepts.
po::options_description common_options(const FitFamily* family) {
  po::options_description options("Options");
  options.add_options()
      ("output,o", po::value<std::string>()->default_value("-")->value_name("OUTPUT"),
       "where to write the rows ('-' = standard output); written only if every example fits")
      ("dim", po::value<long>()->value_name("D"),
       "the models' dimension (number of features, vocabulary size); default: the largest "
       "index in INPUT. Give the same D to files fitted separately (train and test)");
  if (family == nullptr || offers_estimator(*family)) add_estimator_option(options, family);
  if (family == nullptr || offers_pooling(*family)) add_shrink_option(options, family);
  add_pool_file_options(options);
  add_threads_option(options, "fit N examples at a time");
  options.add_options()("help,h", "this text");
  return options;
}

// A UsageError for an option that other families take and `family` does not (absent from its --help
// and its command line): why it does not apply.
void reject_options_of_other_families(const FitFamily& family, const std::vector<std::string>& args) {
  po::options_description estimator, pooling;
  add_estimator_option(estimator, nullptr);
  add_shrink_option(pooling, nullptr);
  for (const std::string& word : args) {
    if (word.rfind("--", 0) != 0) continue;
    const std::string name = word.substr(2, word.find('=') - 2);
    const std::string option = "--" + name + " is not offered for ppk fit " + family.name + ": ";
    if (!offers_estimator(family) && estimator.find_nothrow(name, false) != nullptr)
      throw UsageError(option + family.no_estimator);
    if (!offers_pooling(family) && pooling.find_nothrow(name, false) != nullptr)
      throw UsageError(option + "the " + family.name + " fit is not an exponential family: it has no sufficient "
                       "statistics to pool, so --shrink is not supported");
  }
}

// Usage, the input formats, and what --estimator and --shrink do where `only` (null: any family) offers them.
std::string fit_usage(const FitFamily* only) {
  std::string usage;
  if (only != nullptr) {
    usage = std::string("Usage: ppk fit ") + only->name + " [options] INPUT [-o OUTPUT]\n";
  } else {
    usage = "Usage: ppk fit FAMILY [options] INPUT [-o OUTPUT]\nFAMILY:\n";
    const auto line = [&usage](const std::string& name, const std::string& summary) {
      usage += "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + summary + "\n";
    };
    for (const FitFamily& family : kFamilies) line(family.name, family.summary);
    line(kMiName, kMiSummary);
  }
  usage += kFitInput;
  if (only == nullptr || offers_estimator(*only)) usage += kEstimatorHelp;
  usage += kPoolHelp;
  if (only == nullptr || offers_pooling(*only)) usage += kShrinkHelp;
  return usage;
}

void print_fit_help(const FitFamily* only) {
  print_help_with_entries(fit_usage(only), kFamilies, only, common_options(only));
}

// The statistics pooled over every example of `data` (the training set); PoolingUnsupported when
// the estimator, with its options, has none.
Statistics pool_examples(const Estimator& estimator, const Dataset& data, long dim) {
  std::optional<Statistics> pooled;
  for (const Example& example : data.examples) {
    try {
      const Statistics own = estimator.statistics(example.vectors, dim);
      pooled = pooled ? estimator.pool(*pooled, own, 1.0) : own;
    } catch (const PoolingUnsupported&) {
      throw;
    } catch (const EstimationError& e) {
      throw data.error_at(example, e.what());
    }
  }
  if (!pooled) throw InputError(data.source + ": no examples to pool");
  return *pooled;
}

}  // namespace

std::string fit_family_names() { return family_names("and"); }

int run_fit(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    if (args.empty()) throw UsageError("missing the family: " + family_names("or"));
    print_fit_help(nullptr);
    return 0;
  }
  if (args[0] == kMiName) return run_fit_mi(std::vector<std::string>(args.begin() + 1, args.end()));
  const FitFamily* family = nullptr;
  for (const FitFamily& candidate : kFamilies)
    if (args[0] == candidate.name) family = &candidate;
  if (family == nullptr)
    throw UsageError("unknown family '" + args[0] + "'; ppk fit supports " + family_names("and"));
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    print_fit_help(family);
    return 0;
  }

  reject_options_of_other_families(*family, rest);
  po::options_description options = common_options(family);
  family->add_options(options);
  options.add_options()("input", po::value<std::string>(), "INPUT");
  po::positional_options_description positional;
  positional.add("input", 1);
  const po::variables_map values = parse_command_line(rest, options, positional);
  if (!values.count("input")) throw UsageError("missing INPUT (a data file, or '-' for standard input)");

  double lambda = 0;
  if (values.count("shrink")) {
    lambda = values["shrink"].as<double>();
    if (!(lambda > 0) || !std::isfinite(lambda))
      throw UsageError("--shrink must be a finite number > 0, got " + format_double(lambda));
  }
  if (values.count("pooled-from") && values.count("save-pooled"))
    throw UsageError("--pooled-from and --save-pooled exclude each other: save the pool when fitting the training file");
  const unsigned threads = threads_option(values);
  const std::string command = std::string("ppk fit ") + family->name;

  // INPUT is read first: how hmm reads it depends on its format, and choices are made on its examples.
  const FitSource source = read_fit_source(values["input"].as<std::string>());
  const FitInput fit_input = family->read_input(source, values, command);
  const Dataset& data = fit_input.data;
  const long dim = fit_input.dim;

  std::optional<PoolFile> pool_from;
  if (values.count("pooled-from")) {
    pool_from = read_pool_file(values["pooled-from"].as<std::string>());
    if (pool_from->family != family->name || pool_from->dim != dim)
      throw InputError(pool_from->path + " was written by ppk fit " + pool_from->family + " over dimension " +
                       std::to_string(pool_from->dim) + " from " + pool_from->source + ", but " + source.name +
                       " is fitted by " + command + " over dimension " + std::to_string(dim) +
                       " (give both files the same family and --dim)");
    if (lambda > 0 && !pool_from->statistics)
      throw UsageError(pool_from->path + " holds no pooled statistics: fit the training file " + pool_from->source +
                       " with --shrink L --save-pooled " + pool_from->path);
  }
  TrainingChoices choices(command, source.name, pool_from ? &*pool_from : nullptr);
  std::unique_ptr<Estimator> estimator;
  try {
    const Method method = values.count("estimator") ? parse_method(values["estimator"].as<std::string>())
                                                    : family->default_method;
    estimator = family->make_estimator(FitContext{values, method, source, fit_input, choices, command});
  } catch (const EstimationError& e) {
    throw UsageError(e.what());
  }

  // The pooled statistics: the training file's (--pooled-from), or INPUT's when it is the training file.
  std::optional<Statistics> pooled;
  if (pool_from && pool_from->statistics) {
    pooled = pool_from->statistics;
    if (pooled->family != estimator->family())
      throw InputError(pool_from->path + ": the pooled statistics are of a " + pooled->family + ", but " + command +
                       " with these options fits a " + estimator->family() + " (fit " + source.name +
                       " with the options used for " + pool_from->source + ")");
  } else if (!pool_from && (lambda > 0 || (values.count("save-pooled") && offers_pooling(*family)))) {
    try {
      pooled = pool_examples(*estimator, data, dim);
    } catch (const PoolingUnsupported& e) {
      if (lambda > 0) throw UsageError(e.what());  // --save-pooled alone saves the chosen values
    }
  }

  const std::vector<Row> rows = fit_rows(*estimator, data, dim, pooled ? &*pooled : nullptr, lambda, threads);
  std::vector<std::string> lines(data.examples.size());
  for (std::size_t i = 0; i < lines.size(); ++i) lines[i] = format_row_line(data.examples[i].label, rows[i]);
  if (values.count("save-pooled"))
    write_pool_file(values["save-pooled"].as<std::string>(),
                    PoolFile{"", source.name, family->name, dim, choices.chosen(), choices.matrices(), pooled,
                             choices.base(), choices.smoothing()});
  for (const auto& [path, side_lines] : fit_input.side_outputs) write_lines(path, side_lines);
  write_lines(values["output"].as<std::string>(), lines);
  return 0;
}

}  // namespace ppk::cli
