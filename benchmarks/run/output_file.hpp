// The result file's lifecycle. Google Benchmark writes --benchmark_out=FILE
// to FILE.partial, valid JSON after every case (gbench/result_file.hpp); FILE
// appears only when the run ends, by a rename, so FILE is whole at every
// moment, and a process killed outright leaves FILE.partial behind for
// --resume=FILE to carry.
#pragma once

#include <optional>
#include <string>

namespace membench::run {

std::string partial_path(const std::string& output);

// FILE.partial renamed to FILE; a warning on stderr where it cannot be.
void finish_output(const std::string& path);

// What --resume=FILE reads: FILE, else FILE.partial (a run killed outright);
// nothing when neither exists yet (the first attempt of a requeued job). A
// cli::UsageError when one exists and cannot be read.
struct ResumeSource {
  std::string path;
  std::string text;
};
std::optional<ResumeSource> read_resume_source(const std::string& resume_file);

}  // namespace membench::run
