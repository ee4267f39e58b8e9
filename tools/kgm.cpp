// ppk kgm: inference in a kernel graphical model (ppk/kgm.hpp) estimated from joint samples in a
// LIBSVM file: the estimates phi(u)' C_UV phi(v) between the two end variables of a chain or tree path.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/row.hpp"
#include "ppk/inference/kgm.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kUsage = R"(Usage: ppk kgm --var NAME=INDICES[:KERNEL] ... --lambda L
               (--path V0,V1,...,Vk | --tree 'P>C,P>C,...' --ends U,V)
               SAMPLES (QUERIES | --table) [-o OUTPUT]

Kernel graphical models (Xing 2014 lecture, sections 3-4.3; Song, Gretton &
Guestrin 2010): the conditional probability tables of a directed tree are
replaced by conditional embedding operators estimated from N joint samples,
  C_{Y|X} = Phi_Y (K_X + lambda N I)^-1 Phi_X',
and the joint of two end variables U, V of a path is estimated as
  phi(u)' C_UV phi(v) = (1/N) k_U(u)' prod_j (K_j (K_j + lambda N I)^-1)^m_j k_V(v),
with k_X(x) = (k(x_1, x), ..., k(x_N, x))', K_X the Gram matrix of X's samples,
and m_j = the number of path edges whose parent is node j (a chain A -> B -> C:
(1/N) k_A(a)' K_A S_A K_B S_B k_C(c), S = (K + lambda N I)^-1; a tree A <- B -> C:
(1/N) k_A(a)' (K_B S_B)^2 k_C(c)). With delta kernels and lambda -> 0 these are
the counting estimates (A -> B -> C: sum_b P^(a, b) P^(c | b)).

SAMPLES  a LIBSVM data file, one joint sample per line (labels ignored, no qid;
         absent indices are 0).
--var NAME=INDICES[:KERNEL]   a variable: NAME (letters, digits, _; not starting
         with a digit) is the vector of the LIBSVM indices INDICES, 'I' or 'I-J'
         (1-based, inclusive); variables may not share an index. KERNEL:
           delta        k(x, y) = [x = y], for discrete variables (the default);
                        every value must be an integer
           rbf:SIGMA    exp(-|x - y|^2 / (2 SIGMA^2))
           gauss:SIGMA  the same normalised as the density N(x - y; 0, SIGMA^2 I),
                        so that a mean map is a kernel density estimate
--path V0,V1,...,Vk   the chain V0 -> V1 -> ... -> Vk; the ends are V0 and Vk
--tree 'P>C,...' --ends U,V   a directed tree (edges parent>child, at most one
         parent per node; quote it for the shell) and the two end variables; the
         estimate follows the tree path between them
--lambda L   the regularisation lambda > 0 (small, e.g. 1e-9, for delta kernels;
         for RBF kernels it must shrink slowly as N grows, e.g. 0.1/sqrt(N))
QUERIES  a LIBSVM file of query points: each line holds the values of U and V at
         their indices; writes one estimate per line, %.17g
--table  instead of QUERIES, with delta kernels on both ends: every pair of
         values of U and V observed in SAMPLES, one line 'u v estimate' each,
         sorted by u then v (a vector value is written as I,J,...)

Exit status: 0 success, 1 invalid or unreadable input, 2 invalid command line.
Nothing is written unless the whole run succeeds.
)";

struct VariableSpec {
  std::string name;
  long first = 0, last = 0;  // LIBSVM indices, inclusive
  kgm::BaseKernel kernel;
  std::string text;  // as given, for messages
};

