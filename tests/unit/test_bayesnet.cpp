// Bayesian networks (bayesnet.hpp): the kernel k~ of JMLR 2004 section 4.3 against brute-force
// enumeration of every joint configuration of both networks (discrete emission leaves enumerated over
// their categories) for networks of different structures, against sums over pairs of discrete
// configurations with the Gaussian closed form (Gaussian emission leaves), against the HMM family
// (an HMM written as a network, and an HMM row against a network row); Gram matrices, round trips,
// the documented row layout and rejected networks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "emission_models.hpp"
#include "error_message.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;
using checks::replaced;
using checks::with_value;

// A network in plain numbers. A discrete node (states K >= 1) has one row of K probabilities per
// parent configuration; an emission leaf (states 0) has, per parent configuration, the probabilities
// of its symbols (a one-event multinomial) or {mean, variance} of a 1-D Gaussian.
struct Node {
  long states = 0;
  long variable = -1;
  std::vector<long> parents;
  std::vector<std::vector<double>> table;
};
using Net = std::vector<Node>;

using EmissionBuilder = std::function<std::unique_ptr<Model>(const std::vector<double>&)>;

std::unique_ptr<BayesNetModel> network_model(const Net& net, const EmissionBuilder& emission = one_event_multinomial) {
  std::vector<BayesNode> nodes;
  for (const Node& n : net) {
    BayesNode node;
    node.states = n.states;
    node.variable = n.variable;
    node.parents = n.parents;
    for (const auto& row : n.table) {
      if (n.states > 0)
        node.cpt.insert(node.cpt.end(), row.begin(), row.end());
      else
        node.emissions.push_back(emission(row));
    }
    nodes.push_back(std::move(node));
  }
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

double model_kernel(const Net& a, const Net& b, double rho, const EmissionBuilder& emission = one_event_multinomial) {
  return kernel(PreparedModel(network_model(a, emission), with_rho(rho)),
                PreparedModel(network_model(b, emission), with_rho(rho)));
}

// Calls f(x) for every x with 0 <= x[i] < radix[i].
void for_each_assignment(const std::vector<long>& radix, const std::function<void(const std::vector<long>&)>& f) {
  std::vector<long> x(radix.size(), 0);
  while (true) {
    f(x);
    std::size_t i = 0;
    while (i < radix.size() && ++x[i] == radix[i]) x[i++] = 0;
    if (i == radix.size()) return;
  }
}

// The row of node's table for the parents' values in x, numbered as bayesnet.hpp says: row-major
// over the parents in their listed order, the last parent fastest.
const std::vector<double>& row_of(const Net& net, const Node& node, const std::vector<long>& x) {
  std::size_t c = 0;
  for (long u : node.parents)
    c = c * static_cast<std::size_t>(net[static_cast<std::size_t>(u)].states) +
        static_cast<std::size_t>(x[static_cast<std::size_t>(u)]);
  return node.table.at(c);
}

// The values a node takes: its states, or an emission leaf's symbols.
long values_of(const Node& node) { return node.states > 0 ? node.states : static_cast<long>(node.table[0].size()); }

// p(x) = prod_i P(x_i | x_pa(i)) over every node, emission leaves included (discrete emissions).
double joint(const Net& net, const std::vector<long>& x) {
  double p = 1.0;
  for (std::size_t i = 0; i < net.size(); ++i) p *= row_of(net, net[i], x)[static_cast<std::size_t>(x[i])];
  return p;
}

// sum over the hidden nodes' values of p(h, X)^rho, the observed variables fixed to X.
double hidden_sum(const Net& net, const std::vector<long>& observed, double rho) {
  std::vector<long> radix;
  for (const Node& node : net) radix.push_back(node.variable >= 0 ? 1 : values_of(node));
  double sum = 0.0;
  for_each_assignment(radix, [&](std::vector<long> x) {
    for (std::size_t i = 0; i < net.size(); ++i)
      if (net[i].variable >= 0) x[i] = observed[static_cast<std::size_t>(net[i].variable)];
    sum += std::pow(joint(net, x), rho);
  });
  return sum;
}

// k~ = sum over every joint configuration (h, h', X) of [p(h, X) p'(h', X)]^rho
//    = sum_X [sum_h p(h, X)^rho] [sum_h' p'(h', X)^rho], X over every tuple of observed values.
double brute_force_kernel(const Net& a, const Net& b, double rho) {
  std::vector<long> radix;
  for (const Node& node : a)
    if (node.variable >= 0) {
      if (radix.size() <= static_cast<std::size_t>(node.variable))
        radix.resize(static_cast<std::size_t>(node.variable) + 1);
      radix[static_cast<std::size_t>(node.variable)] = values_of(node);
    }
  double k = 0.0;
  for_each_assignment(radix, [&](const std::vector<long>& x) { k += hidden_sum(a, x, rho) * hidden_sum(b, x, rho); });
  return k;
}

// Observed variables x0 (2 symbols), x1 (3 symbols), x2 (2 symbols) in four structures.
// A naive-Bayes network: one hidden class h (node 0), the three variables its children.
const Net kNaiveBayes{{2, -1, {}, {{0.3, 0.7}}},
                      {2, 0, {0}, {{0.9, 0.1}, {0.2, 0.8}}},
                      {0, 1, {0}, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}},
                      {2, 2, {0}, {{0.6, 0.4}, {0.25, 0.75}}}};
// x0 -> h -> x1, and x2 with parents (x0, h); listed children first (any order is accepted).
const Net kChain{{0, 1, {2}, {{0.2, 0.2, 0.6}, {0.7, 0.2, 0.1}, {0.3, 0.4, 0.3}}},
                 {2, 0, {}, {{0.45, 0.55}}},
                 {3, -1, {1}, {{0.2, 0.5, 0.3}, {0.6, 0.1, 0.3}}},
                 {2, 2, {1, 2}, {{0.9, 0.1}, {0.5, 0.5}, {0.2, 0.8}, {0.3, 0.7}, {0.65, 0.35}, {0.1, 0.9}}}};
