// ppk fit markov: a Markov chain of order k per symbol sequence, its counts smoothed toward a base
// chain (the training file's pooled chain by default) with a strength beta chosen by the data.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_markov.hpp"
#include "ppk/estimate/evidence.hpp"
#include "smoothed_family.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kMarkovHelp = R"(
markov: a Markov chain of order k fitted to each symbol sequence x_0..x_{n-1}
  (docs/families.md "markov" for the kernel, exact and linear in the length).
  Input: FASTA ('>NAME ... label=VALUE' headers) or 'LABEL SEQUENCE' lines, as
  for ppk fit hmm; symbols are single characters numbered by --alphabet
  (default: the sorted set of INPUT's symbols; a test file fitted with
  --pooled-from takes the training file's). A test symbol outside the
  alphabet is an error naming file, line, column and symbol.
  Homogeneous chain (unaligned sequences: words, proteins, reads): one table
  p(x_t | x_{t-k}..x_{t-1}) for every t >= k, and one per t < k for the first
  symbols; the row stores T = n - 1 (x_0..x_T) or --length T, and rows of
  different lengths need one T for all of them (svm-train/ppk gram -d T).
  Aligned chain (--aligned; sequences of one length L whose positions mean
  the same thing: splice junctions, promoters, binding sites): one table per
  position t, p(x_t | x_{t-min(t,k)}..x_{t-1}), the Bayesian network over the
  positions (JMLR 2004 section 4.3); its kernel is a product over positions
  and order 0 gives RBF on one-hot positions as a special case. Default:
  aligned when every training sequence has the same length (a note says
  which), else homogeneous; a sequence of another length than L is an error
  naming file, line, its length and L.
  Fit: n_{s,c,x} the number of positions of table s with context c (the k
  symbols before) and symbol x, N_{s,c} = sum_x n_{s,c,x};
    p(x | s, c) = (n_{s,c,x} + beta b_{s,c,x}) / (N_{s,c} + beta),
  the posterior mean under theta_{s,c} ~ Dirichlet(beta b_{s,c,.}): beta
  pseudo-counts per context toward the base b. Rows list only the k-mers that
  occur (the counts), beta and the base.
  --base pooled (default): b = (M + 1/2) / (M_context + A/2), M the counts
  pooled over the training file (half a pseudo-count per entry, so no base
  entry is 0); --base uniform: b = 1/A.
  --alpha evidence (default, homogeneous): beta maximises the evidence, the
  Dirichlet-multinomial (Polya) likelihood of every training sequence's
  counts in every context with theta integrated out; printed with its
  standard error (the observed information). Where it has no maximum
  (short sequences, whose counts are no more dispersed than the base's:
  the words of four languages), the default is --alpha auto, rows of
  different lengths storing the median sequence's T (a note says so).
  Aligned chains see each position's context once per sequence, so the
  evidence is the same for every beta: their default is --alpha auto.
  --alpha auto: beta chosen with the SVM's C by cross-validated accuracy on
  the training file, among --cv-alphas (as ppk fit multinomial --alpha
  auto; homogeneous rows of different lengths need --length T).
  --alpha B: beta = B >= 0.
  --order K: default 1 for homogeneous chains (bigrams, as the k-mer
  baselines), 0 for aligned ones (one composition per position: on primate
  splice junctions 96.7% held out, 94.4% at order 1). --order auto: k of
  0..5 by the 5-fold cross-validated log-likelihood of the training sequences
  under the pooled chain of the other folds.
  --save-pooled POOL keeps the alphabet, k, L, the base and beta; a test
  file fitted with --pooled-from POOL gets the same ones (rows comparable
  with the training rows), and an option contradicting them is refused.
)";

// --cv-alphas's default: with evidence (homogeneous chains), without (aligned chains, where it has no maximum).
constexpr const char* kCandidates = "evidence,0.1,0.3,1,3,10,30,100,300,1000";
constexpr const char* kAlignedCandidates = "0.1,0.3,1,3,10,30,100,300,1000";

