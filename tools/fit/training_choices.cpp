#include "training_choices.hpp"

#include <cmath>
#include <utility>

#include "cli.hpp"
#include "fisher_features.hpp"
#include "ppk/core/json.hpp"

namespace ppk::cli {

PoolFile read_pool_file(const std::string& path) {
  InputFile input(path);
  return parse_pool(input.stream(), input.name());
}

PoolFile parse_pool(std::istream& text, const std::string& name) {
  PoolFile pool;
  pool.path = name;
  const auto fail = [&pool](const std::string& what) {
    return InputError(pool.path + ": not a pool file written by ppk fit --save-pooled: " + what);
  };
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("not JSON (") + e.what() + ")");
  }
  if (!object.is_object()) throw fail("expected a JSON object");
  if (!object.contains("source") || !object["source"].is_string()) throw fail("\"source\": expected a string");
  if (!object.contains("family") || !object["family"].is_string()) throw fail("\"family\": expected a string");
  if (!object.contains("dim") || !object["dim"].is_number_integer() || object["dim"].get<long>() < 1)
    throw fail("\"dim\": expected a whole number >= 1");
  if (!object.contains("chosen") || !object["chosen"].is_object()) throw fail("\"chosen\": expected an object");
  pool.source = object["source"].get<std::string>();
  pool.family = object["family"].get<std::string>();
  pool.dim = object["dim"].get<long>();
  for (const auto& [name, choice] : object["chosen"].items()) {
    if (!choice.is_object() || !choice.contains("value") || !choice["value"].is_number() ||
        !std::isfinite(choice["value"].get<double>()) || !choice.contains("chosen_by") ||
        !choice["chosen_by"].is_string())
      throw fail("\"chosen\".\"" + name + "\": expected {\"value\": a finite number, \"chosen_by\": a string}");
  }
  pool.chosen = object["chosen"];
  if (object.contains("base")) {
    if (!object["base"].is_object()) throw fail("\"base\": expected an object");
    pool.base = object["base"];
  }
  if (object.contains("smoothing")) {
    const nlohmann::json& record = object["smoothing"];
    const auto text = [&record](const char* key) { return record.contains(key) && record[key].is_string(); };
    const bool described = record.is_object() && text("estimator") && text("alpha_option") && text("chosen_by");
    const bool ml = described && record["estimator"] == "ml";
    const bool smoothed = described && (record["estimator"] == "posterior" || record["estimator"] == "map") &&
                          record.contains("alpha") && record["alpha"].is_number() &&
                          std::isfinite(record["alpha"].get<double>()) && record["alpha"].get<double>() >= 0;
    if (!ml && !smoothed)
      throw fail(
          "\"smoothing\": expected {\"estimator\": \"ml\", \"posterior\" or \"map\", \"alpha\": a finite "
          "number >= 0 (not for ml), \"alpha_option\": a string, \"chosen_by\": a string}");
    pool.smoothing = record;
  }
  if (object.contains("matrices")) {
    if (!object["matrices"].is_object()) throw fail("\"matrices\": expected an object");
    for (const auto& item : object["matrices"].items()) {
      const std::string& name = item.key();  // (a lambda may not capture a structured binding in C++17)
      const nlohmann::json& rows = item.value();
      const auto bad = [&] {
        return fail("\"matrices\".\"" + name +
                    "\": expected a non-empty array of rows of finite numbers, all of one length");
      };
      if (!rows.is_array() || rows.empty() || !rows[0].is_array() || rows[0].empty()) throw bad();
      Eigen::MatrixXd matrix(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
      for (std::size_t r = 0; r < rows.size(); ++r) {
        if (!rows[r].is_array() || rows[r].size() != rows[0].size()) throw bad();
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
          if (!rows[r][c].is_number() || !std::isfinite(rows[r][c].get<double>())) throw bad();
          matrix(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = rows[r][c].get<double>();
        }
      }
      pool.matrices[name] = std::move(matrix);
    }
  }
  if (object.contains("model")) {
    try {
      model_from_json(object["model"]);
    } catch (const ModelError& e) {
      throw fail(std::string("\"model\": ") + e.what());
    }
    pool.model = object["model"];
  }
  if (object.contains("fisher")) {
    check_fisher_information(object["fisher"], pool.path);
    pool.fisher = object["fisher"];
  }
  if (object.contains("statistics")) {
    try {
      pool.statistics = statistics_from_json(object["statistics"]);
    } catch (const EstimationError& e) {
      throw fail(std::string("\"statistics\": ") + message_of(e));
    }
  }
  return pool;
}

