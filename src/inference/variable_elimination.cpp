// Variable elimination over discrete factors (see variable_elimination.hpp): the plan, then its runs.
#include "ppk/inference/variable_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
constexpr double kLn2 = 0.6931471805599453094;
// A step is computed in linear arithmetic when the product of its tables' smallest positive entries
// stays above 2^-kSafeExponent and the sum of the products of their largest below 2^kSafeExponent:
// no term rounds to 0 or to a subnormal, none overflows.
constexpr int kSafeExponent = 960;
// A table is held in linear arithmetic only while its smallest positive entry is at least
// 2^-kLinearRange times its largest.
constexpr int kLinearRange = 1000;
// A step's result carries bounds on its entries' binary exponents (from its tables' bounds), not
// their exact range: the range is computed (and the table rescaled by a power of two, exactly) only
// when a bound leaves [-kTighten, kTighten], or when the bounds make a step unsafe.
constexpr int kTighten = 400;
// The largest log value of a table held in linear arithmetic (its binary exponent then fits a long
// with room for the sums of many).
constexpr double kMaxLogScale = 1e12;
// The most entries of one index array a plan keeps (for a table read in another layout).
constexpr long kMaxIndexed = 1L << 20;

// The smallest b with 2^b >= size (a sum of `size` terms each below 2^e is below 2^(e + b)).
int exponent_bound(long size) {
  int bits = 0;
  while ((1L << bits) < size && bits < 62) ++bits;
  return bits;
}

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

// How a table of logs is held: its range (the largest and smallest finite log, whether every log is
// finite or -inf), whether every value is 0, and whether it is held in linear arithmetic (nothing
// below 2^-kLinearRange of the largest, nothing infinite or NaN).
struct LogRange {
  double top = kMinusInfinity, bottom = std::numeric_limits<double>::infinity();
  bool finite = true, zero = false, linear = false;
};

LogRange range_of(const double* logs, std::size_t size) {
  LogRange range;
  for (std::size_t e = 0; e < size; ++e) {
    const double l = logs[e];
    if (std::isnan(l) || l == std::numeric_limits<double>::infinity()) range.finite = false;
    if (std::isfinite(l)) {
      range.top = std::max(range.top, l);
      range.bottom = std::min(range.bottom, l);
    }
  }
  range.zero = range.finite && range.top == kMinusInfinity;
  range.linear = range.finite && !range.zero && range.top - range.bottom < kLinearRange * kLn2 &&
                 std::fabs(range.top) < kMaxLogScale;
  return range;
}

// values[e] = exp(logs[e]) 2^-exponent, exponent such that 2^exponent <= exp(top) < 2^(exponent + 1)
// (the largest value is in [1, 2)); sets the binary exponents of the largest and smallest positive value.
void scale(const double* logs, std::size_t size, double top, double* values, long& exponent, int& largest,
           int& smallest) {
  exponent = static_cast<long>(std::floor(top / kLn2));
  const double shift = static_cast<double>(exponent) * kLn2;
  double value_top = 0.0, value_bottom = std::numeric_limits<double>::infinity();
  for (std::size_t e = 0; e < size; ++e) {
    const double v = values[e] = std::exp(logs[e] - shift);  // exp(-inf) = 0
    value_top = std::max(value_top, v);
    if (v > 0.0) value_bottom = std::min(value_bottom, v);
  }
  largest = std::ilogb(value_top);
  smallest = std::ilogb(value_bottom);
}

}  // namespace

void ScaledTable::assign(const double* logs, std::size_t size) {
  log_values.assign(logs, logs + size);
  const LogRange range = range_of(logs, size);
  zero = range.zero;
  linear = range.linear;
  values.clear();
  exponent = 0;
  largest = smallest = 0;
  if (!linear) return;
  values.resize(size);
  scale(logs, size, range.top, values.data(), exponent, largest, smallest);
}

// ---- The plan ----

