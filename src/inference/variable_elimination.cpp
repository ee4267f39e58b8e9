// Variable elimination over discrete factors in log space (see variable_elimination.hpp).
#include "ppk/inference/variable_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/model_fields.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

namespace {
constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
}  // namespace

Factor factor_on(const std::vector<int>& variables, std::vector<double> table, const std::vector<long>& states) {
  std::vector<int> distinct;
  std::vector<std::size_t> position(variables.size());  // of each listed variable among the distinct ones
  for (std::size_t p = 0; p < variables.size(); ++p) {
    const auto found = std::find(distinct.begin(), distinct.end(), variables[p]);
    position[p] = static_cast<std::size_t>(found - distinct.begin());
    if (found == distinct.end()) distinct.push_back(variables[p]);
  }
  if (distinct.size() == variables.size()) return {variables, std::move(table)};
  long size = 1;
  for (int v : distinct) size *= states[static_cast<std::size_t>(v)];
  std::vector<double> diagonal(static_cast<std::size_t>(size));
  std::vector<long> digit(distinct.size());
  for (long e = 0; e < size; ++e) {
    long rest = e;
    for (std::size_t u = distinct.size(); u-- > 0;) {
      digit[u] = rest % states[static_cast<std::size_t>(distinct[u])];
      rest /= states[static_cast<std::size_t>(distinct[u])];
    }
    long source = 0;
    for (std::size_t p = 0; p < variables.size(); ++p)
      source = source * states[static_cast<std::size_t>(variables[p])] + digit[position[p]];
    diagonal[static_cast<std::size_t>(e)] = table[static_cast<std::size_t>(source)];
  }
  return {std::move(distinct), std::move(diagonal)};
}

namespace {

// log sum over `variable` of the product of `factors` (each containing it): a factor over the other
// variables of theirs. A sum with an empty term (log -inf) plus an overflowing one is -inf: a
// configuration of probability 0 contributes nothing.
Factor multiply_and_sum_out(const std::vector<Factor>& factors, int variable, const std::vector<long>& states,
                            long max_table) {
  std::vector<int> all;
  for (const Factor& f : factors)
    for (int v : f.variables)
      if (v != variable && std::find(all.begin(), all.end(), v) == all.end()) all.push_back(v);
  all.push_back(variable);  // the last, fastest: each block of K consecutive entries is summed
  double size = 1.0;
  for (int v : all) size *= static_cast<double>(states[static_cast<std::size_t>(v)]);
  if (size > static_cast<double>(max_table))
    throw KernelDomainError("exact elimination needs a table of " + detail::format_number(size) + " entries (over " +
                            std::to_string(all.size()) + " variables), beyond the limit of " + std::to_string(max_table));
  const std::size_t width = all.size(), count = factors.size();
  // stride[f * width + u]: how far factor f's index moves when variable all[u] steps by one.
  std::vector<long> stride(count * width, 0);
  for (std::size_t f = 0; f < count; ++f) {
    long step = 1;
    const std::vector<int>& vars = factors[f].variables;
    for (std::size_t p = vars.size(); p-- > 0;) {
      const auto u = static_cast<std::size_t>(std::find(all.begin(), all.end(), vars[p]) - all.begin());
      stride[f * width + u] = step;
      step *= states[static_cast<std::size_t>(vars[p])];
    }
  }
  const long states_summed = states[static_cast<std::size_t>(variable)];
  const long blocks = static_cast<long>(size) / states_summed;
  Factor result{std::vector<int>(all.begin(), all.end() - 1), std::vector<double>(static_cast<std::size_t>(blocks))};
  std::vector<long> digit(width, 0), offset(count, 0);
  std::vector<double> block(static_cast<std::size_t>(states_summed));
  for (long b = 0; b < blocks; ++b) {
    double largest = kMinusInfinity;
    for (long k = 0; k < states_summed; ++k) {
      double term = 0.0;
      for (std::size_t f = 0; f < count; ++f) term += factors[f].log_values[static_cast<std::size_t>(offset[f])];
      if (std::isnan(term)) term = kMinusInfinity;  // -inf + inf
      block[static_cast<std::size_t>(k)] = term;
      largest = std::max(largest, term);
      // The next assignment of `all`, the last variable fastest.
      for (std::size_t u = width; u-- > 0;) {
        const long limit = states[static_cast<std::size_t>(all[u])];
        for (std::size_t f = 0; f < count; ++f) offset[f] += stride[f * width + u];
        if (++digit[u] < limit) break;
        for (std::size_t f = 0; f < count; ++f) offset[f] -= limit * stride[f * width + u];
        digit[u] = 0;
      }
    }
    double value = largest;
    if (std::isfinite(largest)) {
      double sum = 0.0;
      for (double term : block) sum += std::exp(term - largest);
      value = largest + std::log(sum);
    }
    result.log_values[static_cast<std::size_t>(b)] = value;
  }
  return result;
}

}  // namespace

