// Each family registers its cases from the parsed command line.
#pragma once

#include "cli.hpp"

namespace membench::bench {

void register_global(const cli::Options& options);
void register_layout(const cli::Options& options);
void register_shared(const cli::Options& options);
void register_async(const cli::Options& options);

}  // namespace membench::bench