struct EliminationPlan::Steps {
  // What each step multiplies before it sums: a table (a slot: an input factor or an earlier step's
  // result) times the tables absorbed into it, whose scopes are subsets of its scope; their entries
  // are read through `gather` (target entry e -> source entry gather[e]) unless the scopes agree.
  struct Absorbed {
    int slot = 0;
    std::vector<int> gather;  // empty: the same scope in the same order (entry for entry)
  };
  struct Part {
    int slot = 0;
    std::vector<Absorbed> absorbed;
    long product = -1;             // arena offset of the part's product with its absorbed tables (-1: none)
    std::vector<int> permutation;  // contract: entry e of the eliminated-variable-first layout <- this entry
    long permuted = -1;            // arena offset of that layout (-1: not needed)
    bool variable_first = true;    // contract: whether the eliminated variable leads the part's layout
    long rest = 1;                 // the product of the states of the part's other variables
  };
  enum class Kind {
    constant,  // no factor holds the variable: its sum is log K
    sum,       // one table (after absorption): sum over the variable, the layout (outer, K, inner)
    contract,  // two tables sharing only the variable: out(A, B) = sum_x F(x, A) G(x, B), a matrix product
    general    // anything else: the product of every table over the union of their variables, summed
  };
  struct Step {
    Kind kind = Kind::constant;
    long states = 1;  // K, the eliminated variable's states
    std::vector<int> touching;
    int output = 0;  // the slot of the result (a scalar when its scope is empty)
    std::vector<Part> parts;
    long outer = 1, inner = 1;  // sum
    // general, and every step computed on logs: over all = (the output's scope, the variable), the
    // variable fastest, strides[t * width + u] is how far touching table t's entry moves when all[u]
    // steps by one.
    std::vector<long> all_states;
    std::vector<long> strides;
  };

  std::vector<long> states;
  std::size_t inputs = 0;
  std::vector<std::vector<int>> scopes;     // per slot, distinct variables
  std::vector<long> sizes;                  // per slot
  std::vector<std::vector<int>> diagonals;  // per input: entry e <- the given table's entry (empty: as given)
  std::vector<long> offsets;                // per slot: its values in the arena and its logs in the log arena (-1: none)
  long arena = 0;
  std::vector<Step> steps;

  long size_of(const std::vector<int>& scope) const {
    long size = 1;
    for (int v : scope) size *= states[static_cast<std::size_t>(v)];
    return size;
  }
  // A slot over `scope`, with a buffer of the arena when `stored` (earlier results and inputs read
  // on their diagonal; other inputs are read where they are).
  int add_slot(std::vector<int> scope, bool stored) {
    sizes.push_back(size_of(scope));
    scopes.push_back(std::move(scope));
    offsets.push_back(stored ? take(sizes.back()) : -1);
    return static_cast<int>(scopes.size() - 1);
  }
  // The arena's blocks: a step's buffers are taken from the free ones (the first that fits), and
  // given back once no later step reads them, so the arena is the most that is ever live at once.
  std::vector<std::pair<long, long>> free_blocks;  // (offset, size), in offset order, none adjacent
  long take(long size) {
    for (auto it = free_blocks.begin(); it != free_blocks.end(); ++it)
      if (it->second >= size) {
        const long offset = it->first;
        it->first += size;
        it->second -= size;
        if (it->second == 0) free_blocks.erase(it);
        return offset;
      }
    arena += size;
    return arena - size;
  }
  void give(long offset, long size) {
    if (size == 0) return;
    auto it = std::lower_bound(free_blocks.begin(), free_blocks.end(), std::make_pair(offset, size));
    it = free_blocks.insert(it, {offset, size});
    if (std::next(it) != free_blocks.end() && it->first + it->second == std::next(it)->first) {
      it->second += std::next(it)->second;
      free_blocks.erase(std::next(it));
    }
    if (it != free_blocks.begin() && std::prev(it)->first + std::prev(it)->second == it->first) {
      std::prev(it)->second += it->second;
      free_blocks.erase(it);
    }
  }
  // For each entry of a table over `target` (row-major), the entry of a table over `source` at the
  // same assignment (`source`'s variables all in `target`).
  std::vector<int> gather(const std::vector<int>& target, const std::vector<int>& source) const {
    std::vector<long> stride(target.size(), 0);  // how far source's entry moves per step of target's variable
    long step = 1;
    for (std::size_t p = source.size(); p-- > 0;) {
      const auto u = static_cast<std::size_t>(std::find(target.begin(), target.end(), source[p]) - target.begin());
      stride[u] = step;
      step *= states[static_cast<std::size_t>(source[p])];
    }
    std::vector<int> index(static_cast<std::size_t>(size_of(target)));
    std::vector<long> digit(target.size(), 0);
    long at = 0;
    for (std::size_t e = 0; e < index.size(); ++e) {
      index[e] = static_cast<int>(at);
      for (std::size_t u = target.size(); u-- > 0;) {
        const long limit = states[static_cast<std::size_t>(target[u])];
        at += stride[u];
        if (++digit[u] < limit) break;
        at -= limit * stride[u];
        digit[u] = 0;
      }
    }
    return index;
  }
  void plan_step(Step& step, int variable, const std::vector<int>& all_rest, long max_table);
};

