// Compile-time lists of the values a templated knob is built for. One list
// drives both the dispatch from a run-time value to the template instance
// and the values the command line accepts, so the two cannot drift apart.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace membench {

template <int... Values>
struct IntList {
  static constexpr std::array<int, sizeof...(Values)> values{Values...};

  static constexpr bool contains(int v) { return ((v == Values) || ...); }

  // Calls f(std::integral_constant<int, V>{}) for the V equal to `v` and
  // returns its result; `otherwise` when `v` is not in the list.
  template <class F, class R>
  static R dispatch(int v, F&& f, R otherwise) {
    R result = otherwise;
    (void)((v == Values ? (result = f(std::integral_constant<int, Values>{}), true) : false) || ...);
    return result;
  }

  static std::string joined() {
    std::string s;
    for (int v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
  }
};

// The names of an enum's values, indexed by the enumerator (0, 1, 2, ...).
template <class Enum, std::size_t N>
struct EnumNames {
  std::array<std::string_view, N> names;

  constexpr std::string_view operator()(Enum e) const { return names[static_cast<std::size_t>(e)]; }
  constexpr std::array<Enum, N> all() const {
    std::array<Enum, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<Enum>(i);
    return out;
  }
};

template <class Enum, class... Names>
constexpr EnumNames<Enum, sizeof...(Names)> enum_names(Names... names) {
  return {{std::string_view(names)...}};
}

}  // namespace membench