bool is_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// `text` as a Number if all of it is one (std::from_chars: no sign '+', no spaces).
template <typename Number>
std::optional<Number> parse_exactly(const std::string& text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

// A whole number >= 1 (a LIBSVM index).
long parse_index(const std::string& text, const std::string& option) {
  const std::optional<long> value = parse_exactly<long>(text);
  if (!value || *value < 1)
    throw UsageError(option + ": expected a LIBSVM index (a whole number >= 1), got '" + text + "'");
  return *value;
}

kgm::BaseKernel parse_kernel(const std::string& text, const std::string& option) {
  if (text == "delta") return kgm::DeltaKernel{};
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if ((kind == "rbf" || kind == "gauss") && colon != std::string::npos) {
    const std::string width = text.substr(colon + 1);
    const std::optional<double> sigma = parse_exactly<double>(width);
    if (!sigma || !(*sigma > 0) || !std::isfinite(*sigma))
      throw UsageError(option + ": SIGMA must be a finite number > 0, got '" + width + "'");
    return kgm::GaussianRbfKernel(*sigma, kind == "gauss");
  }
  throw UsageError(option + ": KERNEL must be delta, rbf:SIGMA or gauss:SIGMA, got '" + text + "'");
}

VariableSpec parse_variable(const std::string& text) {
  const std::string option = "--var '" + text + "'";
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) throw UsageError(option + ": expected NAME=INDICES[:KERNEL]");
  VariableSpec spec;
  spec.text = text;
  spec.name = text.substr(0, equals);
  if (!is_name(spec.name)) throw UsageError(option + ": NAME must be letters, digits and _, not starting with a digit");
  const std::string rest = text.substr(equals + 1);
  const std::size_t colon = rest.find(':');
  const std::string range = rest.substr(0, colon);
  const std::size_t dash = range.find('-');
  spec.first = parse_index(range.substr(0, dash), option);
  spec.last = dash == std::string::npos ? spec.first : parse_index(range.substr(dash + 1), option);
  if (spec.last < spec.first) throw UsageError(option + ": INDICES I-J needs I <= J");
  spec.kernel =
      colon == std::string::npos ? kgm::BaseKernel(kgm::DeltaKernel{}) : parse_kernel(rest.substr(colon + 1), option);
  return spec;
}

const VariableSpec& find_variable(const std::vector<VariableSpec>& specs, const std::string& name,
                                  const std::string& option) {
  for (const VariableSpec& spec : specs)
    if (spec.name == name) return spec;
  throw UsageError(option + ": unknown variable '" + name + "' (define it with --var " + name + "=INDICES)");
}

// The query path from --path or from --tree and --ends; every node must be a --var.
std::vector<kgm::PathNode> parse_path(const std::string& path, const std::string& tree, const std::string& ends,
                                      const std::vector<VariableSpec>& specs) {
  if (path.empty() == tree.empty()) throw UsageError("give either --path or --tree (with --ends)");
  if (!path.empty() && !ends.empty()) throw UsageError("--ends goes with --tree, not with --path");
  std::vector<kgm::Edge> edges;
  std::vector<std::string> end_names;
  if (!path.empty()) {
    const std::vector<std::string> names = split(path, ',');
    if (names.size() < 2) throw UsageError("--path needs at least two variables, got '" + path + "'");
    for (std::size_t i = 0; i + 1 < names.size(); ++i) edges.push_back({names[i], names[i + 1]});
    end_names = {names.front(), names.back()};
  } else {
    if (ends.empty()) throw UsageError("--tree needs --ends U,V");
    for (const std::string& edge : split(tree, ',')) {
      const std::vector<std::string> nodes = split(edge, '>');
      if (nodes.size() != 2) throw UsageError("--tree: expected edges PARENT>CHILD, got '" + edge + "'");
      edges.push_back({nodes[0], nodes[1]});
    }
    end_names = split(ends, ',');
    if (end_names.size() != 2) throw UsageError("--ends: expected U,V, got '" + ends + "'");
  }
  for (const kgm::Edge& edge : edges) {
    find_variable(specs, edge.parent, path.empty() ? "--tree" : "--path");
    find_variable(specs, edge.child, path.empty() ? "--tree" : "--path");
  }
  try {
    return kgm::tree_path(edges, end_names[0], end_names[1]);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string(path.empty() ? "--tree/--ends: " : "--path: ") + e.what());
  }
}