namespace {

bool contains_all(const std::vector<int>& outer, const std::vector<int>& inner) {
  return std::all_of(inner.begin(), inner.end(),
                     [&](int v) { return std::find(outer.begin(), outer.end(), v) != outer.end(); });
}

std::vector<int> without(const std::vector<int>& scope, int variable) {
  std::vector<int> rest;
  for (int v : scope)
    if (v != variable) rest.push_back(v);
  return rest;
}

}  // namespace

// How a step is computed (its kind, the tables it absorbs, its layouts) and its result's slot.
// all_rest: the variables of the touching tables but the eliminated one, in order of appearance.
void EliminationPlan::Steps::plan_step(Step& step, int variable, const std::vector<int>& all_rest, long max_table) {
  const long k = states[static_cast<std::size_t>(variable)];
  step.states = k;
  double size = static_cast<double>(k);
  for (int v : all_rest) size *= static_cast<double>(states[static_cast<std::size_t>(v)]);
  if (size > static_cast<double>(max_table))
    throw KernelDomainError("exact elimination needs a table of " + detail::format_number(size) + " entries (over " +
                            std::to_string(all_rest.size() + 1) + " variables), beyond the limit of " +
                            std::to_string(max_table));
  // The tables not contained in another (the largest first; of equal sizes the latest slot, an
  // earlier step's result before the factors it meets, so that a chain's results keep one layout:
  // out(A, B) below takes A from the result), and which of them each of the others is absorbed into.
  std::vector<int> order = step.touching;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : a > b; });
  std::vector<Part> parts;
  for (int slot : order) {
    auto target = std::find_if(parts.begin(), parts.end(),
                               [&](const Part& part) { return contains_all(scopes[part.slot], scopes[slot]); });
    if (target == parts.end())
      parts.push_back(Part{slot, {}, -1, {}, -1, true, 1});
    else
      target->absorbed.push_back(Absorbed{slot, {}});
  }
  const auto disjoint_rests = [&] {
    const std::vector<int> a = without(scopes[parts[0].slot], variable), b = without(scopes[parts[1].slot], variable);
    return std::none_of(a.begin(), a.end(), [&](int v) { return std::find(b.begin(), b.end(), v) != b.end(); });
  };
  const auto leads_or_ends = [&](const Part& part) {
    return scopes[part.slot].front() == variable || scopes[part.slot].back() == variable;
  };
  // The index arrays a step would keep (absorptions of other layouts, contractions' permutations)
  // are held to kMaxIndexed entries each; a step that would need more is a general one.
  const auto indexed = [&] {
    for (const Part& part : parts) {
      const bool gathers = std::any_of(part.absorbed.begin(), part.absorbed.end(),
                                       [&](const Absorbed& a) { return scopes[a.slot] != scopes[part.slot]; });
      if ((gathers || (parts.size() == 2 && !leads_or_ends(part))) && sizes[part.slot] > kMaxIndexed) return false;
    }
    return true;
  };
  if (parts.empty())
    step.kind = Kind::constant;
  else if (parts.size() == 1 && indexed())
    step.kind = Kind::sum;
  else if (parts.size() == 2 && disjoint_rests() && indexed())
    step.kind = Kind::contract;
  else
    step.kind = Kind::general;
  std::vector<int> output_scope;
  std::vector<std::pair<long, long>> scratch;  // the step's own buffers (offset, size), free after it
  if (step.kind == Kind::sum || step.kind == Kind::contract) {
    for (Part& part : parts) {
      for (Absorbed& absorbed : part.absorbed)
        if (scopes[absorbed.slot] != scopes[part.slot])
          absorbed.gather = gather(scopes[part.slot], scopes[absorbed.slot]);
      if (!part.absorbed.empty()) scratch.emplace_back(part.product = take(sizes[part.slot]), sizes[part.slot]);
      const std::vector<int>& scope = scopes[part.slot];
      const std::vector<int> rest = without(scope, variable);
      if (step.kind == Kind::sum) {
        const auto at = static_cast<std::size_t>(std::find(scope.begin(), scope.end(), variable) - scope.begin());
        for (std::size_t p = 0; p < scope.size(); ++p)
          if (p != at) (p < at ? step.outer : step.inner) *= states[static_cast<std::size_t>(scope[p])];
      } else {
        part.rest = size_of(rest);
        part.variable_first = scope.front() == variable;
        if (!leads_or_ends(part)) {  // laid out again: the eliminated variable first, the others in order
          std::vector<int> leading{variable};
          leading.insert(leading.end(), rest.begin(), rest.end());
          part.permutation = gather(leading, scope);
          scratch.emplace_back(part.permuted = take(sizes[part.slot]), sizes[part.slot]);
          part.variable_first = true;
        }
      }
      output_scope.insert(output_scope.end(), rest.begin(), rest.end());
    }
    step.parts = std::move(parts);
  } else if (step.kind == Kind::general) {
    output_scope = all_rest;
  }
  // The strides of every touching table over (output scope, variable), for the general kind and for
  // steps on logs.
  std::vector<int> all = output_scope;
  all.push_back(variable);
  const std::size_t width = all.size();
  for (int v : all) step.all_states.push_back(states[static_cast<std::size_t>(v)]);
  step.strides.assign(step.touching.size() * width, 0);
  for (std::size_t t = 0; t < step.touching.size(); ++t) {
    const std::vector<int>& scope = scopes[static_cast<std::size_t>(step.touching[t])];
    long stride = 1;
    for (std::size_t p = scope.size(); p-- > 0;) {
      const auto u = static_cast<std::size_t>(std::find(all.begin(), all.end(), scope[p]) - all.begin());
      step.strides[t * width + u] = stride;
      stride *= states[static_cast<std::size_t>(scope[p])];
    }
  }
  // The result's buffer, taken while the step's tables still hold theirs; then theirs are free
  // (each table enters one step), and so is the step's scratch.
  step.output = add_slot(std::move(output_scope), true);
  for (int slot : step.touching)
    if (offsets[static_cast<std::size_t>(slot)] >= 0) give(offsets[static_cast<std::size_t>(slot)], sizes[slot]);
  for (const auto& [offset, length] : scratch) give(offset, length);
}

