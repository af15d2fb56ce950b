// The result file's schema (schema/result.schema.json, built into the
// binary): what a file membench reads back (--resume, --check --judge)
// must be before anything in it is used. The scripts validate against the
// same document.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace membench::gbench {

// Where `doc` is first not a membench result file and why, in a line
// ("benchmarks[3].run_type: ..."); nothing where it is one.
std::optional<std::string> schema_problem(const nlohmann::json& doc);

}  // namespace membench::gbench