// A v-structure: hidden a (2 states) and b (3 states) share the observed child x1; x0 <- a, x2 <- b.
const Net kVStructure{{2, -1, {}, {{0.5, 0.5}}},
                      {3, -1, {}, {{0.2, 0.3, 0.5}}},
                      {3,
                       1,
                       {0, 1},
                       {{0.1, 0.2, 0.7},
                        {0.3, 0.3, 0.4},
                        {0.5, 0.25, 0.25},
                        {0.6, 0.2, 0.2},
                        {0.05, 0.9, 0.05},
                        {1.0 / 3, 1.0 / 3, 1.0 / 3}}},
                      {0, 0, {0}, {{0.8, 0.2}, {0.3, 0.7}}},
                      {0, 2, {1}, {{0.4, 0.6}, {0.9, 0.1}, {0.5, 0.5}}}};
// A fully observed Markov chain x0 -> x1 -> x2 (x1 a discrete node with a child), with a zero entry.
const Net kMarkovChain{{2, 0, {}, {{0.35, 0.65}}},
                       {3, 1, {0}, {{0.2, 0.3, 0.5}, {0.6, 0.3, 0.1}}},
                       {2, 2, {1}, {{0.4, 0.6}, {0.8, 0.2}, {1.0, 0.0}}}};

const Net* const kStructures[] = {&kNaiveBayes, &kChain, &kVStructure, &kMarkovChain};

TEST(BayesNet, KernelIsTheSumOverEveryJointConfiguration) {
  for (const Net* a : kStructures)
    for (const Net* b : kStructures)
      for (double rho : kRhos) {
        const double expected = brute_force_kernel(*a, *b, rho);
        EXPECT_LT(relative_error(model_kernel(*a, *b, rho), expected), 1e-10)
            << "structures " << (a - kStructures[0]) << ", " << (b - kStructures[0]) << " rho " << rho;
      }
}

TEST(BayesNet, KernelPairsEveryStructureWithEveryOther) {
  // Checked by name: each pairing rule of bayesnet.cpp against enumeration.
  struct Case {
    const char* what;
    const Net *a, *b;
  };
  const Case cases[] = {
      {"discrete leaf vs discrete leaf (x0, x2), emission vs emission (x1)", &kNaiveBayes, &kNaiveBayes},
      {"discrete with children vs discrete leaf (x0)", &kChain, &kNaiveBayes},
      {"discrete with children vs emission of multinomials (x1, x0)", &kMarkovChain, &kVStructure},
      {"discrete leaf vs emission (x2)", &kNaiveBayes, &kVStructure},
  };
  for (const Case& c : cases)
    for (double rho : {0.5, 1.0, 2.0}) {
      EXPECT_LT(relative_error(model_kernel(*c.a, *c.b, rho), brute_force_kernel(*c.a, *c.b, rho)), 1e-10) << c.what;
      EXPECT_LT(relative_error(model_kernel(*c.b, *c.a, rho), brute_force_kernel(*c.a, *c.b, rho)), 1e-10) << c.what;
    }
}

// With Gaussian emission leaves: given the values of every discrete node of both networks (agreeing
// on the observed discrete variables), the integral over the Gaussian variables factorises, so
// k~ = sum over those pairs of (prod CPT)^rho (prod CPT')^rho prod_j k_rho(N_j, N'_j).
double gaussian_pair_sum(const Net& a, const Net& b, double rho) {
  std::vector<long> radix_a, radix_b;
  for (const Node& node : a) radix_a.push_back(node.states > 0 ? node.states : 1);
  for (const Node& node : b) radix_b.push_back(node.states > 0 ? node.states : 1);
  const auto node_of = [](const Net& net, long variable) {
    for (std::size_t i = 0; i < net.size(); ++i)
      if (net[i].variable == variable) return i;
    throw std::logic_error("no such variable");
  };
  double k = 0.0;
  for_each_assignment(radix_a, [&](const std::vector<long>& x) {
    for_each_assignment(radix_b, [&](const std::vector<long>& y) {
      double term = 1.0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const Node& node = a[i];
        if (node.variable < 0) {
          term *= std::pow(row_of(a, node, x)[static_cast<std::size_t>(x[i])], rho);
          continue;
        }
        const std::size_t j = node_of(b, node.variable);
        if (node.states > 0) {
          if (x[i] != y[j]) return;  // the observed variable has one value
          term *= std::pow(row_of(a, node, x)[static_cast<std::size_t>(x[i])], rho);
        } else {
          term *= gaussian_1d_kernel(row_of(a, node, x), row_of(b, b[j], y), rho);
        }
      }
      for (std::size_t i = 0; i < b.size(); ++i)
        if (b[i].states > 0) term *= std::pow(row_of(b, b[i], y)[static_cast<std::size_t>(y[i])], rho);
      k += term;
    });
  });
  return k;
}

// Observed x0, x1 Gaussian over R, x2 discrete with 2 states.
const Net kGaussianNaiveBayes{{2, -1, {}, {{0.4, 0.6}}},
                              {0, 0, {0}, {{-1.0, 0.5}, {2.0, 1.5}}},
                              {0, 1, {0}, {{0.5, 2.0}, {0.0, 0.25}}},
                              {2, 2, {0}, {{0.7, 0.3}, {0.2, 0.8}}}};
// a -> b (hidden), x0 with parents (a, b), x1 <- b, x2 <- a.
const Net kGaussianTwoHidden{{2, -1, {}, {{0.25, 0.75}}},
                             {3, -1, {0}, {{0.2, 0.3, 0.5}, {0.6, 0.3, 0.1}}},
                             {0, 0, {0, 1}, {{0.0, 1.0}, {1.5, 0.25}, {-2.0, 3.0}, {0.5, 0.5}, {1.0, 2.0}, {-0.5, 1.0}}},
                             {0, 1, {1}, {{1.0, 1.0}, {-1.0, 0.5}, {0.0, 4.0}}},
                             {2, 2, {0}, {{0.5, 0.5}, {0.9, 0.1}}}};
// x2 -> h -> x0, x2 -> x1: the discrete observed variable has children.
const Net kGaussianObservedRoot{{2, 2, {}, {{0.3, 0.7}}},
                                {2, -1, {0}, {{0.8, 0.2}, {0.1, 0.9}}},
                                {0, 0, {1}, {{0.25, 0.5}, {-1.5, 2.0}}},
                                {0, 1, {0}, {{0.0, 1.0}, {3.0, 0.75}}}};