EliminationPlan::EliminationPlan(std::vector<long> states, const std::vector<std::vector<int>>& scopes, long max_table)
    : steps_(std::make_unique<Steps>()) {
  Steps& plan = *steps_;
  plan.states = std::move(states);
  plan.inputs = scopes.size();
  for (const std::vector<int>& listed : scopes) {
    std::vector<int> distinct;
    for (int v : listed)
      if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
    // The diagonal (factor_on): entry e of the distinct scope's table <- the listed table's entry.
    std::vector<int> diagonal;
    if (distinct.size() != listed.size()) {
      const std::vector<double> index = factor_on(
                                            listed,
                                            [&] {
                                              std::vector<double> entries(static_cast<std::size_t>(plan.size_of(listed)));
                                              for (std::size_t e = 0; e < entries.size(); ++e)
                                                entries[e] = static_cast<double>(e);
                                              return entries;
                                            }(),
                                            plan.states)
                                            .log_values;
      diagonal.assign(index.begin(), index.end());
    }
    const bool stored = !diagonal.empty();
    plan.diagonals.push_back(std::move(diagonal));
    plan.add_slot(std::move(distinct), stored);
  }

  // The order (greedy min-fill) and each step's tables.
  const std::size_t count = plan.states.size();
  std::vector<std::set<int>> adjacent(count);
  for (std::size_t f = 0; f < plan.inputs; ++f)
    for (int u : plan.scopes[f])
      for (int w : plan.scopes[f])
        if (u != w) adjacent[static_cast<std::size_t>(u)].insert(w);
  // factors_of[x]: the slots that contain x (those already multiplied into another are `used`).
  std::vector<std::vector<int>> factors_of(count);
  std::vector<char> used(plan.inputs, 0);
  for (std::size_t f = 0; f < plan.inputs; ++f)
    for (int v : plan.scopes[f]) factors_of[static_cast<std::size_t>(v)].push_back(static_cast<int>(f));
  std::vector<char> eliminated(count, 0), stale(count, 1);
  std::vector<long> fill(count, 0);
  std::vector<double> weight(count, 0.0), log_states(count);
  for (std::size_t x = 0; x < count; ++x) log_states[x] = std::log(static_cast<double>(plan.states[x]));
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
  for (std::size_t done = 0; done < count; ++done) {
    std::size_t best = count;
    for (std::size_t x = 0; x < count; ++x) {
      if (eliminated[x]) continue;
      if (stale[x]) score(x);
      if (best == count || fill[x] < fill[best] || (fill[x] == fill[best] && weight[x] < weight[best])) best = x;
    }
    const int variable = static_cast<int>(best);
    Steps::Step step;
    std::vector<int> all_rest;
    for (int slot : factors_of[best])
      if (!used[static_cast<std::size_t>(slot)]) {
        used[static_cast<std::size_t>(slot)] = 1;
        step.touching.push_back(slot);
        for (int v : plan.scopes[static_cast<std::size_t>(slot)])
          if (v != variable && std::find(all_rest.begin(), all_rest.end(), v) == all_rest.end()) all_rest.push_back(v);
      }
    plan.plan_step(step, variable, all_rest, max_table);
    for (int v : plan.scopes[static_cast<std::size_t>(step.output)])
      factors_of[static_cast<std::size_t>(v)].push_back(step.output);
    used.push_back(0);
    plan.steps.push_back(std::move(step));
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
}

EliminationPlan::~EliminationPlan() = default;
EliminationPlan::EliminationPlan(EliminationPlan&&) noexcept = default;
EliminationPlan& EliminationPlan::operator=(EliminationPlan&&) noexcept = default;

std::size_t EliminationPlan::factors() const { return steps_->inputs; }

// ---- Running the plan ----

namespace {

// A slot's table during a run: linear values times 2^exponent, or log values.
struct Table {
  const double* values = nullptr;  // linear
  const double* logs = nullptr;    // set when computed on logs, or once converted for a step on logs
  long exponent = 0;
  int largest = 0, smallest = 0;  // binary exponents of the largest and smallest positive value (linear)
  bool linear = false;
};

// A run's scratch, per thread, reused: the arena holds every slot's linear values and the steps'
// products, the log arena every slot's logs (written only by steps on logs).
struct Scratch {
  std::vector<double> arena, log_arena;
  std::vector<Table> tables;
};

// The sum over the variable, the last of `all`, of the product of the tables (general and log steps):
// over all = (the output's variables, the variable), each block of K consecutive assignments summed.
template <bool kLogs>
void multiply_and_sum(const std::vector<const double*>& tables, const std::vector<long>& strides,
                      const std::vector<long>& all_states, double* out) {
  const std::size_t width = all_states.size(), count = tables.size();
  const long k = all_states.back();
  long blocks = 1;
  for (std::size_t u = 0; u + 1 < width; ++u) blocks *= all_states[u];
  thread_local std::vector<long> digit, offset;
  thread_local std::vector<double> block;
  digit.assign(width, 0);
  offset.assign(count, 0);
  block.resize(static_cast<std::size_t>(k));
  for (long b = 0; b < blocks; ++b) {
    double largest = kMinusInfinity, sum = 0.0;
    for (long s = 0; s < k; ++s) {
      double term = kLogs ? 0.0 : 1.0;
      for (std::size_t f = 0; f < count; ++f) {
        if (kLogs)
          term += tables[f][offset[f]];
        else
          term *= tables[f][offset[f]];
      }
      if (kLogs) {
        if (std::isnan(term)) term = kMinusInfinity;  // -inf + inf
        block[static_cast<std::size_t>(s)] = term;
        largest = std::max(largest, term);
      } else {
        sum += term;
      }
      // The next assignment of `all`, the last variable fastest.
      for (std::size_t u = width; u-- > 0;) {
        const long limit = all_states[u];
        for (std::size_t f = 0; f < count; ++f) offset[f] += strides[f * width + u];
        if (++digit[u] < limit) break;
        for (std::size_t f = 0; f < count; ++f) offset[f] -= limit * strides[f * width + u];
        digit[u] = 0;
      }
    }
    if (kLogs) {
      sum = largest;
      if (std::isfinite(largest)) {
        double total = 0.0;
        for (double term : block) total += std::exp(term - largest);
        sum = largest + std::log(total);
      }
    }
    out[b] = sum;
  }
}

// The binary exponent of a positive normal double (what std::ilogb gives, without the call): every
// positive entry of a table computed in linear arithmetic is at least 2^-kSafeExponent.
int binary_exponent(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<int>((bits >> 52) & 0x7ff) - 1023;
}

// out(A, B) = sum_x F(x, A) G(x, B), row-major over (A, B): F a K x A table (variable first) or an
// A x K one, G likewise. K, A and B fixed at compile time (the states of small HMMs' chains) or dynamic.
template <int K, int A, int B>
void contract(const double* f, bool f_first, const double* g, bool g_first, long k, long a, long b, double* out) {
  using Out = Eigen::Matrix<double, A, B, Eigen::RowMajor>;
  using FirstF = Eigen::Matrix<double, K, A, Eigen::RowMajor>;
  using LastF = Eigen::Matrix<double, A, K, Eigen::RowMajor>;
  using FirstG = Eigen::Matrix<double, K, B, Eigen::RowMajor>;
  using LastG = Eigen::Matrix<double, B, K, Eigen::RowMajor>;
  Eigen::Map<Out> product(out, a, b);
  if (K != Eigen::Dynamic && !g_first) {
    // Small fixed sizes: G laid out K x B first, so that each row of the product is a sum of G's
    // rows (vectorised) rather than a dot product per entry (a chain of dependent additions).
    const FirstG rows = Eigen::Map<const LastG>(g, b, k).transpose();
    return contract<K, A, B>(f, f_first, rows.data(), true, k, a, b, out);
  }
  if (f_first && g_first)
    product.noalias() = Eigen::Map<const FirstF>(f, k, a).transpose() * Eigen::Map<const FirstG>(g, k, b);
  else if (f_first)
    product.noalias() = Eigen::Map<const FirstF>(f, k, a).transpose() * Eigen::Map<const LastG>(g, b, k).transpose();
  else if (g_first)
    product.noalias() = Eigen::Map<const LastF>(f, a, k) * Eigen::Map<const FirstG>(g, k, b);
  else
    product.noalias() = Eigen::Map<const LastF>(f, a, k) * Eigen::Map<const LastG>(g, b, k).transpose();
}

void contract(const double* f, bool f_first, const double* g, bool g_first, long k, long a, long b, double* out) {
  if (k == a && k == b) switch (k) {
      case 2: return contract<2, 2, 2>(f, f_first, g, g_first, k, a, b, out);
      case 3: return contract<3, 3, 3>(f, f_first, g, g_first, k, a, b, out);
      case 4: return contract<4, 4, 4>(f, f_first, g, g_first, k, a, b, out);
      default: break;
    }
  contract<Eigen::Dynamic, Eigen::Dynamic, Eigen::Dynamic>(f, f_first, g, g_first, k, a, b, out);
}

}  // namespace

double EliminationPlan::log_sum(const ScaledTable* const* tables) const {
  const Steps& plan = *steps_;
  thread_local Scratch scratch;
  if (scratch.arena.size() < static_cast<std::size_t>(plan.arena))
    scratch.arena.resize(static_cast<std::size_t>(plan.arena));
  scratch.tables.assign(plan.scopes.size(), Table{});
  double* const arena = scratch.arena.data();
  std::vector<Table>& slot = scratch.tables;
  const auto log_arena = [&](int s) {
    if (scratch.log_arena.size() < static_cast<std::size_t>(plan.arena))
      scratch.log_arena.resize(static_cast<std::size_t>(plan.arena));
    return scratch.log_arena.data() + plan.offsets[static_cast<std::size_t>(s)];
  };
  double log_constant = 0.0;
  for (std::size_t f = 0; f < plan.inputs; ++f) {
    const ScaledTable& given = *tables[f];
    if (given.zero) return kMinusInfinity;
    Table& table = slot[f];
    table.linear = given.linear;
    table.exponent = given.exponent;
    table.largest = given.largest;
    table.smallest = given.smallest;
    const std::vector<int>& diagonal = plan.diagonals[f];
    if (diagonal.empty()) {
      table.values = given.linear ? given.values.data() : nullptr;
      table.logs = given.log_values.data();
    } else {  // the diagonal's entries are some of the table's: its exponents still bound them
      double* logs = log_arena(static_cast<int>(f));
      for (std::size_t e = 0; e < diagonal.size(); ++e) logs[e] = given.log_values[static_cast<std::size_t>(diagonal[e])];
      table.logs = logs;
      if (given.linear) {
        double* values = arena + plan.offsets[f];
        for (std::size_t e = 0; e < diagonal.size(); ++e) values[e] = given.values[static_cast<std::size_t>(diagonal[e])];
        table.values = values;
      }
    }
    if (plan.scopes[f].empty()) log_constant += table.logs[0];  // a factor without variables
  }
  // A table's logs, computed from its linear values when a step on logs needs them.
  const auto logs_of = [&](int s) {
    Table& table = slot[static_cast<std::size_t>(s)];
    if (table.logs == nullptr) {
      double* logs = log_arena(s);
      for (long e = 0; e < plan.sizes[static_cast<std::size_t>(s)]; ++e)
        logs[e] = table.values[e] > 0.0 ? std::log(table.values[e]) + static_cast<double>(table.exponent) * kLn2
                                        : kMinusInfinity;
      table.logs = logs;
    }
    return table.logs;
  };
  // A part's table times its absorbed tables (in the arena when it absorbs any).
  const auto product_of = [&](const Steps::Part& part) {
    const double* values = slot[static_cast<std::size_t>(part.slot)].values;
    if (part.absorbed.empty()) return values;
    const long size = plan.sizes[static_cast<std::size_t>(part.slot)];
    double* product = arena + part.product;
    Eigen::Map<Eigen::ArrayXd> into(product, size);
    const double* from = values;  // the product so far: the part's table, then `product`
    for (const Steps::Absorbed& absorbed : part.absorbed) {
      const double* factor = slot[static_cast<std::size_t>(absorbed.slot)].values;
      if (absorbed.gather.empty()) {
        into = Eigen::Map<const Eigen::ArrayXd>(from, size) * Eigen::Map<const Eigen::ArrayXd>(factor, size);
      } else {
        for (long e = 0; e < size; ++e) product[e] = from[e] * factor[absorbed.gather[static_cast<std::size_t>(e)]];
      }
      from = product;
    }
    return static_cast<const double*>(product);
  };
  // An earlier result's exact range in place of its bounds, rescaled by a power of two (exactly) so
  // that its largest entry is in [1, 2) unless that would take its smallest below 2^-kLinearRange
  // (then its exact range alone decides whether the steps that use it are safe); false when every
  // entry is 0 (then so is the sum).
  const auto tighten = [&](int s) {
    Table& table = slot[static_cast<std::size_t>(s)];
    if (!table.linear) return true;
    const long size = plan.sizes[static_cast<std::size_t>(s)];
    double* values = arena + plan.offsets[static_cast<std::size_t>(s)];
    Eigen::Map<Eigen::ArrayXd> entries(values, size);
    const double top = entries.maxCoeff();
    if (!(top > 0.0)) return false;
    table.largest = binary_exponent(top);
    table.smallest = binary_exponent((entries > 0.0).select(entries, top).minCoeff());
    if (table.smallest - table.largest < -kLinearRange) return true;
    entries *= std::ldexp(1.0, -table.largest);
    table.exponent += table.largest;
    table.smallest -= table.largest;
    table.largest = 0;
    return true;
  };
  thread_local std::vector<const double*> operands;
  for (const Steps::Step& step : plan.steps) {
    const auto out_slot = static_cast<std::size_t>(step.output);
    Table& out = slot[out_slot];
    const long out_size = plan.sizes[out_slot];
    if (step.kind == Steps::Kind::constant) {
      log_constant += std::log(static_cast<double>(step.states));
      continue;
    }
    // Linear when every table is and their products stay within the range of doubles: every
    // positive term is at least 2^smallest, every sum of K terms below 2^largest.
    bool linear = true;
    long smallest = 0, largest = 0, exponent = 0;
    const auto bound = [&] {
      linear = true;
      smallest = 0;
      largest = exponent_bound(step.states);
      exponent = 0;
      for (int s : step.touching) {
        const Table& table = slot[static_cast<std::size_t>(s)];
        linear = linear && table.linear;
        smallest += table.smallest;
        largest += table.largest + 1;
        exponent += table.exponent;
      }
      return linear && smallest > -kSafeExponent && largest < kSafeExponent;
    };
    bool safe = bound();
    if (!safe && linear) {  // the bounds may be loose: the earlier results' exact ranges
      for (int s : step.touching)
        if (static_cast<std::size_t>(s) >= plan.inputs && !tighten(s)) return kMinusInfinity;
      safe = bound();
    }
    if (safe) {
      double* result = arena + plan.offsets[out_slot];
      if (step.kind == Steps::Kind::sum) {
        const double* values = product_of(step.parts[0]);
        const long k = step.states, inner = step.inner;
        for (long o = 0; o < step.outer; ++o) {
          Eigen::Map<Eigen::ArrayXd> row(result + o * inner, inner);
          row = Eigen::Map<const Eigen::ArrayXd>(values + o * k * inner, inner);
          for (long s = 1; s < k; ++s) row += Eigen::Map<const Eigen::ArrayXd>(values + (o * k + s) * inner, inner);
        }
      } else if (step.kind == Steps::Kind::contract) {
        const double* operand[2];
        for (int p = 0; p < 2; ++p) {
          const Steps::Part& part = step.parts[static_cast<std::size_t>(p)];
          operand[p] = product_of(part);
          if (part.permuted >= 0) {
            double* permuted = arena + part.permuted;
            for (std::size_t e = 0; e < part.permutation.size(); ++e) permuted[e] = operand[p][part.permutation[e]];
            operand[p] = permuted;
          }
        }
        const Steps::Part &f = step.parts[0], &g = step.parts[1];
        contract(operand[0], f.variable_first, operand[1], g.variable_first, step.states, f.rest, g.rest, result);
      } else {
        operands.clear();
        for (int s : step.touching) operands.push_back(slot[static_cast<std::size_t>(s)].values);
        multiply_and_sum<false>(operands, step.strides, step.all_states, result);
      }
      out.values = result;
      out.logs = nullptr;
      out.linear = true;
      out.exponent = exponent;
      out.largest = static_cast<int>(largest - 1);  // entries below 2^largest
      out.smallest = static_cast<int>(smallest);
      if ((out.largest > kTighten || out.smallest < -kTighten) && !tighten(step.output)) return kMinusInfinity;
    } else {
      operands.clear();
      for (int s : step.touching) operands.push_back(logs_of(s));
      double* result = log_arena(step.output);
      multiply_and_sum<true>(operands, step.strides, step.all_states, result);
      out.logs = result;
      out.values = nullptr;
      out.linear = false;
      // Back to linear values when nothing is lost.
      const LogRange range = range_of(result, static_cast<std::size_t>(out_size));
      if (range.zero) return kMinusInfinity;
      if (range.linear) {
        double* values = arena + plan.offsets[out_slot];
        scale(result, static_cast<std::size_t>(out_size), range.top, values, out.exponent, out.largest, out.smallest);
        out.values = values;
        out.linear = true;
      }
    }
    if (plan.scopes[out_slot].empty())
      log_constant += out.linear ? std::log(out.values[0]) + static_cast<double>(out.exponent) * kLn2 : out.logs[0];
  }
  return std::isnan(log_constant) ? kMinusInfinity : log_constant;
}

double eliminate_all(const std::vector<long>& states, std::vector<Factor> factors, long max_table) {
  std::vector<std::vector<int>> scopes;
  std::vector<ScaledTable> tables(factors.size());
  std::vector<const ScaledTable*> pointers;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    scopes.push_back(factors[f].variables);
    tables[f].assign(factors[f].log_values.data(), factors[f].log_values.size());
    pointers.push_back(&tables[f]);
  }
  return EliminationPlan(states, scopes, max_table).log_sum(pointers.data());
}

}  // namespace ppk
