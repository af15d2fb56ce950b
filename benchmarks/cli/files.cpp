#include "cli/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace membench::cli {

namespace {

[[noreturn]] void refuse_file(const std::string& flag, const std::string& path, const std::string& why) {
  throw UsageError(flag + "=" + printable(path) + ": " + why);
}

// Closes a descriptor when it goes.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::optional<std::string> read_text_file(const std::string& flag, const std::string& path, std::uintmax_t max_bytes) {
  Descriptor d;
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one.
  d.fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (d.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    refuse_file(flag, path, std::string("cannot be read (") + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (fstat(d.fd, &st) != 0) refuse_file(flag, path, "cannot be read");
  if (!S_ISREG(st.st_mode)) refuse_file(flag, path, "not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    refuse_file(flag, path,
                std::to_string(st.st_size) + " bytes; this file is read up to " + std::to_string(max_bytes) + " bytes");
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(d.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) refuse_file(flag, path, std::string("cannot be read (") + std::strerror(errno) + ")");
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > max_bytes)  // it grew while it was read
      refuse_file(flag, path, "more than " + std::to_string(max_bytes) + " bytes");
  }
  if (text.find('\0') != std::string::npos) refuse_file(flag, path, "holds a NUL byte: not a text file");
  return text;
}

std::string read_required_text_file(const std::string& flag, const std::string& path, std::uintmax_t max_bytes) {
  if (auto text = read_text_file(flag, path, max_bytes)) return std::move(*text);
  refuse_file(flag, path, "no such file");
}

void check_output_file(const std::string& flag, const std::string& path) {
  struct stat st {};
  const bool existed = stat(path.c_str(), &st) == 0;
  if (existed && !S_ISREG(st.st_mode)) refuse_file(flag, path, "not a regular file");
  Descriptor d;
  d.fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  if (d.fd < 0) refuse_file(flag, path, "cannot write the file (does its folder exist?)");
  if (!existed) unlink(path.c_str());
}

std::size_t json_depth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void check_json_document(const std::string& flag, const std::string& path, const std::string& text,
                         std::size_t max_depth) {
  if (json_depth(text) > max_depth)
    refuse_file(flag, path, "nested more than " + std::to_string(max_depth) + " deep: not a membench file");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{')
    refuse_file(flag, path, "not a JSON object: not a membench file");
  // The keys of each open object, innermost last.
  std::vector<std::set<std::string>> open;
  std::string twice;
  const nlohmann::json::parser_callback_t keys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) open.emplace_back();
    if (event == E::object_end && !open.empty()) open.pop_back();
    if (event == E::key && twice.empty() && !open.empty() && !open.back().insert(parsed.get<std::string>()).second)
      twice = parsed.get<std::string>();
    return true;
  };
  (void)nlohmann::json::parse(text, keys, false);
  if (!twice.empty()) refuse_file(flag, path, "\"" + printable(twice) + "\" is given twice in one object");
}

}  // namespace membench::cli
