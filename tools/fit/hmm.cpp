// ppk fit hmm: a hidden Markov model by Baum-Welch, over symbol sequences or LIBSVM vectors.
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "covariance_prior.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "fit_family.hpp"
#include "parallel.hpp"
#include "prior_options.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kHmmHelp = R"(
hmm: a hidden Markov model with M states fitted to each sequence x_0..x_{n-1}
  by Baum-Welch (JMLR 2004 section 4.2 for the kernel). Aligned sequences
  (splice junctions, promoters: equal lengths, and the symbol at each offset
  decides the class) are the wrong data for a stationary HMM, which forgets
  the position: use ppk fit markov --aligned (one table per position) there.
  Input (--format):
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
  --pooled --states auto (what to try first for a pooled model): M from 1, 2,
  3, 4, 5, 6, 8, 10, 12, 16 by the held-out log-likelihood of every fifth
  sequence under the pooled HMM of the others; printed and saved by --save-pooled.
  --states auto for per-sequence fits (JMLR 2004 section 8.2): M = floor(sqrt(O^2 + 4 (n z + O + 1))/2
  - O/2) + 1, n the number of symbols, z = --param-ratio, O the alphabet size
  (Gaussian: the emission parameters per state, D + 1 iso, 2D diag,
  D + D(D+1)/2 full). Starts are random, seeded by (--seed, the sequence), so
  fits are reproducible; the best of --restarts runs is kept. The row stores
  T = n - 1 (x_0..x_T) or --length T; HMM kernels need one T for all rows
  (svm-train/ppk gram -d T sets it).
)";

void add_hmm_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("states", po::value<std::string>()->default_value("auto")->value_name("M|auto"),
       "the number of hidden states M >= 1, or auto: the section 8.2 rule")
      ("param-ratio", po::value<double>()->default_value(0.1, "0.1")->value_name("Z"),
       "auto: the ratio z > 0 of parameters to symbols")
      ("emission", po::value<std::string>()->value_name("discrete|gaussian"),
       "the emission models (discrete for sequences, gaussian for libsvm)")
      ("format", po::value<std::string>()->value_name("fasta|lines|libsvm"), "INPUT's format (see above)")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start, transition and symbol count")
      ("cov", po::value<std::string>()->value_name("iso|diag|full"), "gaussian: the covariance form (full)")
      ("ridge", po::value<double>()->value_name("R"), "gaussian: R > 0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: n - 1)");
  // clang-format on
  add_alphabet_options(options);
  add_covariance_prior_options(options, "pooled");
  add_em_options(options, 400, "at most N Baum-Welch iterations per restart (the paper's 400)");
}

// The fields these flags set: of HmmFitOptions, and read_sequences's format and alphabet.
const OptionFlags kHmmFlags{{"states", "--states"},
                            {"param_ratio", "--param-ratio"},
                            {"emissions", "--emission"},
                            {"smoothing", "--smoothing"},
                            {"covariance", "--cov"},
                            {"ridge", "--ridge"},
                            {"length", "--length"},
                            {"format", "--format"},
                            {"alphabet", "--alphabet or --alphabet-from (the training file's --save-alphabet)"}};

const char* format_name(DataFormat format) {
  switch (format) {
    case DataFormat::fasta: return "fasta";
    case DataFormat::lines: return "lines";
    case DataFormat::libsvm:
    case DataFormat::unknown: break;
  }
  return "libsvm";
}

// The options of ppk fit hmm as given: the library's options (their emissions, the states of --pooled
// --states auto and the prior decided on INPUT), --emission and --format, the alphabet's options and
// the covariance prior's.
struct HmmOptions {
  HmmFitOptions fit;
  std::optional<HmmEmissions> emissions;  // --emission, when given
  std::optional<DataFormat> format;       // --format, when given
  bool gaussian_options_given = false;    // --cov, --ridge, --prior or --prior-count
  AlphabetOptions alphabet;
  CovariancePriorOptions prior;
};

HmmOptions parse_hmm_options(const po::variables_map& values) {
  HmmOptions options;
  if (values.count("emission")) {
    const std::string emission = values["emission"].as<std::string>();
    if (emission != "discrete" && emission != "gaussian")
      throw UsageError("--emission must be discrete or gaussian, got '" + emission + "'");
    options.emissions = emission == "gaussian" ? HmmEmissions::gaussian : HmmEmissions::discrete;
  }
  if (values.count("format")) {
    const std::string format = values["format"].as<std::string>();
    for (DataFormat known : {DataFormat::fasta, DataFormat::lines, DataFormat::libsvm})
      if (format == format_name(known)) options.format = known;
    if (!options.format) throw UsageError("--format must be fasta, lines or libsvm, got '" + format + "'");
  }
  if (options.emissions == HmmEmissions::gaussian && options.format && *options.format != DataFormat::libsvm)
    throw UsageError(std::string("--emission gaussian takes vectors: LIBSVM input (--format libsvm), not ") +
                     format_name(*options.format));
  options.gaussian_options_given =
      values.count("cov") || values.count("ridge") || !values["prior"].defaulted() || values.count("prior-count");
  HmmFitOptions& fit = options.fit;
  const std::string states = values["states"].as<std::string>();
  if (states != "auto") {
    fit.states = parse_long(states);
    if (!fit.states) throw UsageError("--states must be a whole number or auto, got '" + states + "'");
  }
  fit.param_ratio = option(values, "param-ratio");
  fit.smoothing = option(values, "smoothing");
  if (values.count("cov")) fit.covariance = covariance_form(values["cov"].as<std::string>());
  if (values.count("ridge")) fit.ridge = option(values, "ridge");
  read_em_options(values, fit);
  if (values.count("length")) fit.length = values["length"].as<long>();
  options.alphabet = parse_alphabet_options(values);
  options.prior = parse_covariance_prior(values);
  return options;
}