TEST(BayesNet, GaussianLeavesGiveTheSumOverDiscretePairsOfClosedForms) {
  const Net* const nets[] = {&kGaussianNaiveBayes, &kGaussianTwoHidden, &kGaussianObservedRoot};
  for (const Net* a : nets)
    for (const Net* b : nets)
      for (double rho : kRhos)
        EXPECT_LT(relative_error(model_kernel(*a, *b, rho, gaussian_1d), gaussian_pair_sum(*a, *b, rho)), 1e-10)
            << (a - nets[0]) << " vs " << (b - nets[0]) << " rho " << rho;
}

// An HMM in plain numbers (test_hmm.cpp's form).
struct Hmm {
  std::vector<double> start;
  std::vector<std::vector<double>> trans;
  std::vector<std::vector<double>> emissions;
};

std::unique_ptr<HmmModel> hmm_model(const Hmm& h, long length, const EmissionBuilder& emission = one_event_multinomial) {
  const Eigen::Index m = static_cast<Eigen::Index>(h.start.size());
  Eigen::MatrixXd trans(m, m);
  for (Eigen::Index p = 0; p < m; ++p)
    for (Eigen::Index q = 0; q < m; ++q) trans(p, q) = h.trans[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)];
  std::vector<std::unique_ptr<Model>> emissions;
  for (const auto& e : h.emissions) emissions.push_back(emission(e));
  return std::make_unique<HmmModel>(Eigen::Map<const Eigen::VectorXd>(h.start.data(), m), trans, std::move(emissions),
                                    length);
}

// The HMM over x_0..x_T as a network, listed backwards (x_T, .., x_0, s_T, .., s_0): s_0 ~ start,
// s_t | s_{t-1} ~ trans, x_t | s_t ~ emission (an emission leaf, or a discrete node with the
// emission probabilities as its CPT).
Net hmm_as_network(const Hmm& h, long steps, bool discrete_observations) {
  const long states = static_cast<long>(h.start.size());
  const auto hidden = [&](long t) { return 2 * steps + 1 - t; };  // node index of s_t
  Net net(static_cast<std::size_t>(2 * (steps + 1)));
  for (long t = 0; t <= steps; ++t) {
    Node& s = net[static_cast<std::size_t>(hidden(t))];
    s.states = states;
    if (t == 0) {
      s.table = {h.start};
    } else {
      s.parents = {hidden(t - 1)};
      s.table = h.trans;
    }
    Node& x = net[static_cast<std::size_t>(steps - t)];
    x.variable = t;
    x.parents = {hidden(t)};
    x.table = h.emissions;
    if (discrete_observations) x.states = static_cast<long>(h.emissions[0].size());
  }
  return net;
}

const Hmm kTwoStates{{0.6, 0.4}, {{0.7, 0.3}, {0.2, 0.8}}, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}};
const Hmm kThreeStates{{0.2, 0.5, 0.3},
                       {{0.1, 0.6, 0.3}, {0.4, 0.4, 0.2}, {0.25, 0.25, 0.5}},
                       {{0.3, 0.3, 0.4}, {0.9, 0.05, 0.05}, {0.25, 0.625, 0.125}}};
const Hmm kGaussianTwo{{0.3, 0.7}, {{0.8, 0.2}, {0.4, 0.6}}, {{-1.0, 0.5}, {2.0, 1.5}}};
const Hmm kGaussianThree{
    {0.5, 0.25, 0.25}, {{0.6, 0.3, 0.1}, {0.2, 0.2, 0.6}, {0.1, 0.1, 0.8}}, {{0.0, 1.0}, {1.5, 0.25}, {-2.0, 3.0}}};

TEST(BayesNet, AnHmmWrittenAsANetworkHasTheHmmKernel) {
  const std::pair<const Hmm*, const Hmm*> pairs[] = {{&kTwoStates, &kThreeStates}, {&kThreeStates, &kThreeStates}};
  for (const auto& [a, b] : pairs)
    for (long steps : {0L, 1L, 3L, 6L})
      for (double rho : kRhos) {
        const double expected = kernel(PreparedModel(hmm_model(*a, steps), with_rho(rho)),
                                       PreparedModel(hmm_model(*b, steps), with_rho(rho)));
        for (bool discrete : {false, true})
          EXPECT_LT(
              relative_error(model_kernel(hmm_as_network(*a, steps, discrete), hmm_as_network(*b, steps, !discrete), rho),
                             expected),
              1e-10)
              << "T " << steps << " rho " << rho << (discrete ? " discrete" : " emission") << " observations";
      }
  for (long steps : {0L, 2L, 5L})
    for (double rho : kRhos) {
      const double expected = kernel(PreparedModel(hmm_model(kGaussianTwo, steps, gaussian_1d), with_rho(rho)),
                                     PreparedModel(hmm_model(kGaussianThree, steps, gaussian_1d), with_rho(rho)));
      EXPECT_LT(relative_error(model_kernel(hmm_as_network(kGaussianTwo, steps, false),
                                            hmm_as_network(kGaussianThree, steps, false), rho, gaussian_1d),
                               expected),
                1e-10)
          << "Gaussian, T " << steps << " rho " << rho;
    }
}

