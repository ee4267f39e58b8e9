// The core layer links and runs alone (tests/cli/layering.sh states the rule): this program links
// every object of ppk_core and nothing else of libppk, registers the worked example's family
// (examples/geometric_family.cpp, which needs only core's public headers), and reads, writes and
// evaluates its rows through core's row codec, JSON codec and kernel dispatcher.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/core/family.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

const FamilyInfo& geometric_family();  // examples/geometric_family.cpp

namespace {

std::unique_ptr<Model> geometric(const std::vector<double>& q) {
  return model_from_json(nlohmann::json{{"family", "geometric"}, {"q", q}});
}

TEST(CoreAlone, HoldsNoFamilyButTheOneRegistered) {
  EXPECT_TRUE(all_families().empty());
  register_family(geometric_family());
  ASSERT_EQ(all_families().size(), 1u);
  EXPECT_EQ(find_family(17), &geometric_family());
  EXPECT_EQ(find_family("geometric"), &geometric_family());

  // The row of docs/adding-a-family.md's layout (version 1, code 17, D, q with its zero omitted),
  // decoded and written again.
  const Row expected = {{1, 1}, {2, 17}, {3, 3}, {4, 0.5}, {6, 0.25}};
  const std::unique_ptr<Model> decoded = decode_row(encode_row(*geometric({0.5, 0.0, 0.25})));
  EXPECT_EQ(format_entries(encode_row(*decoded)), format_entries(expected));

  // The dispatcher's ppk value against prod_d sum_{x < 4000} (pmf(x; q_d) pmf(x; r_d))^rho (the omitted
  // tail is below 0.7^4000), and ppk_norm(p, p) = 1.
  const std::vector<double> q = {0.3, 0.7}, r = {0.6, 0.1};
  const double rho = 0.8;
  double brute_force = 1.0;
  for (std::size_t d = 0; d < q.size(); ++d) {
    double sum = 0.0;
    for (int x = 0; x < 4000; ++x) sum += std::pow((1 - q[d]) * std::pow(q[d], x) * (1 - r[d]) * std::pow(r[d], x), rho);
    brute_force *= sum;
  }
  const PreparedModel a(geometric(q), {rho, 0}), b(geometric(r), {rho, 0});
  check_compatible(a, b);
  EXPECT_NEAR(evaluate(KernelKind::ppk, a, b), brute_force, 1e-13 * brute_force);
  EXPECT_DOUBLE_EQ(evaluate(KernelKind::ppk_norm, a, a), 1.0);

  const PreparedModel c(geometric({0.5, 0.5, 0.5}), {rho, 0});
  try {
    check_compatible(a, c);
    ADD_FAILURE() << "models of two dimensions were compatible";
  } catch (const KernelDomainError& e) {
    EXPECT_STREQ(e.what(),
                 "geometric over count vectors of dimension 2 vs geometric over count vectors of dimension 3: no "
                 "kernel between different sample spaces");
  }
}

}  // namespace
}  // namespace ppk
