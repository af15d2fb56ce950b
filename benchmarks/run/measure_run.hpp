// The run's measuring part: one measuring session, the cases run through
// Google Benchmark, the result file's context and end, and the verdict on
// stderr with its exit status. run/program.cpp's; see run/program.hpp.
#pragma once

#include <functional>
#include <vector>

#include "cases/runner.hpp"
#include "gbench/resume.hpp"
#include "run/program.hpp"

namespace membench::run {

using Observer = std::function<void(const cases::CaseSpec&, const cases::Outcome&)>;

// The selected cases measured, the result file written whole; the status.
int measure(const Invocation& in, const cli::AxisTable& axes, const std::vector<const cases::CaseSpec*>& selected,
            const gbench::RunIdentity& identity, const Observer& observe);

}  // namespace membench::run
