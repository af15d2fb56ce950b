#include "run/output_file.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/grammar.hpp"

namespace membench::run {

namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  if (!std::filesystem::is_regular_file(path, ec)) throw cli::UsageError("--resume=" + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) throw cli::UsageError("--resume=" + path + ": cannot read the file");
  return text.str();
}

}  // namespace

std::string partial_path(const std::string& output) { return output + ".partial"; }

void check_writable(const std::string& path) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw cli::UsageError("--benchmark_out=" + path + ": cannot write the file (does its folder exist?)");
  probe.close();
  if (!existed) std::filesystem::remove(path, ec);
}

void finish_output(const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(partial_path(path), path, ec);
  if (ec)
    std::cerr << "membench: warning: cannot rename " << partial_path(path) << " to " << path << " (" << ec.message()
              << ")\n";
}

std::optional<ResumeSource> read_resume_source(const std::string& resume_file) {
  for (const std::string& path : {resume_file, partial_path(resume_file)})
    if (auto text = read_text(path)) return ResumeSource{path, std::move(*text)};
  return std::nullopt;
}

}  // namespace membench::run