bool gaussian_emissions_given(const HmmOptions& options) { return options.emissions == HmmEmissions::gaussian; }

// The format ppk fit hmm reads INPUT in: --format; else libsvm with --emission gaussian; else the
// format INPUT is in (detect_format; a file in none is read as lines, whose reader says why not).
DataFormat hmm_format(const HmmOptions& options, const FitSource& source) {
  if (options.format) return *options.format;
  if (gaussian_emissions_given(options)) return DataFormat::libsvm;
  if (source.format && source.format->format != DataFormat::unknown) return source.format->format;
  return DataFormat::lines;
}

// --pooled --states auto: M by the held-out likelihood of the pooled model (choose_pooled_states).
Choice pooled_state_choice(const FitContext& context, const HmmFitOptions& options) {
  const std::vector<Statistics> examples =
      example_statistics(*hmm_estimator(options), context.input.data(), context.input.dim());
  try {
    return held_out_size(choose_pooled_states(examples, options, default_state_grid(), context.request.threads),
                         "every fifth sequence under the pooled HMM of the others", "M");
  } catch (const OptionError& e) {
    throw UsageError(message_of(e));
  } catch (const EstimationError& e) {
    throw InputError(context.input.data().source + ": choosing the number of states: " + message_of(e));
  }
}

std::unique_ptr<Estimator> make_hmm(const FitContext& context, const HmmOptions& given) {
  // INPUT's format, as read_hmm_input decided it: symbol sequences come with their alphabet, LIBSVM
  // vectors without one.
  const bool vectors = !context.input.alphabet;
  HmmFitOptions options = given.fit;
  options.emissions = given.emissions.value_or(vectors ? HmmEmissions::gaussian : HmmEmissions::discrete);
  if (options.emissions == HmmEmissions::discrete && given.gaussian_options_given)
    throw UsageError("--cov, --ridge, --prior and --prior-count apply to --emission gaussian");
  const AlphabetOptions& alphabet = given.alphabet;
  if (vectors && (alphabet.symbols || alphabet.from || alphabet.save))
    throw UsageError("--alphabet, --alphabet-from and --save-alphabet apply to sequences, not to LIBSVM input");
  if (!vectors && context.request.dim)
    throw UsageError("--dim applies to LIBSVM input; for sequences the alphabet sets the dimension");
  if (!options.states && context.request.mode == FitMode::pooled)
    options.states =
        static_cast<long>(context.choices.value("states", [&] { return pooled_state_choice(context, options); }));
  if (options.emissions == HmmEmissions::gaussian && !context.request.pooled_or_adapted()) {
    const std::unique_ptr<Estimator> reader = hmm_estimator(options);
    options.prior =
        covariance_prior(context, given.prior, options.covariance, *reader,
                         [&](const std::vector<Eigen::MatrixXd>& sequences, const Eigen::MatrixXd& centre,
                             const std::vector<double>& counts) {
                           return choose_hmm_prior(sequences, options, centre, counts, 100, context.request.threads);
                         });
  }
  return hmm_estimator(options);
}

// qid-grouped LIBSVM rows, or symbol sequences as examples of one-hot vectors over the alphabet. The
// format is checked against INPUT's (check_fit_format); one detected as LIBSVM rows is noted on
// standard error, since it chooses the emissions.
FitInput read_hmm_input(const FitSource& source, const FitRequest& request, const HmmOptions& options) {
  const std::string& command = request.command;
  const DataFormat format = hmm_format(options, source);
  // What INPUT may be under these options; the remedy for any other format.
  FitFormats formats{false, true, true, true};
  std::string given = command, advice;
  if (options.format) {
    formats = FitFormats{false, format == DataFormat::libsvm, format == DataFormat::fasta, format == DataFormat::lines};
    given += std::string(" --format ") + format_name(format);
    if (source.format && (source.format->format != DataFormat::libsvm || source.format->grouped))
      advice = std::string("give --format ") + format_name(source.format->format) +
               ", or leave --format out: INPUT's format is detected";
  } else if (gaussian_emissions_given(options)) {
    formats = kSequenceRows;
    given += " --emission gaussian";
    if (source.format && source.format->format != DataFormat::libsvm)
      advice = "--emission gaussian takes vectors; symbol sequences take --emission discrete (the default for them)";
  }
  check_fit_format(source, formats, given, advice);
  if (format == DataFormat::libsvm) {
    if (!options.format && !gaussian_emissions_given(options))
      request.note(command + ": note: " + source.name + ":" + std::to_string(source.format->line) + " is " +
                   describe_format(*source.format) + ": one HMM per qid group, with " +
                   (options.emissions ? "discrete emissions over one-hot vectors"
                                      : "Gaussian emissions (--format libsvm --emission gaussian)"));
    return parse_libsvm_input(source, request);
  }
  return read_symbol_input(source, options.alphabet,
                           format == DataFormat::fasta ? SequenceFormat::fasta : SequenceFormat::lines,
                           alphabet_option(options.alphabet));
}

constexpr const char* kBaumWelch = "an HMM is fitted by Baum-Welch (--smoothing sets its Dirichlet prior)";

}  // namespace

FitFamily hmm_family() {
  return {"hmm",
          "hidden Markov model by Baum-Welch",
          kHmmHelp,
          Method::ml,
          kBaumWelch,
          false,
          add_hmm_options,
          typed_options<HmmOptions, parse_hmm_options, make_hmm, read_hmm_input>,
          {kHmmFlags, kCovariancePriorFlags, kEmOptionFlags},
          true,
          {"states", "param-ratio", "smoothing", "cov", "restarts", "seed"}};
}

}  // namespace ppk::cli
