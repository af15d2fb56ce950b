// A case's identity as data, and its name: the one place that writes a case
// name and the one that reads it back. Everything else (the filter, the
// cache, --resume) takes names from here; the result file's catalog
// (membench.cases) carries each case's tags and axes as data, and the scripts
// read them there, parsing a name only for a file written before it.
//
//   family/variant[/tag:value...][/axis:value...]
//
// Tags say how the case runs (device:K when a run covers several GPUs,
// l2:cold); axes are the family's parameters, named axes (type:double) before
// numeric ones. Google Benchmark adds /manual_time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace membench::cases {

struct CaseId {
  struct Axis {
    std::string name;
    std::int64_t value = 0;  // a named axis: the index of its name
    std::string label;       // a named axis: the name (type:double); empty for a number
    bool operator==(const Axis& o) const { return name == o.name && value == o.value && label == o.label; }
  };
  std::string family;
  std::string variant;
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<Axis> axes;

  std::string name() const;
  // The value of axis `name` (a named axis: its index); throws std::logic_error when the case has none.
  std::int64_t operator[](const std::string& axis) const;
  std::optional<std::string> tag(const std::string& key) const;

  // Reads a name back (with or without /manual_time); empty when it is not
  // one. A named axis comes back with its label and value -1: the names
  // behind the index are the family's.
  static std::optional<CaseId> parse(const std::string& name);
};

// Tag keys; anything else after the variant is an axis. A new tag is a key
// here and the line in the family registry (family.cpp) that adds it; the
// scripts read every key:value part alike.
inline constexpr const char* kDeviceTag = "device";
inline constexpr const char* kL2Tag = "l2";
inline constexpr const char* kTagKeys[] = {kDeviceTag, kL2Tag};

}  // namespace membench::cases
