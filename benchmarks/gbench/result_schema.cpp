#include "gbench/result_schema.hpp"

#include <memory>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace membench::gbench {

extern const char* const kResultSchemaText;  // made by the build from schema/result.schema.json

namespace {

const valijson::Schema& result_schema() {
  static const std::unique_ptr<valijson::Schema> schema = [] {
    auto s = std::make_unique<valijson::Schema>();
    const nlohmann::json document = nlohmann::json::parse(kResultSchemaText);
    valijson::SchemaParser(valijson::SchemaParser::kDraft7)
        .populateSchema(valijson::adapters::NlohmannJsonAdapter(document), *s);
    return s;
  }();
  return *schema;
}

// valijson's context ("<root>", "[benchmarks]", "[3]", "[run_type]") as a
// person reads it: benchmarks[3].run_type.
std::string place(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>" || part.size() < 2) continue;
    const std::string inner = part.substr(1, part.size() - 2);
    const bool index = !inner.empty() && inner.find_first_not_of("0123456789") == std::string::npos;
    out += index ? "[" + inner + "]" : (out.empty() ? "" : ".") + inner;
  }
  return out.empty() ? "the file" : out;
}

}  // namespace

std::optional<std::string> schema_problem(const nlohmann::json& doc) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  if (validator.validate(result_schema(), valijson::adapters::NlohmannJsonAdapter(doc), &results)) return std::nullopt;
  // The deepest error names the value itself; those above it only say that a part of them failed.
  valijson::ValidationResults::Error error, deepest;
  while (results.popError(error))
    if (error.context.size() > deepest.context.size()) deepest = error;
  return place(deepest.context) + ": " + deepest.description.substr(0, 160);
}

}  // namespace membench::gbench