TEST(BayesNet, HmmAgainstNetworkEqualsHmmAgainstHmm) {
  for (long steps : {1L, 4L})
    for (double rho : kRhos) {
      // -d 0 (each HMM's stored length) and -d T give the same T here.
      for (int length_option : {0, static_cast<int>(steps)}) {
        const PreparedModel hmm_a(hmm_model(kTwoStates, steps), with_rho_and_length(rho, length_option));
        const PreparedModel hmm_b(hmm_model(kThreeStates, steps), with_rho_and_length(rho, length_option));
        const double expected = kernel(hmm_a, hmm_b);
        for (bool discrete : {false, true}) {
          const PreparedModel network_b(network_model(hmm_as_network(kThreeStates, steps, discrete)),
                                        with_rho_and_length(rho, length_option));
          ASSERT_NO_THROW(check_compatible(hmm_a.model(), network_b.model()));
          EXPECT_LT(relative_error(kernel(hmm_a, network_b), expected), 1e-10) << "T " << steps << " rho " << rho;
          EXPECT_LT(relative_error(kernel(network_b, hmm_a), expected), 1e-10) << "T " << steps << " rho " << rho;
          EXPECT_LT(relative_error(normalized_kernel(hmm_a, network_b), normalized_kernel(hmm_a, hmm_b)), 1e-10);
        }
      }
    }
  // An HMM against a network of a different structure: the naive-Bayes network over 3 variables of
  // 3 symbols each vs an HMM over x_0..x_2, against enumeration.
  const Net naive_bayes{{2, -1, {}, {{0.3, 0.7}}},
                        {0, 0, {0}, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}},
                        {3, 1, {0}, {{0.2, 0.2, 0.6}, {0.7, 0.2, 0.1}}},
                        {0, 2, {0}, {{0.3, 0.4, 0.3}, {0.05, 0.05, 0.9}}}};
  for (double rho : kRhos) {
    const PreparedModel hmm(hmm_model(kThreeStates, 2), with_rho(rho));
    const PreparedModel network(network_model(naive_bayes), with_rho(rho));
    EXPECT_LT(relative_error(kernel(hmm, network),
                             brute_force_kernel(hmm_as_network(kThreeStates, 2, false), naive_bayes, rho)),
              1e-10)
        << "rho " << rho;
  }
}

// A probability vector of `size` entries, each uniform in [0.05, 1) before they are normalised.
std::vector<double> random_distribution(long size, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  std::vector<double> p(static_cast<std::size_t>(size));
  double sum = 0.0;
  for (double& v : p) sum += v = uniform(rng);
  for (double& v : p) v /= sum;
  return p;
}

// A random HMM over 4 symbols (seeded).
Hmm random_hmm(long states, std::mt19937& rng) {
  const auto distribution = [&](long size) { return random_distribution(size, rng); };
  Hmm h{distribution(states), {}, {}};
  for (long q = 0; q < states; ++q) {
    h.trans.push_back(distribution(states));
    h.emissions.push_back(distribution(4));
  }
  return h;
}

// At the benchmark's sizes (bench/bench_bayesnet.cpp: M up to 12 states, T up to 100), the network
// written from an HMM has the hmm family's kernel to 1e-12 relative, whether its observations are
// emission leaves or discrete nodes, against another such network or against the HMM row itself.
TEST(BayesNet, HmmShapedNetworksHaveTheHmmKernelToTwelveDigits) {
  std::mt19937 rng(48);
  for (long states : {2L, 4L, 8L, 12L})
    for (long steps : {10L, 60L, 100L}) {
      const Hmm a = random_hmm(states, rng), b = random_hmm(states == 2 ? 3 : states, rng);
      for (double rho : {0.5, 1.0, 2.0}) {
        const PreparedModel hmm_a(hmm_model(a, steps), with_rho(rho)), hmm_b(hmm_model(b, steps), with_rho(rho));
        const double expected = log_kernel(hmm_a, hmm_b);
        const std::string where =
            "M " + std::to_string(states) + " T " + std::to_string(steps) + " rho " + std::to_string(rho);
        for (bool discrete_a : {false, true})
          for (bool discrete_b : {false, true}) {
            const PreparedModel net_a(network_model(hmm_as_network(a, steps, discrete_a)), with_rho(rho));
            const PreparedModel net_b(network_model(hmm_as_network(b, steps, discrete_b)), with_rho(rho));
            // |log k - log k'| <= 1e-12 is k within 1e-12 relative of k'.
            EXPECT_NEAR(log_kernel(net_a, net_b), expected, 1e-12) << where << " " << discrete_a << discrete_b;
            EXPECT_NEAR(log_kernel(hmm_a, net_b), expected, 1e-12) << where << " hmm against network";
          }
      }
    }
}

TEST(BayesNet, LongHmmChainsStayExactInLogSpace) {
  // 1000 steps: the kernel underflows a double (at rho = 1 it is the co-emission probability of
  // 1001 symbols); the log-space elimination does not.
  const long steps = 1000;
  for (double rho : {1.0, 2.0}) {
    const PreparedModel hmm_a(hmm_model(kTwoStates, steps), with_rho(rho)),
        hmm_b(hmm_model(kThreeStates, steps), with_rho(rho));
    const PreparedModel net_b(network_model(hmm_as_network(kThreeStates, steps, false)), with_rho(rho));
    const double expected = log_kernel(hmm_a, hmm_b);
    ASSERT_LT(expected, -745.0);  // below the smallest double's log: k itself underflows
    EXPECT_LT(std::fabs(log_kernel(hmm_a, net_b) - expected), 1e-10 * std::fabs(expected)) << "rho " << rho;
  }
}

// A random network over x0 (2 symbols), x1 (3 symbols), x2 (2 symbols) and 0..2 hidden nodes of 1..3
// states: nodes placed in a random order, each with up to two earlier discrete nodes as parents;
// each observed variable a discrete node or an emission leaf (then without children); then listed
// in another random order.
Net random_network(std::mt19937& rng) {
  const auto distribution = [&](long size) { return random_distribution(size, rng); };
  const auto coin = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  const long symbols[] = {2, 3, 2};
  Net placed;
  for (long j = 0; j < 3; ++j) placed.push_back({coin(0.5) ? 0 : symbols[j], j, {}, {}});
  const long hidden = std::uniform_int_distribution<long>(0, 2)(rng);
  for (long h = 0; h < hidden; ++h) placed.push_back({std::uniform_int_distribution<long>(1, 3)(rng), -1, {}, {}});
  std::shuffle(placed.begin(), placed.end(), rng);
  for (std::size_t i = 0; i < placed.size(); ++i) {
    Node& node = placed[i];
    for (std::size_t u = 0; u < i && node.parents.size() < 2; ++u)
      if (placed[u].states > 0 && coin(0.5)) node.parents.push_back(static_cast<long>(u));
    long rows = 1;
    for (long u : node.parents) rows *= placed[static_cast<std::size_t>(u)].states;
    for (long c = 0; c < rows; ++c)
      node.table.push_back(distribution(node.states > 0 ? node.states : symbols[node.variable]));
  }
  std::vector<long> listed(placed.size());  // listed[i]: where placed node i is listed
  for (std::size_t i = 0; i < listed.size(); ++i) listed[i] = static_cast<long>(i);
  std::shuffle(listed.begin(), listed.end(), rng);
  Net net(placed.size());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    Node node = placed[i];
    for (long& u : node.parents) u = listed[static_cast<std::size_t>(u)];
    net[static_cast<std::size_t>(listed[i])] = node;
  }
  return net;
}

