// Random discrete HMMs for the benchmarks: every probability drawn uniformly from [0.05, 1) and
// normalised, so that no state, transition or symbol is negligible.
#pragma once

#include <memory>
#include <random>
#include <vector>

#include <Eigen/Core>

#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"

namespace bench {

inline Eigen::VectorXd random_probabilities(long size, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Eigen::VectorXd p(size);
  for (long i = 0; i < size; ++i) p[i] = uniform(rng);
  return p / p.sum();
}

struct RandomHmm {
  Eigen::VectorXd start;
  Eigen::MatrixXd transitions;
  Eigen::MatrixXd emissions;  // M x alphabet, rows summing to 1
};

inline RandomHmm random_hmm(long states, long alphabet, std::mt19937& rng) {
  RandomHmm h{random_probabilities(states, rng), Eigen::MatrixXd(states, states), Eigen::MatrixXd(states, alphabet)};
  for (long q = 0; q < states; ++q) {
    h.transitions.row(q) = random_probabilities(states, rng).transpose();
    h.emissions.row(q) = random_probabilities(alphabet, rng).transpose();
  }
  return h;
}

inline std::unique_ptr<ppk::Model> as_model(const RandomHmm& h, long length) {
  std::vector<std::unique_ptr<ppk::Model>> emissions;
  for (Eigen::Index q = 0; q < h.emissions.rows(); ++q) {
    const Eigen::VectorXd row = h.emissions.row(q).transpose();
    emissions.push_back(std::make_unique<ppk::MultinomialModel>(
        ppk::SparseProbabilities::from_dense(std::vector<double>(row.data(), row.data() + row.size())), ppk::Trials{}));
  }
  return std::make_unique<ppk::HmmModel>(h.start, h.transitions, std::move(emissions), length);
}

}  // namespace bench