void add_markov_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("order", po::value<std::string>()->value_name("K|auto"),
       "the order k >= 0 (the symbols each one is conditioned on; default 1 homogeneous, 0 aligned), or auto: "
       "0..5 by held-out likelihood")
      ("aligned", "one table per position (sequences of one length L; default when all training sequences have one length)")
      ("homogeneous", "one table for every position t >= k (sequences of any length; default otherwise)")
      ("base", po::value<std::string>()->default_value("pooled")->value_name("pooled|uniform"),
       "the base chain: the training file's pooled chain, or uniform 1/A")
      ("length", po::value<long>()->value_name("T"), "homogeneous: the stored length T >= 0 of every row (default: n - 1)");
  // clang-format on
  add_chosen_alpha_option(options, "evidence", "B|auto|evidence", kCandidates,
                          "beta, the pseudo-counts per context toward the base: a number B >= 0; evidence: by maximum "
                          "evidence (the default for homogeneous chains); auto: with C by cross-validated SVM accuracy "
                          "on the training file (the default for aligned chains)");
  add_alphabet_options(options);
}

// The fields of the library's messages that these flags set.
const OptionFlags kMarkovFlags{{"order", "--order"},
                               {"positions", "--aligned"},
                               {"length", "--length"},
                               {"strength", "--alpha"},
                               {"format", "ppk fit hmm --format"},
                               {"alphabet", "--alphabet, --alphabet-from or the --pooled-from file"}};

// The options of ppk fit markov as given; the layout, the order, the base and --alpha's default are
// decided on INPUT (make_markov).
struct MarkovOptions {
  std::optional<long> order;   // --order K
  bool choose_order = false;   // --order auto
  bool aligned = false;        // --aligned
  bool homogeneous = false;    // --homogeneous
  std::string base;            // --base pooled|uniform
  bool base_given = false;     // whether --base was given (else `base` is its default)
  std::optional<long> length;  // --length T
  AlphaOptions alpha;          // --alpha and the --cv-* options as given, before the chain decides --alpha's default
  AlphabetOptions alphabet;
};

MarkovOptions parse_markov_options(const po::variables_map& values) {
  MarkovOptions options;
  if (values.count("order")) {
    const std::string text = values["order"].as<std::string>();
    options.choose_order = text == "auto";
    options.order = parse_long(text);
    if (!options.choose_order && (!options.order || *options.order < 0))
      throw UsageError("--order must be a whole number >= 0 or auto, got '" + text + "'");
  }
  options.aligned = values.count("aligned") > 0;
  options.homogeneous = values.count("homogeneous") > 0;
  if (options.aligned && options.homogeneous) throw UsageError("--aligned and --homogeneous exclude each other");
  options.base = values["base"].as<std::string>();
  options.base_given = !values["base"].defaulted();
  if (options.base != "pooled" && options.base != "uniform")
    throw UsageError("--base must be pooled or uniform, got '" + options.base + "'");
  if (values.count("length")) options.length = values["length"].as<long>();
  options.alpha = read_alpha_options(values, false);
  options.alphabet = parse_alphabet_options(values);
  return options;
}

// What a markov pool file's "base" holds: the alphabet, k, L and the base table (none: uniform).
struct SavedChain {
  std::string alphabet;
  long order = 0;
  long positions = 0;
  std::string base;  // "pooled" or "uniform"
  std::shared_ptr<const std::vector<double>> table;
};

// The alphabet's symbols as their byte values: a symbol may be any byte (Latin-1 letters of words),
// and JSON strings hold UTF-8 only.
std::vector<int> alphabet_bytes(const std::string& symbols) {
  std::vector<int> bytes;
  for (char symbol : symbols) bytes.push_back(static_cast<unsigned char>(symbol));
  return bytes;
}

