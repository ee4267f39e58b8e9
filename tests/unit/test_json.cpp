// Models as JSON objects and JSON lines (json.hpp).
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "error_message.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/core/data.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/json.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string model_error(const json& object) {
  return checks::error_message<ModelError>([&] { model_from_json(object); });
}

TEST(ModelJson, DispatchesOnFamily) {
  const auto gaussian = model_from_json(json::parse(R"({"family":"gaussian","mean":[1,2],"var":3})"));
  const auto* g = dynamic_cast<const GaussianModel*>(gaussian.get());
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->form(), CovarianceForm::isotropic);
  EXPECT_EQ(g->mean()(1), 2);
  EXPECT_EQ(g->covariance()(0, 0), 3);

  const auto bernoulli = model_from_json(json::parse(R"({"family":"bernoulli","p":[0.5,0.25]})"));
  const auto* b = dynamic_cast<const BernoulliModel*>(bernoulli.get());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->probabilities().at(1), 0.25);

  const auto multinomial = model_from_json(json::parse(R"({"family":"multinomial","p":[0.5,0.25,0.25],"trials":3})"));
  const auto* m = dynamic_cast<const MultinomialModel*>(multinomial.get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->trials().kind, Trials::fixed);
  EXPECT_EQ(m->trials().count, 3);
}

TEST(ModelJson, FamilyErrors) {
  EXPECT_THAT(model_error(json::parse(R"({"family":"gaussion","mean":[1]})")),
              HasSubstr("unknown family \"gaussion\"; expected one of: gaussian, bernoulli, multinomial"));
  EXPECT_THAT(model_error(json::parse(R"({"mean":[1],"var":1})")), HasSubstr("missing field \"family\""));
  EXPECT_THAT(model_error(json::parse(R"({"family":3})")), HasSubstr("field \"family\" must be a string"));
  EXPECT_THAT(model_error(json::parse("[1,2]")), HasSubstr("expected a JSON object"));
}

TEST(ModelJson, ToJsonRoundTrips) {
  for (const char* text :
       {R"({"family":"gaussian","mean":[1,-2],"cov":[[2,0.5],[0.5,1]]})",
        R"({"family":"gaussian","mean":[0.1],"diag":[0.3]})", R"({"family":"bernoulli","p":[0.1,0.9,0.1]})",
        R"({"family":"multinomial","p":[0.2,0.8],"trials":"all","decay":0.5})"}) {
    const auto model = model_from_json(json::parse(text));
    const json object = model_to_json(*model);
    EXPECT_EQ(object, json::parse(text)) << text;
    const auto again = model_from_json(object);
    const Row a = encode_row(*model), b = encode_row(*again);
    EXPECT_EQ(format_entries(a), format_entries(b)) << text;
  }
}

TEST(LabeledJson, LabelDefaultsToZero) {
  const LabeledModel unlabeled = labeled_model_from_json(json::parse(R"({"family":"bernoulli","p":[0.5]})"));
  EXPECT_EQ(unlabeled.label, 0);
  ASSERT_NE(unlabeled.model, nullptr);
  const LabeledModel labeled = labeled_model_from_json(json::parse(R"({"label":-2.5,"family":"bernoulli","p":[0.5]})"));
  EXPECT_EQ(labeled.label, -2.5);
  EXPECT_THROW(labeled_model_from_json(json::parse(R"({"label":"a","family":"bernoulli","p":[0.5]})")), ModelError);
}

TEST(LabeledJson, LineHasLabelThenFamily) {
  const auto model = model_from_json(json::parse(R"({"family":"gaussian","mean":[1,2],"var":3})"));
  EXPECT_EQ(labeled_model_json_line(1, *model), R"({"label":1,"family":"gaussian","mean":[1.0,2.0],"var":3.0})");
  EXPECT_THAT(labeled_model_json_line(-0.25, *model), StartsWith(R"({"label":-0.25,"family":"gaussian")"));
  const LabeledModel back = labeled_model_from_json(json::parse(labeled_model_json_line(7, *model)));
  EXPECT_EQ(back.label, 7);
  EXPECT_EQ(format_entries(encode_row(*back.model)), format_entries(encode_row(*model)));
}

TEST(JsonLines, ReadsInOrderAndSkipsBlankLines) {
  std::istringstream in(
      "{\"label\":1,\"family\":\"bernoulli\",\"p\":[0.5]}\n"
      "\n"
      "{\"family\":\"bernoulli\",\"p\":[0.25]}\n");
  const std::vector<LabeledModel> models = read_json_lines(in, "models.jsonl");
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].label, 1);
  EXPECT_EQ(models[1].label, 0);
  EXPECT_EQ(dynamic_cast<const BernoulliModel&>(*models[1].model).probabilities().at(0), 0.25);
}

TEST(JsonLines, ErrorsNameFileAndLine) {
  auto error = [](const std::string& text) -> std::string {
    std::istringstream in(text);
    try {
      read_json_lines(in, "models.jsonl");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_THAT(error("{\"family\":\"bernoulli\",\"p\":[0.5]}\n{\"family\":\n"),
              HasSubstr("models.jsonl:2: not valid JSON"));
  EXPECT_THAT(error("\n{\"family\":\"poissonx\"}\n"), HasSubstr("models.jsonl:2: unknown family \"poissonx\""));
  // A number beyond a double (nlohmann's out_of_range, not a parse_error; found by fuzz_json_lines).
  EXPECT_THAT(error("{\"label\":3333e33333333333333,\"family\":\"bernoulli\",\"p\":[0.5]}\n"),
              HasSubstr("models.jsonl:1: not valid JSON"));
  EXPECT_THAT(error("{\"family\":\"bernoulli\",\"p\":[1.5]}\n"), HasSubstr("models.jsonl:1: bernoulli"));
  EXPECT_THAT(error("{\"family\":\"gaussian\",\"mean\":[0],\"var\":-1}\n"), HasSubstr("models.jsonl:1: gaussian"));
}

}  // namespace
}  // namespace ppk