TEST(BayesNet, RandomNetworksMatchEnumerationAndGiveSemidefiniteGrams) {
  std::mt19937 rng(20040403);
  std::vector<Net> nets;
  for (int i = 0; i < 16; ++i) nets.push_back(random_network(rng));
  for (std::size_t i = 0; i + 1 < nets.size(); i += 2)
    EXPECT_LT(relative_error(model_kernel(nets[i], nets[i + 1], 0.5), brute_force_kernel(nets[i], nets[i + 1], 0.5)),
              1e-10)
        << "random pair " << i;
  for (double rho : {0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (const Net& net : nets) models.emplace_back(network_model(net), with_rho(rho));
    for (const Net* fixed : kStructures) models.emplace_back(network_model(*fixed), with_rho(rho));
    expect_positive_semidefinite(models, "rho " + std::to_string(rho));
  }
}

TEST(BayesNet, RowsAndJsonRoundTrip) {
  for (const Net* net : kStructures) checks::expect_round_trips(*network_model(*net));
  checks::expect_round_trips(*network_model(kGaussianTwoHidden, gaussian_1d));
  checks::expect_round_trips(*network_model(hmm_as_network(kThreeStates, 3, true)));
}

// A row written out from the layout of bayesnet.hpp: 3: N = 2 nodes; node 0's header at 4..6
// (2 states, hidden, no parents), node 1's at 7..10 (2 states, variable 0 + 1, one parent: node 0);
// node 0's CPT at 11..12, node 1's two rows at 13..14 and 15..16. Zeros are omitted.
const Row kHandRow{{1, 1},     {2, 10},    {3, 2},    {4, 2},    {7, 2},      {8, 1},     {9, 1},
                   {11, 0.25}, {12, 0.75}, {13, 0.5}, {14, 0.5}, {15, 0.125}, {16, 0.875}};

TEST(BayesNet, RowLayoutIsTheDocumentedOne) {
  const auto model = decode_row(kHandRow);
  const auto& network = static_cast<const BayesNetModel&>(*model);
  ASSERT_EQ(network.size(), 2u);
  EXPECT_EQ(network.node(0).states, 2);
  EXPECT_EQ(network.node(0).variable, -1);
  EXPECT_EQ(network.node(1).variable, 0);
  EXPECT_EQ(network.node(1).parents, std::vector<long>{0});
  EXPECT_EQ(network.node(1).cpt, (std::vector<double>{0.5, 0.5, 0.125, 0.875}));
  EXPECT_EQ(network.sample_space(), (SampleSpace{"sequences of 1 categories", 2}));
  EXPECT_EQ(format_entries(encode_row(network)), format_entries(kHandRow));
  // Its kernel with itself at rho = 1: the co-emission probability sum over x of p(x)^2,
  // p(x) = sum_h P(h) P(x | h).
  const double p0 = 0.25 * 0.5 + 0.75 * 0.125, p1 = 1.0 - p0;
  const PreparedModel prepared(decode_row(kHandRow), with_rho(1.0));
  EXPECT_NEAR(kernel(prepared, prepared), p0 * p0 + p1 * p1, 1e-15);
}

TEST(BayesNet, MalformedRowsNameTheNodeFieldAndIndex) {
  using checks::row_error;
  EXPECT_EQ(row_error(kHandRow), "");
  // Row 1 of node 1's CPT (indices 15..16) sums to 0.925.
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 16, 0.8)), {"bayesnet nodes[1] field \"cpt\" (indices 15..16)",
                                                                  "P(node 1 | node 0 = 1)", "summing to 1", "0.925"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 12, 1.5)),
                       {"bayesnet nodes[0] field \"cpt\" (index 12)", "a probability in [0, 1]", "1.5"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(kHandRow, 8, 3)), {"bayesnet nodes[1] field \"variable\" (index 8)", "got 3"}));
  Row self_parent = kHandRow;
  self_parent.insert(self_parent.begin() + 7, {10, 1});  // node 1's parent (index 10): node 1
  EXPECT_TRUE(mentions(row_error(self_parent), {"bayesnet nodes[1] field \"parents\" (index 10)", "the node itself"}));
  // Three nodes whose parents form a cycle: node 0 <- node 2, node 1 <- node 0, node 2 <- node 1.
  const Row cycle{{1, 1}, {2, 10}, {3, 3}, {4, 2}, {6, 1}, {7, 2}, {8, 2}, {10, 1}, {12, 2}, {13, 1}, {14, 1}, {15, 1}};
  EXPECT_TRUE(mentions(row_error(cycle), {"bayesnet nodes[0] field \"parents\" (indices 6..7)", "cycle",
                                          "node 0 -> node 1 -> node 2 -> node 0"}));
  // Node 0 with 0 states is an emission leaf, but hidden (index 5 is absent).
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 4, 0)),
                       {"bayesnet nodes[0] field \"variable\" (index 5)", "an emission leaf is observed"}));
}

const char* const kValidJson = R"({"family":"bayesnet","nodes":[{"states":2,"parents":[],"cpt":[[0.25,0.75]]},)"
                               R"({"states":2,"parents":[0],"cpt":[[0.5,0.5],[0.125,0.875]],"variable":0},)"
                               R"({"parents":[0,1],"variable":1,"emissions":[{"family":"gaussian","mean":[0],"var":1},)"
                               R"({"family":"gaussian","mean":[1],"var":1},{"family":"gaussian","mean":[2],"var":1},)"
                               R"({"family":"gaussian","mean":[3],"var":2}]}]})";