// The chain saved in the pool file `from` by ppk fit markov --save-pooled; InputError naming the
// file when its "base" is not one.
SavedChain saved_chain(const PoolFile& from) {
  const nlohmann::json& saved = from.base;
  const InputError bad(from.path +
                       ": \"base\": expected the chain of ppk fit markov --save-pooled, {\"kind\": \"markov\", "
                       "\"alphabet\" (the symbols' byte values), \"order\", \"positions\", \"base\": \"pooled\" (with "
                       "\"table\") or \"uniform\"}");
  if (!saved.is_object() || saved.value("kind", "") != "markov") throw bad;
  SavedChain chain;
  try {
    for (const nlohmann::json& byte : saved.at("alphabet")) {
      const int value = byte.get<int>();
      if (value < 1 || value > 255) throw bad;
      chain.alphabet.push_back(static_cast<char>(static_cast<unsigned char>(value)));
    }
    chain.order = saved.at("order").get<long>();
    chain.positions = saved.at("positions").get<long>();
    chain.base = saved.at("base").get<std::string>();
    if (chain.base == "pooled")
      chain.table = std::make_shared<const std::vector<double>>(saved.at("table").get<std::vector<double>>());
  } catch (const nlohmann::json::exception&) {
    throw bad;
  }
  if (chain.base != "pooled" && chain.base != "uniform") throw bad;
  return chain;
}

// INPUT's symbol sequences (FASTA or LABEL SEQUENCE lines), numbered by --alphabet or --alphabet-from,
// or, for a test file fitted with --pooled-from, by the training file's alphabet saved there.
FitInput read_markov_input(const FitSource& source, const FitRequest& request, const MarkovOptions& options) {
  check_fit_format(source, FitFormats{false, false, true, true}, request.command);
  std::optional<Alphabet> alphabet = alphabet_option(options.alphabet);
  if (request.pooled_from) {
    const PoolFile from = given_pool(request);
    if (from.family == "markov") {  // another family's pool is refused by name once INPUT is read
      const std::string saved = saved_chain(from).alphabet;
      if (alphabet && alphabet->symbols() != saved)
        throw UsageError("the alphabet '" + alphabet->symbols() + "' given for " + source.name +
                         " differs from the training file " + from.source + "'s '" + saved + "' (saved in " + from.path +
                         "): drop --alphabet and --alphabet-from to use the saved one");
      alphabet.emplace(saved, from.path);
    }
  }
  const bool fasta = source.format && source.format->format == DataFormat::fasta;
  return read_symbol_input(source, options.alphabet, fasta ? SequenceFormat::fasta : SequenceFormat::lines, alphabet);
}

// The symbols of each example (its one-hot vectors).
std::vector<std::vector<long>> sequences_of(const Dataset& data) {
  std::vector<std::vector<long>> sequences;
  sequences.reserve(data.examples.size());
  for (const Example& example : data.examples) {
    std::vector<long> symbols;
    symbols.reserve(example.vectors.size());
    for (const SparseVector& vector : example.vectors) symbols.push_back(vector.front().coord);
    sequences.push_back(std::move(symbols));
  }
  return sequences;
}

// L: the saved one (a test file), else the training sequences' one length with --aligned or by
// default, or 0 (homogeneous). A note says which was chosen by default, and why.
long positions_option(const FitContext& context, const MarkovOptions& given, const std::optional<SavedChain>& saved,
                      const std::vector<std::vector<long>>& sequences) {
  const bool aligned = given.aligned, homogeneous = given.homogeneous;
  if (saved) {
    if ((aligned && saved->positions == 0) || (homogeneous && saved->positions > 0))
      throw UsageError(std::string("--") + (aligned ? "aligned" : "homogeneous") + " contradicts the training file " +
                       context.choices.pool_from()->source + "'s " +
                       (saved->positions > 0 ? "aligned chain over " + std::to_string(saved->positions) + " positions"
                                             : std::string("homogeneous chain")) +
                       " (saved in " + context.choices.pool_from()->path + "): leave it out");
    return saved->positions;
  }
  if (homogeneous || sequences.empty()) return 0;
  const Dataset& data = context.input.data();
  const long length = static_cast<long>(sequences.front().size());
  for (std::size_t i = 0; i < sequences.size(); ++i)
    if (static_cast<long>(sequences[i].size()) != length) {
      if (aligned)
        throw data.error_at(data.examples[i], "--aligned: the sequence has " + std::to_string(sequences[i].size()) +
                                                  " symbols, but the first sequence has L = " + std::to_string(length) +
                                                  "; an aligned chain needs every sequence of one length");
      return 0;
    }
  if (!aligned) {
    if (sequences.size() < 2) return 0;
    context.request.note(context.request.command + ": note: every sequence of " + context.source.name + " has " +
                         std::to_string(length) +
                         " symbols: an aligned chain, one table per position (--homogeneous for one table for all)");
  }
  return length;
}

