// The files a user names (a sweep, a resume file, a reference, a recorded
// run, the result file and the check's metrics), opened so that no name
// can hang or exhaust the process before it refuses: a FIFO, a device or a
// folder is "not a regular file" (an input is opened without blocking and
// checked before a byte is read; an output is checked before it is
// opened), an input is read up to a size, and a text input holding a NUL
// byte is refused as not text. Every refusal is a UsageError naming the
// flag and the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/grammar.hpp"

namespace membench::cli {

// The text of the regular file at `path` (`flag` names it in messages:
// "--sweep"), at most max_bytes; nothing when there is no such file.
std::optional<std::string> read_text_file(const std::string& flag, const std::string& path, std::uintmax_t max_bytes);

// The same, where a missing file is refused too ("no such file").
std::string read_required_text_file(const std::string& flag, const std::string& path, std::uintmax_t max_bytes);

// Refuses `path` as an output unless it is a regular file or does not exist
// yet, and can be written (its folder exists). Leaves no file behind.
void check_output_file(const std::string& flag, const std::string& path);

// How deeply arrays and objects nest in JSON text (strings skipped), so that
// a pathological file is refused before a parser recurses through it.
std::size_t json_depth(const std::string& text);

// Refuses JSON text a membench file (a result, a reference, a run to judge)
// never is, before anything is read from it: nested deeper than max_depth,
// not an object at its top (a file of zeros), or a key given twice in one
// object (which the parser would take silently, the last one winning). A
// UsageError naming the flag and the file. Text cut off inside a value (a
// run killed while writing) passes, for its reader to close.
void check_json_document(const std::string& flag, const std::string& path, const std::string& text,
                         std::size_t max_depth);

}  // namespace membench::cli
