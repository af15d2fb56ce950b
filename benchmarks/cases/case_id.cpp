#include "cases/case_id.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace membench::cases {

namespace {

bool is_integer(const std::string& s) {
  std::size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool is_tag(const std::string& key) {
  for (const char* tag : kTagKeys)
    if (key == tag) return true;
  return false;
}

}  // namespace

std::string CaseId::name() const {
  std::string out = family + "/" + variant;
  for (const auto& [key, value] : tags) out += "/" + key + ":" + value;
  for (const Axis& a : axes) out += "/" + a.name + ":" + (a.label.empty() ? std::to_string(a.value) : a.label);
  return out;
}

std::int64_t CaseId::operator[](const std::string& axis) const {
  for (const Axis& a : axes)
    if (a.name == axis) return a.value;
  throw std::logic_error("case " + name() + " has no axis '" + axis + "'");
}

std::optional<std::string> CaseId::tag(const std::string& key) const {
  for (const auto& [k, v] : tags)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<CaseId> CaseId::parse(const std::string& text) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
  if (!parts.empty() && parts.back() == "manual_time") parts.pop_back();
  if (parts.size() < 2 || parts[0].empty() || parts[1].empty()) return std::nullopt;
  CaseId id{parts[0], parts[1], {}, {}};
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const auto colon = parts[i].find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == parts[i].size()) return std::nullopt;
    const std::string key = parts[i].substr(0, colon), value = parts[i].substr(colon + 1);
    if (is_tag(key) && id.axes.empty()) {
      id.tags.emplace_back(key, value);
    } else if (is_integer(value)) {
      id.axes.push_back({key, std::stoll(value), ""});
    } else {
      id.axes.push_back({key, -1, value});
    }
  }
  return id;
}

}  // namespace membench::cases
