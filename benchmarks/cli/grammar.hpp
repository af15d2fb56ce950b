// The suite's command-line grammar: values and lists, and the axes the
// families declared. Anything wrong is a UsageError whose message is the one
// line to print.
//
//   LIST  := ITEM[,ITEM...]
//   ITEM  := VALUE | VALUE:VALUE[:STEP]      inclusive range
//   STEP  := +K | *K                          default +1
//   VALUE := integer | 2^K | integer with K/M/G (powers of 1024); a named axis takes names
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cases/family.hpp"

namespace membench::cli {

using cases::AxisSpec;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws UsageError("--flag=text: why"), the text shown as printable() shows it.
[[noreturn]] void refuse(const std::string& flag, const std::string& text, const std::string& why);

// `text` as one line of at most about `max` characters: control characters
// escaped (\n, \t, \xNN), and a longer text cut in the middle with the count
// of what was left out. Every value a refusal echoes goes through it.
std::string printable(const std::string& text, std::size_t max = 120);

// Expands a LIST for `axis` (used in messages as --name=text) and checks each
// value against it. Duplicates are dropped, order is kept.
std::vector<std::int64_t> parse_list(const AxisSpec& axis, const std::string& text);
// The same for a numeric axis, duplicates kept.
std::vector<std::int64_t> expand_list(const AxisSpec& axis, const std::string& text);

// Plain values of a flag: true/false (yes/no, on/off, 1/0), a number within
// [min, max], a VALUE within [min, max].
std::optional<bool> bool_value(const std::string& text);
bool parse_bool(const std::string& flag, const std::string& text);
double parse_number(const std::string& flag, const std::string& text, double min, double max);
int parse_int(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max);

std::vector<std::string> split(const std::string& s, char sep);
std::string join(const std::vector<std::int64_t>& values);
// Like join, but a run of three or more consecutive values reads first:last.
std::string compact(const std::vector<std::int64_t>& values);
std::string joined_names(const AxisSpec& axis);

// The axis flags: every axis name the families declared, once, with each
// family's meaning. Families that share an axis name must mean one thing by
// it: the same unit and the same values; only their help and defaults differ.
class AxisTable {
 public:
  struct Use {
    std::string family;
    AxisSpec axis;
  };
  // Throws std::logic_error when two families declare one name differently.
  explicit AxisTable(const std::vector<Use>& declared);
  const AxisSpec* find(const std::string& name) const;                             // the shared domain
  const AxisSpec* find(const std::string& family, const std::string& name) const;  // one family's axis
  const std::vector<std::pair<AxisSpec, std::vector<Use>>>& flags() const { return flags_; }

 private:
  std::vector<std::pair<AxisSpec, std::vector<Use>>> flags_;
};

// Every registered family's axes.
AxisTable declared_axes();

}  // namespace membench::cli