// Every index belongs to at most one variable.
void check_disjoint(const std::vector<VariableSpec>& specs) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    for (std::size_t j = i + 1; j < specs.size(); ++j) {
      if (specs[i].name == specs[j].name) throw UsageError("--var: variable '" + specs[i].name + "' is defined twice");
      if (specs[i].first <= specs[j].last && specs[j].first <= specs[i].last)
        throw UsageError("--var '" + specs[i].text + "' and --var '" + specs[j].text + "' share LIBSVM indices");
    }
}

// Before anything is allocated: no variable lies beyond the file's largest index (a likely mistake:
// its values would all be 0), and the dense matrices fit the limit of one row's dense values
// (kMaxRowDenseValues, row.hpp): each variable's N x (its indices) values and the N x N Gram matrices.
void check_sizes(const Dataset& samples, const std::vector<VariableSpec>& specs) {
  const auto limit = static_cast<double>(kMaxRowDenseValues);
  const auto count = static_cast<double>(samples.examples.size());
  const std::string why = " values, more than the " + std::to_string(kMaxRowDenseValues) +
                          " dense values one matrix may hold (docs/cli.md, \"Kernel graphical models\")";
  if (count * count > limit)
    throw InputError(samples.source + ": " + std::to_string(samples.examples.size()) +
                     " samples: N x N Gram matrices of " + format_double(count * count) + why);
  for (const VariableSpec& spec : specs) {
    if (spec.last > samples.max_index)
      throw InputError(samples.source + ": variable " + spec.name + " uses LIBSVM index " + std::to_string(spec.last) +
                       ", but the largest index in the file is " + std::to_string(samples.max_index));
    const double width = static_cast<double>(spec.last - spec.first + 1);
    if (count * width > limit)
      throw InputError(samples.source + ": variable " + spec.name + " spans " + format_double(width) +
                       " LIBSVM indices over " + std::to_string(samples.examples.size()) +
                       " samples: " + format_double(count * width) + why);
  }
}

// The values of `spec` in every example of `data` (one row each); delta variables must hold integers.
Eigen::MatrixXd variable_values(const Dataset& data, const VariableSpec& spec) {
  const bool discrete = std::holds_alternative<kgm::DeltaKernel>(spec.kernel);
  Eigen::MatrixXd values =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(data.examples.size()), spec.last - spec.first + 1);
  for (std::size_t row = 0; row < data.examples.size(); ++row) {
    const Example& example = data.examples[row];
    for (const Feature& feature : example.vectors.front()) {
      const long index = feature.coord + 1;
      if (index < spec.first || index > spec.last) continue;
      if (discrete && feature.value != std::floor(feature.value))
        throw data.error_at(example, "index " + std::to_string(index) + " (variable " + spec.name +
                                         ", delta kernel): expected an integer, got " + format_double(feature.value));
      values(static_cast<Eigen::Index>(row), index - spec.first) = feature.value;
    }
  }
  return values;
}

Dataset read_samples(const std::string& path) {
  InputFile input(path);
  Dataset data = read_data(input.stream(), input.name());
  if (data.grouped) throw data.error_at(data.examples.front(), "qid groups are not allowed: one joint sample per line");
  if (data.examples.empty()) throw InputError(input.name() + ": no samples");
  return data;
}

// The distinct rows of `values`, in lexicographic order.
Eigen::MatrixXd distinct_rows(const Eigen::MatrixXd& values) {
  std::set<std::vector<double>> rows;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    std::vector<double> row(static_cast<std::size_t>(values.cols()));
    for (Eigen::Index j = 0; j < values.cols(); ++j) row[static_cast<std::size_t>(j)] = values(i, j);
    rows.insert(row);
  }
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), values.cols());
  Eigen::Index i = 0;
  for (const std::vector<double>& row : rows)
    out.row(i++) = Eigen::Map<const Eigen::RowVectorXd>(row.data(), values.cols());
  return out;
}

std::string format_value(const Eigen::RowVectorXd& value) {
  std::string out;
  for (Eigen::Index j = 0; j < value.size(); ++j) out += (j ? "," : "") + format_double(value(j));
  return out;
}

}  // namespace