// k: the saved one (a test file; a contradicting --order is refused), --order K, --order auto, or
// the default: 1 for homogeneous chains (the bigrams of the k-mer baselines), 0 for aligned ones
// (one composition per position: on primate splice junctions 96.7% held out against 94.4% at order 1).
long order_option(const FitContext& context, const MarkovOptions& given, const std::vector<std::vector<long>>& sequences,
                  long alphabet, long positions) {
  if (given.choose_order || (!given.order && context.choices.saved("order")))
    return static_cast<long>(context.choices.value("order", [&] {
      try {
        return held_out_size(choose_markov_order(sequences, alphabet, positions, default_markov_orders()),
                             "each training sequence under the pooled chain of the other 4 of 5 folds", "k");
      } catch (const OptionError& e) {
        throw UsageError(message_of(e));
      }
    }));
  const long order = given.order.value_or(positions > 0 ? 0 : 1);
  return static_cast<long>(context.choices.given("order", static_cast<double>(order)));
}

std::unique_ptr<Estimator> make_markov(const FitContext& context, const MarkovOptions& given) {
  if (context.request.dim)
    throw UsageError("--dim applies to LIBSVM input; for symbol sequences the alphabet sets the dimension");
  const PoolFile* from = context.choices.pool_from();
  const std::optional<SavedChain> saved = from != nullptr ? std::optional<SavedChain>(saved_chain(*from)) : std::nullopt;
  const std::vector<std::vector<long>> sequences = sequences_of(context.input.data());
  MarkovFitOptions options;
  MarkovParameters& shape = options.shape;
  shape.alphabet = context.input.dim();
  shape.positions = positions_option(context, given, saved, sequences);
  shape.order = order_option(context, given, sequences, shape.alphabet, shape.positions);
  if (given.length) {
    if (shape.positions > 0)
      throw UsageError("--length applies to homogeneous chains: an aligned chain over L positions stores L - 1");
    options.length = given.length;
  }
  try {
    check_markov_shape(shape);
  } catch (const OptionError& e) {
    throw UsageError(message_of(e));
  }

  // --alpha as the chain decides it. Aligned chains: --alpha auto by default, among candidates
  // without evidence (the evidence cannot choose beta for them).
  AlphaOptions smoothing = given.alpha;
  if (shape.positions > 0) {
    if (smoothing.alpha == "evidence" && smoothing.alpha_given)
      throw UsageError(
          "--alpha evidence cannot choose beta for an aligned chain: each sequence visits each position's context "
          "once, and the evidence of one symbol is its base probability whatever beta; give --alpha auto (the "
          "default for aligned chains) or a number");
    if (!smoothing.alpha_given) smoothing.alpha = "auto";
    if (!smoothing.cv.candidates_given) smoothing.cv.candidates = split(kAlignedCandidates, ',');
  }
  // The base: the saved one (a test file), the training file's pooled chain, or uniform.
  const std::string& base = given.base;
  // The training sequences' counts, for the pooled base and the evidence (a test file needs neither).
  std::vector<MarkovCounts> counts;
  for (std::size_t i = 0; i < sequences.size() && !saved; ++i) {
    try {
      counts.push_back(markov_counts(sequences[i], shape));
    } catch (const EstimationError& e) {
      throw context.input.data().error_at(context.input.data().examples[i], message_of(e));
    }
  }
  if (saved) {
    if (given.base_given && base != saved->base)
      throw UsageError("--base " + base + " contradicts the training file " + from->source + "'s --base " + saved->base +
                       " (saved in " + from->path + "): leave it out");
    options.base = saved->table;
    if (options.base && static_cast<long>(options.base->size()) != markov_table_size(shape))
      throw InputError(from->path + ": \"base\": \"table\" holds " + std::to_string(options.base->size()) +
                       " entries, but its chain has " + std::to_string(markov_table_size(shape)));
  } else if (base == "pooled") {
    options.base = std::make_shared<const std::vector<double>>(markov_pooled_base(counts, shape));
  }
  const std::vector<double> no_base;
  const auto polya_counts = [&] { return markov_polya_counts(counts, shape, options.base ? *options.base : no_base); };
  // Homogeneous chains: beta by maximum evidence by default, and by cross-validation (--alpha auto)
  // where the evidence has no maximum. On short sequences each context is seen a few times per
  // sequence, and the counts of, e.g., words of 6-15 letters are no more dispersed than draws from
  // their pooled chain: the evidence then rises toward beta = infinity, every word fitted as the pool.
  std::size_t shortest = sequences.empty() ? 0 : sequences.front().size(), longest = shortest;
  for (const std::vector<long>& sequence : sequences) {
    shortest = std::min(shortest, sequence.size());
    longest = std::max(longest, sequence.size());
  }
  if (!from && shape.positions == 0 && !smoothing.alpha_given && !counts.empty()) {
    try {
      maximise_polya_evidence(polya_counts());
    } catch (const EstimationError& e) {  // OptionError among them: no sequence has counts in two places
      smoothing.alpha = "auto";
      context.request.note(context.request.command + ": note: --alpha evidence, the default, cannot choose beta on " +
                           context.source.name + " (" + message_of(e) +
                           "); beta is chosen with C by cross-validation instead (--alpha auto)");
      if (!options.length && shortest != longest) {
        std::vector<std::size_t> lengths;
        for (const std::vector<long>& sequence : sequences) lengths.push_back(sequence.size());
        std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
        options.length = static_cast<long>(lengths[lengths.size() / 2]) - 1;
        context.request.note(context.request.command + ": note: the rows store T = " + std::to_string(*options.length) +
                             ", the median sequence's n - 1, for the cross-validation to compare them (--length T for "
                             "another)");
      }
    }
  }
  // --alpha auto cross-validates the kernel SVM on the rows at their stored T, which must be one.
  if (!from && shape.positions == 0 && !options.length && smoothing.alpha == "auto" && shortest != longest)
    throw UsageError("--alpha auto cross-validates the SVM on rows of one length T, but the sequences of " +
                     context.source.name + " have " + std::to_string(shortest) + " to " + std::to_string(longest) +
                     " symbols: give --length T (e.g. --length " + std::to_string(shortest - 1) +
                     ", the shortest sequence's n - 1)");
  nlohmann::json record = {{"kind", "markov"},
                           {"alphabet", alphabet_bytes(*context.input.alphabet)},
                           {"order", shape.order},
                           {"positions", shape.positions},
                           {"base", options.base ? "pooled" : "uniform"}};
  if (options.base) {
    record["smoothing"] = "(M + 1/2) / (M_context + A/2)";
    record["table"] = *options.base;
  }
  context.choices.set_base(std::move(record));
  const std::string& alpha = smoothing.alpha;
  // Whether anything of the rows was decided on INPUT's data (the layout, the order, the base, beta, the alphabet).
  const bool decided = options.base || alpha == "auto" || alpha == "evidence" || given.choose_order ||
                       !(given.aligned || given.homogeneous) || !(given.alphabet.symbols || given.alphabet.from);
  if (!from && !context.request.save_pooled && decided)
    context.request.note(context.request.command + ": note: the layout, order, base, beta or alphabet are decided on " +
                         context.source.name +
                         " alone; fit the training file with --save-pooled POOL and test files with --pooled-from POOL "
                         "so that their rows share them");

  check_cv_options_apply(smoothing.cv, !from && alpha == "auto");
  return smoothed_estimator(context, smoothing,
                            SmoothedFamily{"markov", polya_counts, 1.0, "beta", false, [&](Method method, double alpha) {
                                             MarkovFitOptions fit = options;
                                             fit.strength = method == Method::ml ? 0.0 : alpha;
                                             return markov_estimator(fit);
                                           }});
}

constexpr const char* kNoEstimator =
    "a Markov chain is the posterior mean of its counts under beta pseudo-counts per context toward the base "
    "(--alpha; --alpha 0 is maximum likelihood)";

}  // namespace

FitFamily markov_family() {
  return {"markov",
          "Markov chains of order k over symbol sequences (homogeneous or aligned)",
          kMarkovHelp,
          Method::posterior,
          kNoEstimator,
          false,
          add_markov_options,
          typed_options<MarkovOptions, parse_markov_options, make_markov, read_markov_input>,
          {kMarkovFlags, kAlphaFlags}};
}

}  // namespace ppk::cli