TEST(BayesNet, MalformedJsonNamesTheNodeAndField) {
  using checks::json_error;
  ASSERT_EQ(json_error(kValidJson), "");
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[0.125,0.875]", "[0.125,0.8]")),
                       {"bayesnet nodes[1] field \"cpt\"[1]", "P(node 1 | node 0 = 1)", "summing to 1", "0.925"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[0.125,0.875]", "[-0.125,1.125]")),
                       {"bayesnet nodes[1] field \"cpt\"[1][0]", "a probability in [0, 1]", "-0.125"}));
  // State-count mismatches: a CPT with the wrong number of rows or of states.
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[[0.5,0.5],[0.125,0.875]]", "[[0.5,0.5]]")),
                       {"bayesnet nodes[1] field \"cpt\"", "2 rows (one per configuration of the parents) of 2"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(kValidJson, "[[0.5,0.5],[0.125,0.875]]", "[[0.5,0.25,0.25],[0.125,0.5,0.375]]")),
               {"bayesnet nodes[1] field \"cpt\"", "of 2 probabilities"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, R"(,{"family":"gaussian","mean":[3],"var":2})", "")),
                       {"bayesnet nodes[2] field \"emissions\"", "4 emission models", "got 3"}));
  // A cycle: node 0 gets node 1 as its parent.
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, R"("parents":[],"cpt":[[0.25,0.75]])",
                                           R"("parents":[1],"cpt":[[0.25,0.75],[0.5,0.5]])")),
                       {"bayesnet nodes[0] field \"parents\"", "cycle", "node 0 -> node 1 -> node 0"}));
  // An emission leaf with a child.
  EXPECT_TRUE(mentions(
      json_error(replaced(kValidJson, "]}]}", R"(]},{"states":2,"parents":[2],"cpt":[[0.5,0.5]]}]})")),
      {"bayesnet nodes[3] field \"parents\"[0]", "an emission leaf has no children", "node 2, an emission leaf"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, R"("parents":[0,1],"variable":1)", R"("parents":[0,1])")),
                       {"bayesnet nodes[2] field \"variable\"", "an emission leaf is observed"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(kValidJson, R"("parents":[0,1],"variable":1)", R"("parents":[0,1],"variable":0)")),
               {"bayesnet nodes[2] field \"variable\"", "each used by one node", "already the variable of node 1"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(kValidJson, R"("parents":[0,1],"variable":1)", R"("parents":[0,1],"variable":2)")),
               {"bayesnet nodes[2] field \"variable\"", "numbered 0..1", "got 2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.5,0.5]]}]})"),
                       {"bayesnet field \"nodes\"", "at least one observed node", "only hidden nodes"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, R"("parents":[0,1])", R"("parents":[0,0])")),
                       {"bayesnet nodes[2] field \"parents\"[1]", "distinct parents"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, R"("parents":[0,1])", R"("parents":[0,5])")),
                       {"bayesnet nodes[2] field \"parents\"", "a whole number in [0, 2]"}));
  EXPECT_TRUE(mentions(
      json_error(replaced(kValidJson, R"("mean":[3],"var":2)", R"("mean":[3,1],"var":2)")),
      {"bayesnet nodes[2] field \"emissions\"[3]", "real vectors of dimension 1", "real vectors of dimension 2"}));
  EXPECT_TRUE(mentions(
      json_error(replaced(kValidJson, R"({"states":2,"parents":[],)", R"({"states":2,"colour":1,"parents":[],)")),
      {"bayesnet nodes[0] field \"colour\"", "not a field"}));
}

TEST(BayesNet, ConstructorChecksEveryNodesTableAgainstItsParents) {
  using checks::constructor_error;
  const auto build = [](std::vector<double> child_cpt) {
    std::vector<BayesNode> nodes(2);
    nodes[0] = {3, -1, {}, {0.2, 0.3, 0.5}, {}};
    nodes[1] = {2, 0, {0}, std::move(child_cpt), {}};
    BayesNetModel network(std::move(nodes));
  };
  EXPECT_EQ(constructor_error([&] { build({0.5, 0.5, 0.1, 0.9, 1, 0}); }), "");
  // The parent has 3 states: 3 rows of 2, not 2 rows.
  EXPECT_TRUE(mentions(constructor_error([&] {
                         build({0.5, 0.5, 0.1, 0.9});
                       }),
                       {"bayesnet nodes[1] field \"cpt\"", "3 x 2 probabilities", "got 4 values"}));
  EXPECT_TRUE(mentions(constructor_error([&] {
                         std::vector<BayesNode> nodes(1);
                         nodes[0] = {2, 0, {}, {0.5, 0.5}, {}};
                         nodes[0].emissions.push_back(one_event_multinomial({0.5, 0.5}));
                         BayesNetModel network(std::move(nodes));
                       }),
                       {"bayesnet nodes[0] field \"emissions\"", "a discrete node has a \"cpt\""}));
  EXPECT_TRUE(mentions(constructor_error([&] {
                         std::vector<BayesNode> nodes(1);
                         nodes[0] = {0, 0, {}, {0.5, 0.5}, {}};
                         nodes[0].emissions.push_back(one_event_multinomial({0.5, 0.5}));
                         BayesNetModel network(std::move(nodes));
                       }),
                       {"bayesnet nodes[0] field \"cpt\"", "an emission leaf has \"emissions\""}));
}