int run_kgm(const std::vector<std::string>& args) {
  std::vector<std::string> var_texts;
  std::string path, tree, ends, samples_path, queries_path, output_path;
  double lambda = 0;
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("var", po::value<std::vector<std::string>>(&var_texts)->value_name("NAME=INDICES[:KERNEL]"),
       "a variable (repeat)")
      ("path", po::value<std::string>(&path)->value_name("V0,...,Vk"), "a chain query")
      ("tree", po::value<std::string>(&tree)->value_name("P>C,..."), "a tree's edges")
      ("ends", po::value<std::string>(&ends)->value_name("U,V"), "the end variables of a tree query")
      ("lambda", po::value<double>(&lambda)->value_name("L"), "the regularisation lambda > 0")
      ("table", "every pair of observed values of the (delta) end variables")
      ("output,o", po::value<std::string>(&output_path)->default_value("-")->value_name("OUTPUT"),
       "where to write ('-' = standard output)")
      ("help,h", "this text");
  // clang-format on
  if (wants_help(args)) {
    std::cout << kUsage << "\n" << options;
    return 0;
  }
  po::options_description all = options;
  all.add_options()("samples", po::value<std::string>(&samples_path), "SAMPLES")(
      "queries", po::value<std::string>(&queries_path), "QUERIES");
  po::positional_options_description positional;
  positional.add("samples", 1).add("queries", 1);
  const po::variables_map values = parse_command_line(args, all, positional);

  if (var_texts.empty()) throw UsageError("missing --var NAME=INDICES[:KERNEL]");
  std::vector<VariableSpec> specs;
  for (const std::string& text : var_texts) specs.push_back(parse_variable(text));
  check_disjoint(specs);
  const std::vector<kgm::PathNode> query = parse_path(path, tree, ends, specs);
  if (!values.count("lambda")) throw UsageError("missing --lambda L (the regularisation, > 0)");
  if (!(lambda > 0) || !std::isfinite(lambda))
    throw UsageError("--lambda must be a finite number > 0, got " + format_double(lambda));
  if (samples_path.empty()) throw UsageError("missing SAMPLES, the file of joint samples");
  const bool table = values.count("table") > 0;
  if (table == !queries_path.empty()) throw UsageError("give either QUERIES or --table");
  const VariableSpec& u = find_variable(specs, query.front().variable, "--ends");
  const VariableSpec& v = find_variable(specs, query.back().variable, "--ends");
  if (table &&
      !(std::holds_alternative<kgm::DeltaKernel>(u.kernel) && std::holds_alternative<kgm::DeltaKernel>(v.kernel)))
    throw UsageError("--table needs delta kernels on both end variables, " + u.name + " and " + v.name);
  if (samples_path == "-" && queries_path == "-") throw UsageError("SAMPLES and QUERIES cannot both be standard input");

  const Dataset samples = read_samples(samples_path);
  check_sizes(samples, specs);
  std::vector<kgm::Variable> variables;
  for (const VariableSpec& spec : specs) variables.push_back({spec.name, variable_values(samples, spec), spec.kernel});
  const kgm::KernelGraphicalModel model(std::move(variables), lambda);

  std::vector<std::string> lines;
  if (table) {
    const Eigen::MatrixXd u_values = distinct_rows(model.variable(u.name).samples);
    const Eigen::MatrixXd v_values = distinct_rows(model.variable(v.name).samples);
    const Eigen::MatrixXd estimates = model.path_estimates(query, u_values, v_values);
    for (Eigen::Index i = 0; i < u_values.rows(); ++i)
      for (Eigen::Index j = 0; j < v_values.rows(); ++j)
        lines.push_back(format_value(u_values.row(i)) + " " + format_value(v_values.row(j)) + " " +
                        format_double(estimates(i, j)));
  } else {
    const Dataset queries = read_samples(queries_path);
    const Eigen::MatrixXd u_points = variable_values(queries, u), v_points = variable_values(queries, v);
    const Eigen::VectorXd estimates = model.paired_path_estimates(query, u_points, v_points);
    for (Eigen::Index q = 0; q < estimates.size(); ++q) lines.push_back(format_double(estimates(q)));
  }
  write_lines(output_path, lines);
  return 0;
}

}  // namespace ppk::cli