PoolFile given_pool(const FitRequest& request) {
  return request.pool_given ? *request.pool_given : read_pool_file(*request.pooled_from);
}

std::string pool_text(const PoolFile& pool) {
  nlohmann::json object = {{"source", pool.source}, {"family", pool.family}, {"dim", pool.dim}, {"chosen", pool.chosen}};
  for (const auto& [name, matrix] : pool.matrices) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index r = 0; r < matrix.rows(); ++r) {
      nlohmann::json row = nlohmann::json::array();
      for (Eigen::Index c = 0; c < matrix.cols(); ++c) row.push_back(matrix(r, c));
      rows.push_back(std::move(row));
    }
    object["matrices"][name] = std::move(rows);
  }
  if (pool.statistics) statistics_to_json(*pool.statistics, object["statistics"]);
  if (!pool.base.is_null()) object["base"] = pool.base;
  if (!pool.smoothing.is_null()) object["smoothing"] = pool.smoothing;
  if (!pool.model.is_null()) object["model"] = pool.model;
  if (!pool.fisher.is_null()) object["fisher"] = pool.fisher;
  return object.dump();
}

void write_pool_file(const std::string& path, const PoolFile& pool) { write_lines(path, {pool_text(pool)}); }

TrainingChoices::TrainingChoices(const FitRequest& request, std::string input, const PoolFile* from)
    : request_(request), input_(std::move(input)), from_(from) {}

double TrainingChoices::value(const std::string& name, const std::function<Choice()>& choose) {
  Choice choice;
  std::string where;
  if (from_ != nullptr) {
    if (!from_->chosen.contains(name))
      throw UsageError(from_->path + " holds no " + name + " chosen on the training file " + from_->source + ": fit " +
                       from_->source + " with --" + name + " auto --save-pooled " + from_->path + ", or give --" + name +
                       " a value for both files");
    const nlohmann::json& saved = from_->chosen[name];
    choice = {saved["value"].get<double>(), saved["chosen_by"].get<std::string>()};
    where = from_->source + " (read from " + from_->path + ")";
  } else {
    choice = choose();
    where = input_;
  }
  request_.note(request_.command + ": " + name + " = " + format_double(choice.value) + ", chosen by " + choice.how +
                " on " + where);
  chosen_[name] = {{"value", choice.value}, {"chosen_by", choice.how}};
  return choice.value;
}

Eigen::MatrixXd TrainingChoices::matrix(const std::string& name, const std::function<Eigen::MatrixXd()>& compute) {
  Eigen::MatrixXd matrix;
  if (from_ != nullptr) {
    const auto saved = from_->matrices.find(name);
    if (saved == from_->matrices.end())
      throw UsageError(from_->path + " holds no " + name + " computed on the training file " + from_->source + ": fit " +
                       from_->source + " with the options used for " + input_ + " and --save-pooled " + from_->path);
    matrix = saved->second;
  } else {
    matrix = compute();
  }
  matrices_[name] = matrix;
  return matrix;
}

double TrainingChoices::given(const std::string& name, double value) {
  if (from_ != nullptr && from_->chosen.contains(name)) {
    const double saved = from_->chosen[name]["value"].get<double>();
    if (saved != value)
      throw UsageError("--" + name + " " + format_double(value) + " differs from the " + name + " = " +
                       format_double(saved) + " used for the training file " + from_->source + " (saved in " +
                       from_->path + "): the test file " + input_ + " would be fitted unlike the training file; drop --" +
                       name + " to reuse the saved value");
  }
  chosen_[name] = {{"value", value}, {"chosen_by", "the command line"}};
  return value;
}

}  // namespace ppk::cli