TEST(BayesNet, NetworksOverDifferentObservedVariablesHaveNoKernel) {
  // x1 has 3 symbols in kNaiveBayes and 2 here; an HMM of a different length; a Gaussian network.
  const Net other{{2, -1, {}, {{0.5, 0.5}}},
                  {2, 0, {0}, {{0.9, 0.1}, {0.2, 0.8}}},
                  {2, 1, {0}, {{0.5, 0.5}, {0.1, 0.9}}},
                  {2, 2, {0}, {{0.6, 0.4}, {0.25, 0.75}}}};
  const auto error = [](const Model& a, const Model& b) {
    try {
      check_compatible(a, b);
    } catch (const KernelDomainError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto naive_bayes = network_model(kNaiveBayes), mismatched = network_model(other);
  EXPECT_TRUE(mentions(
      error(*naive_bayes, *mismatched),
      {"bayesnet over tuples of (categories of dimension 2, categories of dimension 3, categories of dimension 2)",
       "bayesnet over sequences of 3 categories of dimension 2", "different sample spaces"}));
  const auto hmm = hmm_model(kTwoStates, 3);
  hmm->prepare(with_rho(1.0));
  const auto chain = network_model(hmm_as_network(kTwoStates, 2, false));
  EXPECT_TRUE(mentions(error(*hmm, *chain), {"hmm over sequences of 4 categories of dimension 3",
                                             "bayesnet over sequences of 3 categories of dimension 3"}));
  EXPECT_EQ(error(*network_model(hmm_as_network(kTwoStates, 3, false)), *hmm), "");
  // Another family over one variable's space: no kernel.
  EXPECT_TRUE(
      mentions(error(*network_model(hmm_as_network(kTwoStates, 0, false)), *one_event_multinomial({0.5, 0.2, 0.3})),
               {"bayesnet over sequences of 1 categories of dimension 3", "multinomial over categories"}));
}

// An emission leaf over K categories paired with a discrete node that has children enters through
// its powers log k_rho(p_c, delta_v); a leaf with too many of them to keep (260 parent
// configurations x 400 categories) has them made for each pair. Network a: u (20 states) and w (13
// states) -> x (an emission leaf over 400 symbols), u -> y (2 states); network b: x (400 states) -> y.
// Against k~ = sum_{x, y} [sum_{u, w} (P(u) P(w) p_uw(x) P(y | u))^rho] (P'(x) P'(y | x))^rho.
TEST(BayesNet, LargeEmissionLeavesMeetDiscreteNodesThroughPowersMadePerPair) {
  std::mt19937 rng(30000);
  const long first = 20, second = 13, symbols = 400;
  const Node u{first, -1, {}, {random_distribution(first, rng)}}, w{second, -1, {}, {random_distribution(second, rng)}};
  Node leaf{0, 0, {0, 1}, {}}, child{2, 1, {0}, {}};
  for (long c = 0; c < first * second; ++c) leaf.table.push_back(random_distribution(symbols, rng));
  for (long c = 0; c < first; ++c) child.table.push_back(random_distribution(2, rng));
  const Net a{u, w, leaf, child};
  Node x{symbols, 0, {}, {random_distribution(symbols, rng)}}, y{2, 1, {0}, {}};
  for (long v = 0; v < symbols; ++v) y.table.push_back(random_distribution(2, rng));
  const Net b{x, y};
  const auto at = [](const std::vector<double>& p, long i) { return p[static_cast<std::size_t>(i)]; };
  for (double rho : {0.5, 1.0}) {
    double expected = 0.0;
    for (long v = 0; v < symbols; ++v)
      for (long z = 0; z < 2; ++z) {
        double hidden = 0.0;
        for (long i = 0; i < first; ++i)
          for (long j = 0; j < second; ++j)
            hidden += std::pow(at(u.table[0], i) * at(w.table[0], j) *
                                   at(leaf.table[static_cast<std::size_t>(i * second + j)], v) *
                                   at(child.table[static_cast<std::size_t>(i)], z),
                               rho);
        expected += hidden * std::pow(at(x.table[0], v) * at(y.table[static_cast<std::size_t>(v)], z), rho);
      }
    EXPECT_LT(relative_error(model_kernel(a, b, rho), expected), 1e-12) << "rho " << rho;
    EXPECT_LT(relative_error(model_kernel(b, a, rho), expected), 1e-12) << "rho " << rho;
  }
}

// A network's emission leaf may be a mixture of networks, whose kernels run inside the outer
// network's (nested evaluations keep their own tables). Network a: h (2 states) -> x, x's emission
// for h = 0 the mixture 0.4 n_1 + 0.6 n_2, for h = 1 0.5 n_3 + 0.5 n_4; network b likewise with
// 0.3 n_2 + 0.7 n_4 and 0.8 n_1 + 0.2 n_3 (n_i chains x_0 -> x_1 over 2 states). Against
// k~ = sum_{h, h'} (P(h) P'(h'))^rho k(e_h, e'_h'), the mixtures' kernels evaluated on their own.
TEST(BayesNet, MixturesOfNetworksNestAsEmissionModels) {
  const Net inner[] = {{{2, 0, {}, {{0.3, 0.7}}}, {2, 1, {0}, {{0.9, 0.1}, {0.2, 0.8}}}},
                       {{2, 0, {}, {{0.6, 0.4}}}, {2, 1, {0}, {{0.5, 0.5}, {0.7, 0.3}}}},
                       {{2, 0, {}, {{0.1, 0.9}}}, {2, 1, {0}, {{0.4, 0.6}, {0.25, 0.75}}}},
                       {{2, 0, {}, {{0.8, 0.2}}}, {2, 1, {0}, {{0.35, 0.65}, {0.95, 0.05}}}}};
  const auto mixture = [&](double w, int first, int second) {
    std::vector<std::unique_ptr<Model>> components;
    components.push_back(network_model(inner[first]));
    components.push_back(network_model(inner[second]));
    return std::make_unique<MixtureModel>(std::vector<double>{w, 1.0 - w}, std::move(components));
  };
  struct Emissions {
    double weight[2];
    int first[2], second[2];
    std::vector<double> prior;
  };
  const Emissions a{{0.4, 0.5}, {0, 2}, {1, 3}, {0.35, 0.65}}, b{{0.3, 0.8}, {1, 0}, {3, 2}, {0.55, 0.45}};
  const auto outer = [&](const Emissions& e) {
    std::vector<BayesNode> nodes(2);
    nodes[0].states = 2;
    nodes[0].cpt = e.prior;
    nodes[1].variable = 0;
    nodes[1].parents = {0};
    for (int h = 0; h < 2; ++h) nodes[1].emissions.push_back(mixture(e.weight[h], e.first[h], e.second[h]));
    return std::make_unique<BayesNetModel>(std::move(nodes));
  };
  for (double rho : kRhos) {
    double expected = 0.0;
    for (int h = 0; h < 2; ++h)
      for (int g = 0; g < 2; ++g)
        expected += std::pow(a.prior[static_cast<std::size_t>(h)] * b.prior[static_cast<std::size_t>(g)], rho) *
                    kernel(PreparedModel(mixture(a.weight[h], a.first[h], a.second[h]), with_rho(rho)),
                           PreparedModel(mixture(b.weight[g], b.first[g], b.second[g]), with_rho(rho)));
    EXPECT_LT(
        relative_error(kernel(PreparedModel(outer(a), with_rho(rho)), PreparedModel(outer(b), with_rho(rho))), expected),
        1e-12)
        << "rho " << rho;
  }
}

TEST(BayesNet, MixtureEmissionsEnterThroughTheirComponentLabel) {
  // x0 is a discrete node with a child in the first network and an emission leaf whose model is a
  // mixture 0.3 (0.2, 0.8) + 0.7 (0.6, 0.4) in the second. The mixture's k~ (JMLR 2004 section 4.1)
  // treats its component label as hidden: the second network is the one with a hidden label node m.
  const Net parent_x0{{2, 0, {}, {{0.45, 0.55}}}, {2, 1, {0}, {{0.5, 0.5}, {0.1, 0.9}}}};
  const Net with_label{{2, -1, {}, {{0.3, 0.7}}}, {2, 0, {0}, {{0.2, 0.8}, {0.6, 0.4}}}, {2, 1, {}, {{0.35, 0.65}}}};
  const auto mixture_network = [] {
    std::vector<std::unique_ptr<Model>> components;
    components.push_back(one_event_multinomial({0.2, 0.8}));
    components.push_back(one_event_multinomial({0.6, 0.4}));
    std::vector<BayesNode> nodes(2);
    nodes[0].variable = 0;
    nodes[0].emissions.push_back(std::make_unique<MixtureModel>(std::vector<double>{0.3, 0.7}, std::move(components)));
    nodes[1].states = 2;
    nodes[1].variable = 1;
    nodes[1].cpt = {0.35, 0.65};
    return std::make_unique<BayesNetModel>(std::move(nodes));
  };
  for (double rho : kRhos) {
    const PreparedModel mixture(mixture_network(), with_rho(rho)), discrete(network_model(parent_x0), with_rho(rho));
    EXPECT_LT(relative_error(kernel(discrete, mixture), brute_force_kernel(parent_x0, with_label, rho)), 1e-10)
        << "rho " << rho;
    EXPECT_LT(relative_error(kernel(mixture, mixture), brute_force_kernel(with_label, with_label, rho)), 1e-10)
        << "rho " << rho;
  }
}

// A network with one hidden node h of K states and an emission leaf x_0 | h: K models, one per state.
std::unique_ptr<BayesNetModel> leaf_network(long states, const std::function<std::unique_ptr<Model>()>& emission) {
  std::vector<BayesNode> nodes(2);
  nodes[0].states = states;
  nodes[0].cpt.assign(static_cast<std::size_t>(states), 1.0 / static_cast<double>(states));
  nodes[1].variable = 0;
  nodes[1].parents = {0};
  for (long c = 0; c < states; ++c) nodes[1].emissions.push_back(emission());
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

// Two networks' emission leaves of one observed variable meet in psi, one kernel per pair of parent
// configurations, C x C': psi is a table of the elimination, held to its 10^7 entries before any of its
// kernels is computed. Two hidden parents of 317 states (C = 100489 Gaussians, a row of a few MB) asked
// for 10^10 kernels and 80 GB for the self-kernel alone; 3163 hidden states exceed the table by a little.
TEST(BayesNet, EmissionKernelTablesAreBoundedBeforeTheyAreComputed) {
  const auto self_kernel_error = [](std::unique_ptr<BayesNetModel> model) {
    return checks::error_message<KernelDomainError>(
        [&] { const PreparedModel prepared(std::move(model), with_rho(1.0)); });
  };
  const std::vector<double> parent(317, 1.0 / 317);
  Net two_parents{{317, -1, {}, {parent}}, {317, -1, {}, {parent}}, {0, 0, {0, 1}, {}}};
  for (long c = 0; c < 317 * 317; ++c) two_parents[2].table.push_back({static_cast<double>(c % 7), 1.0});
  EXPECT_TRUE(mentions(self_kernel_error(network_model(two_parents, gaussian_1d)),
                       {"bayesnet kernel on the fused networks: observed variable 0 pairs 100489 x 100489 models (one "
                        "per parent configuration), a table of 10098039121 emission kernels, beyond the limit of "
                        "10000000",
                        "fewer parent configurations"}));
  const auto gaussian = [] { return gaussian_1d({0.0, 1.0}); };
  EXPECT_TRUE(mentions(self_kernel_error(leaf_network(3163, gaussian)), {"pairs 3163 x 3163 models", "10004569"}));
}

// The leaf's kernels also count toward the row's kernel work, K (K + W) for K models of summed work W:
// Monte Carlo models around a full Gaussian in D = 100 cost 10^5 draws x D^2 = 10^9 each, so 31 of them
// are within 10^12 (961 (1 + 10^9)) and 32 are not (1024 (1 + 10^9)).
TEST(BayesNet, EmissionKernelsCountTowardTheKernelWork) {
  const auto monte_carlo = [] {
    return std::make_unique<MonteCarloModel>(
        GaussianModel::full(Eigen::VectorXd::Zero(100), Eigen::MatrixXd::Identity(100, 100)), 1);
  };
  const auto within = leaf_network(31, monte_carlo);
  EXPECT_EQ(checks::prepare_error(*within, with_rho(1.0)), "");
  EXPECT_EQ(within->kernel_work(), 961.0 * (1.0 + 1e9));
  EXPECT_TRUE(mentions(checks::prepare_error(*leaf_network(32, monte_carlo), with_rho(1.0)),
                       {"bayesnet kernel: the emission leaves' C x C' kernels (C their parent configurations) = "
                        "1024000001024 multiply-adds per kernel evaluation, more than the 1e+12 one row may claim",
                        "give the emission leaves fewer parent configurations or smaller models"}));
}

}  // namespace
}  // namespace ppk