double eliminate_all(const std::vector<long>& states, std::vector<Factor> factors, long max_table) {
  const std::size_t count = states.size();
  std::vector<std::set<int>> adjacent(count);
  for (const Factor& f : factors)
    for (int u : f.variables)
      for (int w : f.variables)
        if (u != w) adjacent[static_cast<std::size_t>(u)].insert(w);
  // factors_of[x]: the factors that contain x (those already multiplied into another are `used`).
  std::vector<std::vector<std::size_t>> factors_of(count);
  std::vector<char> used(factors.size(), 0);
  double log_constant = 0.0;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    for (int v : factors[f].variables) factors_of[static_cast<std::size_t>(v)].push_back(f);
    if (factors[f].variables.empty()) log_constant += factors[f].log_values[0];  // a factor without variables
  }
  std::vector<char> eliminated(count, 0), stale(count, 1);
  std::vector<long> fill(count, 0);
  std::vector<double> weight(count, 0.0), log_states(count);
  for (std::size_t x = 0; x < count; ++x) log_states[x] = std::log(static_cast<double>(states[x]));
  const auto score = [&](std::size_t x) {
    const std::set<int>& around = adjacent[x];
    long missing = 0;
    double log_table = log_states[x];
    for (auto u = around.begin(); u != around.end(); ++u) {
      log_table += log_states[static_cast<std::size_t>(*u)];
      for (auto w = std::next(u); w != around.end(); ++w)
        if (!adjacent[static_cast<std::size_t>(*u)].count(*w)) ++missing;
    }
    fill[x] = missing;
    weight[x] = log_table;
    stale[x] = 0;
  };
  for (std::size_t step = 0; step < count; ++step) {
    std::size_t best = count;
    for (std::size_t x = 0; x < count; ++x) {
      if (eliminated[x]) continue;
      if (stale[x]) score(x);
      if (best == count || fill[x] < fill[best] || (fill[x] == fill[best] && weight[x] < weight[best])) best = x;
    }
    const int variable = static_cast<int>(best);
    std::vector<Factor> touching;
    for (std::size_t f : factors_of[best])
      if (!used[f]) {
        used[f] = 1;
        touching.push_back(std::move(factors[f]));
      }
    Factor summed = multiply_and_sum_out(touching, variable, states, max_table);
    if (summed.variables.empty()) {
      log_constant += summed.log_values[0];
    } else {
      for (int v : summed.variables) factors_of[static_cast<std::size_t>(v)].push_back(factors.size());
      factors.push_back(std::move(summed));
      used.push_back(0);
    }
    // The neighbours become a clique; their scores and their neighbours' scores change.
    eliminated[best] = 1;
    const std::set<int> around = std::move(adjacent[best]);
    for (int u : around) {
      std::set<int>& links = adjacent[static_cast<std::size_t>(u)];
      links.erase(variable);
      for (int w : around)
        if (w != u) links.insert(w);
    }
    for (int u : around) {
      stale[static_cast<std::size_t>(u)] = 1;
      for (int w : adjacent[static_cast<std::size_t>(u)]) stale[static_cast<std::size_t>(w)] = 1;
    }
  }
  return std::isnan(log_constant) ? kMinusInfinity : log_constant;
}

}  // namespace ppk
