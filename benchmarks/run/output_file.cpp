#include "run/output_file.hpp"

#include <cstdint>
#include <filesystem>
#include <iostream>

#include "cli/files.hpp"

namespace membench::run {

namespace {

// A result file of many cases and repetitions is a few MiB; far more is not one.
constexpr std::uintmax_t kMaxResultBytes = std::uintmax_t{256} << 20;
// A result file nests 5 deep; a counter holding arrays 100,000 deep is an attack on the parser's stack.
constexpr std::size_t kMaxResultDepth = 64;

}  // namespace

std::string partial_path(const std::string& output) { return output + ".partial"; }

void finish_output(const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(partial_path(path), path, ec);
  if (ec)
    std::cerr << "membench: warning: cannot rename " << partial_path(path) << " to " << path << " (" << ec.message()
              << ")\n";
}

std::optional<ResumeSource> read_resume_source(const std::string& resume_file) {
  for (const std::string& path : {resume_file, partial_path(resume_file)})
    if (auto text = cli::read_text_file("--resume", path, kMaxResultBytes)) {
      cli::check_json_document("--resume", path, *text, kMaxResultDepth);
      return ResumeSource{path, std::move(*text)};
    }
  return std::nullopt;
}

}  // namespace membench::run
