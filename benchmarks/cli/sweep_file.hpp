// --sweep=FILE.json: a JSON object with the flags' names as keys, Google
// Benchmark's included ({"stride": [1, 2], "shared.side": 4096,
// "benchmark_filter": "^global/"}); flags on the command line win, key by key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/grammar.hpp"

namespace membench::cli {

// One --name[=value] argument, from the command line or a sweep file.
struct Arg {
  std::string name;
  std::optional<std::string> value;
  std::string origin;  // "" for the command line, "--sweep=FILE: " for a file
};

// The file's keys as arguments, in the file's order: an axis takes a LIST
// string, an integer or an array of them; another flag a string, a number or
// true/false. A key given twice, another sweep file, or nesting past any use
// is a UsageError.
std::vector<Arg> sweep_file_args(const std::string& path, const AxisTable& axes);

}  // namespace membench::cli
