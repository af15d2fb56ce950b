"""Mutation testing of the host C++: does a CPU-only test run catch a wrong number?

    python tests/mutation/cpp_mutants.py [--source DIR] [--build DIR] [--only K ...]

Each mutant below is one small change a bug could make: a reference that
expects every element, a model off by a factor, a boundary moved by one. The
script checks out HEAD into a git worktree (or uses --source, which it then
changes and restores file by file), builds the tests once, and for each
mutant applies the change, rebuilds, runs the CPU tests (GPU tests skip
without a device) and restores the file. A mutant is killed when a test
fails, survives when all pass. It prints the score and the survivors.

Not part of CI: a full run rebuilds once per mutant (about an hour on two
cores). Run it before and after changing tests or the code they guard.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutant:
    path: str
    old: str
    new: str
    what: str


M = Mutant
MUTANTS = [
    # ---- the verification core -------------------------------------------------------------
    M(
        "kernels/src/platform/verify.cpp",
        "if (std::memcmp(&got[k], &want, sizeof(T)) == 0) continue;",
        "if (true) continue;",
        "all_mismatches always passes",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "for (std::size_t k = begin; k < end; ++k) {",
        "for (std::size_t k = begin; k + 1 < end; ++k) {",
        "a worker skips the last element of its piece",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "into->count += later->count;",
        "into->count += 0;",
        "the mismatch count is not summed across workers and pieces",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "mine = mismatch_at(first + k, got[k], want, total);",
        "mine = mismatch_at(k, got[k], want, total);",
        "a piece reports its own index, not the array's",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "for (std::size_t first = 0, k = 0; first < count; first += piece, ++k) {",
        "for (std::size_t first = 0, k = 0; first + piece < count; first += piece, ++k) {",
        "the last piece is not checked",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "T* into = buffers[k % 2];",
        "T* into = buffers[0];",
        "every piece goes to one buffer, overwriting the piece being checked",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        "      collect();\n      checking = std::thread",
        "      checking = std::thread",
        "the piece checked last is never collected",
    ),
    M("kernels/src/platform/verify.cpp", "        ++mine->count;", "        (void)0;", "a worker counts one mismatch"),
    M(
        "kernels/src/platform/verify.cpp",
        "work(w, n * w / workers, n * (w + 1) / workers);",
        "work(w, n * w / workers + 1, n * (w + 1) / workers);",
        "a worker skips the first element of its piece",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        'if (m.total > 0) os << " (" << m.count',
        'if (false) os << " (" << m.count',
        "describe drops the count",
    ),
    M(
        "kernels/src/platform/verify.cpp",
        'if (poison) return "poison (never written)";',
        'if (false) return "poison (never written)";',
        "describe shows poison as a number",
    ),
    M(
        "kernels/include/membench/platform/verify.hpp",
        "if (std::memcmp(&got[i], &want, sizeof(T)) != 0) return mismatch_at",
        "if (false) return mismatch_at",
        "first_mismatch always passes",
    ),
    M(
        "kernels/include/membench/platform/pattern.hpp",
        "inline constexpr int kPoisonByte = 0xFF;",
        "inline constexpr int kPoisonByte = 0x00;",
        "poison is zeros",
    ),
    M(
        "kernels/include/membench/platform/pattern.hpp",
        "return 1.0f + static_cast<float>(h & 0x3FFu) * 0.25f;",
        "return 1.0f + static_cast<float>(h & 0x1u) * 0.25f;",
        "the pattern has two values",
    ),
    M(
        "kernels/include/membench/platform/pattern.hpp",
        "h ^= h >> 15;\n  h *= 0x2C1B3C6Du;",
        "h *= 0x2C1B3C6Du;",
        "the pattern hash loses a mixing step",
    ),
    # ---- models ---------------------------------------------------------------------------------
    M(
        "kernels/src/platform/models.cpp",
        "const std::size_t last = first + static_cast<std::size_t>(access_bytes) - 1;",
        "const std::size_t last = first + static_cast<std::size_t>(access_bytes);",
        "an access ends a byte late",
    ),
    M("kernels/src/platform/models.cpp", "* kSectorBytes);\n}", "* kSectorBytes * 2);\n}", "efficiency halved"),
    M("kernels/src/platform/models.cpp", "n += counts(bytes) ? 1 : 0;", "n += 1;", "every unit counts"),
    M(
        "kernels/src/platform/models.cpp",
        "bytes > 0 && bytes < kSectorBytes;",
        "bytes > 0 && bytes <= kSectorBytes;",
        "a full sector counts as partial",
    ),
    M(
        "kernels/src/platform/models.cpp",
        "return {touched_bytes(p, kDramReadBytes), 0.0};",
        "return {touched_bytes(p, kSectorBytes), 0.0};",
        "a read miss fetches one sector",
    ),
    M(
        "kernels/src/platform/models.cpp",
        "return {partial_sectors(p) * kSectorBytes, touched_bytes(p, kSectorBytes)};",
        "return {0.0, touched_bytes(p, kSectorBytes)};",
        "partial writes read nothing",
    ),
    # ---- peaks and device facts -------------------------------------------------------------------
    M("kernels/src/platform/device_info.cpp", "* 2.0 / 8.0;", "* 1.0 / 8.0;", "DRAM peak without double data rate"),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "{F::shared_banks, doc(32, kGuideBanks)}",
        "{F::shared_banks, doc(16, kGuideBanks)}",
        "shared peak halved",
    ),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "{F::unified_l1_bytes, doc(192 * KiB, kAmpereTuning80)},",
        "{F::unified_l1_bytes, doc(128 * KiB, kAmpereTuning80)},",
        "sm_80 L1 size",
    ),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "doc(128 * KiB, kBlackwellTuning120)",
        "doc(256 * KiB, kBlackwellTuning120)",
        "sm_120 L1 size",
    ),
    M(
        "kernels/src/platform/device_info.cpp",
        "if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';",
        "if (i == 4 || i == 6 || i == 8) out += '-';",
        "UUID misses a dash",
    ),
    # ---- links ------------------------------------------------------------------------------------
    M(
        "kernels/src/platform/links.cpp",
        "generation <= 5 ? 128.0 / 130",
        "generation <= 6 ? 128.0 / 130",
        "PCIe gen 6 encoding",
    ),
    M(
        "kernels/src/platform/links.cpp",
        "{0, 2.5, 5, 8, 16, 32, 64};",
        "{0, 2.5, 5, 8, 16, 32, 32};",
        "PCIe gen 6 rate",
    ),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "{900e9 / 2 / 18,",
        "{900e9 / 18,",
        "Hopper NVLink rate",
    ),
    M("kernels/src/platform/links.cpp", "return pa && pb && *pa == *pb;", "return pa && pb;", "any two bus ids match"),
    # ---- stopping and the clock --------------------------------------------------------------------
    M(
        "benchmarks/engine/stopping.cpp",
        "s.noise_pct <= rule.max_noise_pct;",
        "s.noise_pct < rule.max_noise_pct;",
        "noise equal to the target does not converge",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "return s.clean_batches >= rule.min_batches",
        "return s.clean_batches > rule.min_batches",
        "one batch more than asked",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "if (launches < target) return false;",
        "if (launches <= target) return false;",
        "Google Benchmark's count reached is not enough",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "elapsed_seconds >= rule.max_seconds;",
        "elapsed_seconds > rule.max_seconds;",
        "the time limit is passed, not reached",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "squares_ += delta * (t - mean_);",
        "squares_ += delta * delta;",
        "Welford's update wrong",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "if (b.launches <= 0 || b.seconds <= 0) return;",
        "if (b.launches < 0 || b.seconds < 0) return;",
        "empty batches count",
    ),
    M(
        "kernels/src/platform/fidelity.cu",
        "return static_cast<double>(stop.cycles - start.cycles) / ns * 1e3;",
        "return static_cast<double>(stop.cycles - start.cycles) / ns * 1e6;",
        "clock in kHz",
    ),
    M(
        "kernels/src/platform/fidelity.cu",
        "measured_mhz < threshold * peak_mhz;",
        "measured_mhz <= threshold * peak_mhz;",
        "a clock at the threshold is throttled",
    ),
    M(
        "kernels/src/platform/fidelity.cu",
        "|| stop.cycles <= start.cycles) return 0.0;",
        ") return 0.0;",
        "cycles going backwards give a clock",
    ),
    # ---- the command line --------------------------------------------------------------------------
    M("benchmarks/cli/grammar.cpp", "if (v < axis.min) {", "if (v <= axis.min) {", "the minimum itself refused"),
    M(
        "benchmarks/cli/grammar.cpp",
        "if (v > axis.max) refuse(",
        "if (v >= axis.max) refuse(",
        "the maximum itself refused",
    ),
    M("benchmarks/cli/grammar.cpp", "if (v % axis.multiple_of != 0)", "if (false)", "multiples not checked"),
    M(
        "benchmarks/cli/grammar.cpp",
        "if (overflow || next > last) break;",
        "if (overflow || next >= last) break;",
        "a range drops its last value",
    ),
    M("benchmarks/cli/grammar.cpp", "if (multiply && step < 2)", "if (multiply && step < 1)", "*1 loops"),
    M(
        "benchmarks/cli/grammar.cpp",
        "case 'k': scale = std::int64_t{1} << 10; break;",
        "case 'k': scale = std::int64_t{1} << 11; break;",
        "K is 2048",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        'spec.empty() || spec == "all" ? "." : spec;',
        'spec.empty() ? "." : spec;',
        "the filter 'all' is a pattern",
    ),
    M(
        "benchmarks/cli/launcher.cpp",
        "if (visible == 1) return {0};",
        "if (false) return {0};",
        "a launcher-bound GPU is not taken",
    ),
    M(
        "benchmarks/cli/launcher.cpp",
        "if (*launcher.local_rank >= visible)",
        "if (*launcher.local_rank > visible)",
        "local rank == visible accepted",
    ),
    M("benchmarks/cli/launcher.cpp", '{"{device}", std::to_string(device)}', '{"{device}", "0"}', "{device} always 0"),
    M("benchmarks/cli/launcher.cpp", "r < 0 || r > 1 << 30", "r < -1 || r > 1 << 30", "a rank of -1 accepted"),
    M(
        "benchmarks/cli/grammar.cpp",
        "if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);",
        "values.push_back(v);",
        "named values repeat",
    ),
    M(
        "benchmarks/cli/command_line.cpp",
        'if (!seen.insert(flag).second && flag != "help")',
        "if (false)",
        "a repeated flag wins silently",
    ),
    M(
        "benchmarks/cli/sweep_file.cpp",
        "if (json_depth(text) > kMaxSweepDepth)",
        "if (json_depth(text) > 100 * kMaxSweepDepth)",
        "deep sweep files parsed",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        'return kVersion >= 10800 ? seconds + "s" : seconds;',
        'return kVersion >= 10800 ? seconds : seconds + "s";',
        "min_time for the wrong version",
    ),
    M("benchmarks/cli/grammar.cpp", "if (exponent > 63)", "if (exponent > 6300)", "huge exponents loop"),
    M(
        "benchmarks/cli/command_line.cpp",
        'refuse(name, v, "device " + std::to_string(d) + " is given twice");',
        ";",
        "a device given twice runs twice",
    ),
    # ---- registration, resume, health, signals ------------------------------------------------------
    M(
        "benchmarks/cases/family.cpp",
        "counted_ += product * static_cast<double>(modes.size());",
        "counted_ += product;",
        "the cap forgets --l2=both",
    ),
    M("benchmarks/cases/family.cpp", "if (total > kMaxCases) {", "if (total > 1000 * kMaxCases) {", "no case cap"),
    M(
        "benchmarks/cases/family.cpp",
        "return name < f.name; });",
        "return name > f.name; });",
        "families in reverse order",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        "state.SetIterationTime(seconds * static_cast<double>(reported) / static_cast<double>(launches));",
        "state.SetIterationTime(seconds);",
        "per-launch time wrong when launches were dropped",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        'return id.name() + "/manual_time";',
        "return id.name();",
        "case names lose /manual_time",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "if (uuids != here.gpu_uuids) refuse(",
        "if (false) refuse(",
        "another GPU's file resumed",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "static_cast<int>(it->second.size()) != repetitions",
        "static_cast<int>(it->second.size()) < repetitions",
        "extra repetitions carried",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        'if (entry.value("run_type", std::string("iteration")) != "iteration") continue;',
        "",
        "aggregates carried as runs",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "for (int k = 0; k < 64; ++k) {",
        "for (int k = 0; k < 0; ++k) {",
        "no exact time search",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "  appeared.insert(own_pid);\n",
        "",
        "our own pid forgotten in another namespace",
    ),
    M(
        "benchmarks/cases/case_id.cpp",
        "    if (key == tag) return true;",
        "    if (key == tag) return false;",
        "no key is read back as a tag",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "    --out.count;  // one of them is us",
        "    // one of them is us",
        "utilisation samples in another pid namespace count us as another process",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "if (own.count(pid) != 0) {\n      ours_listed = true;",
        "if (false) {\n      ours_listed = true;",
        "our own pid counted among the others",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "if (ours_may_be_hidden && !ours_listed && maybe_ours > 0) {",
        "if (ours_may_be_hidden && !ours_listed && out.count > 0) {",
        "a neighbour busy before we started taken for us",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "    out.first = first_sure;\n",
        "    out.first = 0;\n",
        "a sure neighbour not named",
    ),
    M(
        "benchmarks/cli/launcher.cpp",
        'if (*v == "utilisation") return true;',
        "if (!v->empty()) return true;",
        "any MEMBENCH_TEST_PROCESS_VIEW accepted",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "if ((reasons & bit) != 0)",
        "if ((reasons & bit) == 0)",
        "clock event names inverted",
    ),
    M(
        "benchmarks/engine/health.hpp",
        "kClockSwThermal | kClockHwThermal | kClockHwPowerBrake;",
        "kClockSwThermal | kClockHwThermal;",
        "power brake does not mark a case",
    ),
    M(
        "benchmarks/engine/stop.cpp",
        "  std::raise(signal);\n}",
        "}",
        "a second signal does not end the process",
    ),
    M(
        "benchmarks/engine/stop.cpp",
        "if (is_repeat_of_first(g_signal, g_first_ns.load(), signal, now)) return;",
        "if (false) return;",
        "the same signal to the process and its group ends the process",
    ),
    M(
        "benchmarks/engine/stop.cpp",
        "return signal == first && now_ns >= first_ns",
        "return now_ns >= first_ns",
        "any signal within the window is taken for a repeat",
    ),
    M(
        "benchmarks/engine/stop.cpp",
        "now_ns - first_ns < kRepeatWindowNs;",
        "now_ns - first_ns <= kRepeatWindowNs;",
        "the window's own end is a repeat",
    ),
    M(
        "benchmarks/engine/stop.cpp",
        "if (g_reason.empty()) g_reason = reason;",
        "g_reason = reason;",
        "the last stop reason wins",
    ),
    # ---- the families' references, bytes and refusals ------------------------------------------------
    M(
        "kernels/src/global.cu",
        "return !is_strided(c.variant) || i % c.stride == 0; }",
        "return true; }",
        "the strided reference expects every element",
    ),
    M(
        "kernels/include/membench/global.hpp",
        "return c.variant == GlobalVariant::memcpy ? x : 2.0f * x;",
        "return 2.0f * x;",
        "the memcpy reference doubles",
    ),
    M(
        "kernels/src/global.cu",
        "if (is_strided(c.variant) && c.stride == 0) return cudaErrorInvalidValue;",
        "",
        "launch accepts stride 0",
    ),
    M(
        "kernels/src/global.cu",
        "return c.stride == 0 ? 0 : ceil_div(c.n, c.stride);",
        "return c.stride == 0 ? 0 : c.n / c.stride;",
        "strided elements rounded down",
    ),
    M(
        "kernels/src/global.cu",
        "return 2.0 * sizeof(float) * static_cast<double>(global_elements_touched(c));",
        "return 1.0 * sizeof(float) * static_cast<double>(global_elements_touched(c));",
        "global bytes count one direction",
    ),
    M(
        "kernels/src/global.cu",
        "if (is_strided(c.variant)) return c.stride * sizeof(float);",
        "if (is_strided(c.variant)) return c.stride;",
        "lane stride in elements",
    ),
    M(
        "kernels/src/layout.cu",
        "static_cast<double>(c.n) * c.fields; }",
        "static_cast<double>(c.n) * kLayoutFields; }",
        "layout bytes count every field",
    ),
    M(
        "kernels/src/layout.cu",
        "return static_cast<double>(c.fields) / kLayoutFields;",
        "return 1.0;",
        "AoS efficiency is 1",
    ),
    M(
        "kernels/src/shared.cu",
        "? i : (i % side) * side + i / side;",
        "? i : i;",
        "the transpose reference is the identity",
    ),
    M(
        "kernels/src/shared.cu",
        "return conflict_wavefronts(stride_elems, width_bytes) / phases;",
        "return conflict_wavefronts(stride_elems, width_bytes);",
        "conflict ways count phases",
    ),
    # (worst = 0 instead of 1 is an equivalent mutant: every phase has a lane, so worst >= 1 anyway.)
    M(
        "kernels/src/shared.cu",
        "wavefronts += static_cast<int>(worst);",
        "wavefronts = static_cast<int>(worst);",
        "only the last phase's wavefronts count",
    ),
    M(
        "kernels/src/shared.cu",
        "if (c.n <= 0 || c.n > kSharedMaxSide) return cudaErrorInvalidValue;",
        "if (c.n < 0 || c.n > kSharedMaxSide) return cudaErrorInvalidValue;",
        "a matrix side of 0 accepted",
    ),
    M(
        "kernels/src/shared.cu",
        "31 * static_cast<long long>(stride_elems) + 1)",
        "31 * static_cast<long long>(stride_elems))",
        "conflict buffer one access short",
    ),
    M(
        "kernels/src/stream.cu",
        "case StreamKernel::write: return 0;",
        "case StreamKernel::write: return 1;",
        "write reads",
    ),
    M(
        "kernels/src/stream.cu",
        "case StreamKernel::triad: return a(i) + s * b(i);",
        "case StreamKernel::triad: return a(i) + b(i);",
        "triad without the scalar",
    ),
    M(
        "kernels/src/stream.cu",
        "    t.read_bytes += static_cast<double>(kSectorBytes) * grid;\n",
        "",
        "partial sums read nothing",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "if (c.stride < 8 || c.stride % 8 != 0)",
        "if (c.stride < 4 || c.stride % 4 != 0)",
        "a 4-byte chase stride accepted",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "p.steps = static_cast<std::uint64_t>(std::ceil(chunk_reads / p.grid));",
        "p.steps = static_cast<std::uint64_t>(std::floor(chunk_reads / p.grid));",
        "a plan reads too little",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "if (++chunk == plan.chunks) chunk = 0;",
        "if (++chunk > plan.chunks) chunk = 0;",
        "the reference reads past the last chunk",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "p.grid = static_cast<unsigned>(std::ceil(chunk_reads / static_cast<double>(p.steps)));",
        "p.grid = static_cast<unsigned>(chunk_reads / static_cast<double>(p.steps));",
        "short blocks: a launch reads less than it is asked",
    ),
    M(
        "kernels/include/membench/hierarchy.hpp",
        ": block * steps % chunks;",
        ": (block * steps + 1) % chunks;",
        "short blocks start a chunk late",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "std::max(std::ceil(min_bytes / kHierarchyChunkBytes), static_cast<double>(p.chunks))",
        "std::max(min_bytes / kHierarchyChunkBytes / 2, static_cast<double>(p.chunks))",
        "a launch reads half the minimum",
    ),
    M(
        "kernels/include/membench/hierarchy.hpp",
        "return persistent ? kHierarchyMinBytes : kHierarchyShortMinBytes;",
        "return kHierarchyMinBytes;",
        "short blocks read a resident grid's minimum: their last wave weighs ~1.5%",
    ),
    M(
        "kernels/src/async_model.cpp",
        "if (persistent) return static_cast<unsigned>(std::min<std::size_t>(tiles, resident));",
        "if (persistent) return resident;",
        "a resident grid gets blocks with no tile",
    ),
    M(
        "kernels/src/async_model.cpp",
        "const std::size_t short_blocks = (tiles + kAsyncShortTiles - 1) / kAsyncShortTiles;",
        "const std::size_t short_blocks = tiles / kAsyncShortTiles;",
        "short blocks drop the tiles past the last whole block",
    ),
    M(
        "kernels/src/async_model.cpp",
        "if (c.flops < 0 || c.flops > kAsyncMaxFlops || c.flops % 2 != 0)",
        "if (c.flops < 0 || c.flops > kAsyncMaxFlops)",
        "odd flops accepted",
    ),
    M(
        "kernels/src/dsmem.cu",
        "return block - block % size + (block % size + 1) % size;",
        "return (block + 1) % size;",
        "the neighbour leaves the cluster",
    ),
    M(
        "kernels/include/membench/copy.hpp",
        "return static_cast<double>(bytes) * op.directions() * passes;",
        "return static_cast<double>(bytes) * passes;",
        "both directions count once",
    ),
    M(
        "kernels/src/peer.cpp",
        "int peer_of(int device, int visible, int step) { return visible < 2 ? device : (device + step) % visible; }",
        "int peer_of(int device, int visible, int step) { return visible < 2 ? device : device + step; }",
        "the last GPU pairs with none",
    ),
    M(
        "kernels/src/peer.cpp",
        "(device + step) % visible; }",
        "(device + 1) % visible; }",
        "every step pairs with the next GPU",
    ),
    M(
        "kernels/src/peer.cpp",
        "if (step < 1 || step >= visible)",
        "if (step < 1 || step > visible)",
        "a step of the GPU count pairs a GPU with itself",
    ),
    # ---- the host's NUMA nodes ---------------------------------------------------------------------
    M(
        "kernels/src/platform/numa.cpp",
        "for (int n = first; n <= last; ++n) out.push_back(n);",
        "for (int n = first; n < last; ++n) out.push_back(n);",
        "a node range loses its last node",
    ),
    M(
        "kernels/src/platform/numa.cpp",
        "if (domain.size() > 4) domain = domain.substr(domain.size() - 4);",
        "",
        "NVML's eight-digit PCI domain is not sysfs's four",
    ),
    M(
        "kernels/src/platform/numa.cpp",
        'if (remote) return refuse(why, "one NUMA node with CPUs on this host: all its memory is the GPU\'s own");',
        "",
        "one node: remote is the GPU's own node",
    ),
    M(
        "kernels/src/platform/numa.cpp",
        "if (!best || d < best_distance) best = other, best_distance = d;",
        "if (!best) best = other, best_distance = d;",
        "remote is the first other node, not the nearest",
    ),
    M(
        "kernels/src/platform/numa.cpp",
        "std::set_intersection(cpus.begin(), cpus.end(), memory.begin(), memory.end(), std::back_inserter(both));",
        "both = memory;",
        "a GPU's own memory node counts as a socket",
    ),
    # ---- node ---------------------------------------------------------------------------------------
    M(
        "kernels/src/node.cpp",
        "return node_to_peers(v) ? std::max(devices - 1, 0) : 1;",
        "return node_to_peers(v) ? devices : 1;",
        "all-to-all writes to itself too",
    ),
    M(
        "kernels/src/node.cpp",
        "* node_copies_per_device(c.variant, devices) * devices;",
        "* devices;",
        "a node launch counts one copy per GPU",
    ),
    M(
        "kernels/src/node.cpp",
        "through_switches = std::max(through_switches, s);",
        "through_switches += s;",
        "switch links counted once per peer",
    ),
    M("kernels/src/node.cpp", "direct += links[j] - s;", "direct += links[j];", "switch links counted as direct too"),
    M("kernels/src/node.cpp", "if (conductor != 0)", "if (conductor < 0)", "every device runs the node's cases"),
    M(
        "kernels/include/membench/node.hpp",
        "return static_cast<int>(v) >= static_cast<int>(NodeVariant::all_to_host_sm);",
        "return static_cast<int>(v) > static_cast<int>(NodeVariant::all_to_host_sm);",
        "all_to_host_sm by the copy engine",
    ),
    # ---- atomics, managed, l2persist, the host chase -------------------------------------------------
    M(
        "kernels/src/atomics.cu",
        "if (const double got = element(target, c.type, i); got != expected) {",
        "if (const double got = element(target, c.type, i); false) {",
        "atomics: every target passes",
    ),
    M(
        "kernels/src/atomics.cu",
        "const double n = expected, want = n * (n - 1) / 2;",
        "const double n = expected, want = n * n / 2;",
        "atomics: the old values should sum to N^2 / 2",
    ),
    M(
        "kernels/src/atomics.cu",
        "for (std::uint64_t t = g * p.layout.members; t < (g + 1) * p.layout.members; ++t) sum += tickets[t];",
        "for (std::uint64_t t = g * p.layout.members; t + 1 < (g + 1) * p.layout.members; ++t) sum += tickets[t];",
        "atomics: a group's last thread's old values left out",
    ),
    M(
        "kernels/src/atomics.cu",
        "if (c.variant != AtomicVariant::add) return std::nullopt;",
        "return std::nullopt;",
        "atomics: the old values never checked",
    ),
    M(
        "kernels/src/atomics.cu",
        "case AtomicSharing::warp: return 32;",
        "case AtomicSharing::warp: return 16;",
        "atomics: a warp is 16 threads",
    ),
    M(
        "kernels/src/atomics.cu",
        "if (c.type == AtomicType::f32 && l.updates_per_address > (std::uint64_t{1} << 24))",
        "if (c.type == AtomicType::f32 && l.updates_per_address > (std::uint64_t{1} << 25))",
        "atomics: f32 sums past 2^24 allowed",
    ),
    M(
        "kernels/src/atomics.cu",
        "return l.members > 1 ? l.updates : warp_instructions;",
        "return l.members > 2 ? l.updates : warp_instructions;",
        "atomics: a pair sharing an address counted as one request",
    ),
    M(
        "kernels/src/atomics.cu",
        "const double serial = static_cast<double>(l.addresses) * sm_clock_hz;",
        "const double serial = static_cast<double>(l.threads) * sm_clock_hz;",
        "atomics: the serial bound ignores sharing",
    ),
    M(
        "kernels/src/atomics.cu",
        "[](unsigned char b) { return b != 0; }",
        "[](unsigned char b) { return false; }",
        "atomics: a placement written past its turn passes",
    ),
    M(
        "kernels/src/atomics.cu",
        "if (p.run == nullptr || target.index() != static_cast<std::size_t>(p.config.type)) return cudaErrorInvalidValue;",
        "if (p.run == nullptr) return cudaErrorInvalidValue;",
        "atomics: a target of another word is launched",
    ),
    M(
        "kernels/src/atomics.cu",
        "return static_cast<std::size_t>(k) * slot + static_cast<std::size_t>(k) * kWithinPageStep % kPage;",
        "return static_cast<std::size_t>(k) * slot;",
        "atomics: every placement at the same offset within its page",
    ),
    M(
        "benchmarks/engine/measure.cpp",
        "return (std::max(launches, 1) + round - 1) / round * round;",
        "return launches;",
        "a batch of turns cut short of a whole round",
    ),
    M(
        "kernels/src/managed.cu",
        "case ManagedTouch::strided: return k * kManagedStridePages;",
        "case ManagedTouch::strided: return k;",
        "managed: strided reads the first pages",
    ),
    M(
        "kernels/src/managed.cu",
        "for (std::uint64_t k = block; k < visited; k += grid) sum += page_sums[managed_page_of(c, k)];",
        "for (std::uint64_t k = block; k < visited; k += grid) sum += page_sums[k];",
        "managed: the reference ignores the touch order",
    ),
    M(
        "kernels/src/managed.cu",
        "case ManagedVariant::ping_pong: return 2.0 * static_cast<double>(c.bytes);",
        "case ManagedVariant::ping_pong: return static_cast<double>(c.bytes);",
        "managed: ping_pong's pages cross once",
    ),
    M(
        "kernels/src/managed.cu",
        "return c.variant == ManagedVariant::remote ? managed_read_bytes(c) : managed_migrated_bytes(c);",
        "return managed_migrated_bytes(c);",
        "managed: remote reads cross no link",
    ),
    M(
        "kernels/src/l2persist.cu",
        "return std::min(tagged, static_cast<double>(l2persist_set_aside_bytes(c, limits)));",
        "return tagged;",
        "l2persist: persisting bytes not capped by the set-aside",
    ),
    M(
        "kernels/src/l2persist.cu",
        "return kL2PersistRounds * l2persist_model_persisting_bytes(c, limits);",
        "return l2persist_model_persisting_bytes(c, limits);",
        "l2persist: the hot bytes from the L2 counted once",
    ),
    M(
        "kernels/src/l2persist.cu",
        "sum += chunk_sums[s % p.hot_chunks];",
        "sum += chunk_sums[s];",
        "l2persist: the reference reads hot chunks past the hot buffer",
    ),
    M(
        "kernels/src/l2persist.cu",
        "if (c.hot_bytes > limits.max_window)",
        "if (c.hot_bytes > 2 * limits.max_window)",
        "l2persist: a window larger than the device allows",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "return static_cast<double>(CycleOrder(nodes, kChaseKey).node(c.steps % nodes));",
        "return static_cast<double>(CycleOrder(nodes, kChaseKey).node(kChaseSteps % nodes));",
        "a chase's end ignores its steps",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "return working_set <= 2 * l1_bytes ? kPlacements : 1;",
        "return working_set < 2 * l1_bytes ? kPlacements : 1;",
        "a chase at twice the L1 takes no turns over copies",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "return static_cast<std::size_t>(k) * placement_slot_bytes(working_set) + offset;",
        "return placement_slot_bytes(working_set) + offset;",
        "the chain's copies share one slot and overlap",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "return copies <= 1 ? working_set : static_cast<std::size_t>(copies) * placement_slot_bytes(working_set);",
        "return copies <= 1 ? working_set : static_cast<std::size_t>(copies) * working_set;",
        "the copies' allocation is too small for their slots",
    ),
    # ---- the regression path: repetitions, the result file, resume, refusals, the exit status ------
    M(
        "benchmarks/gbench/adapter.cpp",
        "if (first > 0 && max_iterations <= first) return first;  // a later repetition",
        "if (false) return first;",
        "a later repetition reports its own launch count",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        "if (first > 0 && max_iterations <= first) return first;  // a later repetition",
        "if (first > 0 && max_iterations < first) return first;",
        "a repetition asked for the first count reports its own",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        'state.counters["launches"] = static_cast<double>(launches);',
        'state.counters["launches"] = static_cast<double>(reported);',
        "launches shows the reported count, not the measured",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        "return RE2::PartialMatch(name, *re_) != negative_;",
        "return RE2::FullMatch(name, *re_) != negative_;",
        "a filter must match the whole name",
    ),
    M(
        "benchmarks/gbench/adapter.cpp",
        "if (!re->ok()) throw Invalid(",
        "if (false) throw Invalid(",
        "a pattern RE2 cannot compile is taken",
    ),
    M(
        "benchmarks/cli/files.cpp",
        'if (!S_ISREG(st.st_mode)) refuse_file(flag, path, "not a regular file");',
        "",
        "a FIFO or a device is read as an input",
    ),
    M(
        "benchmarks/cli/files.cpp",
        "if (existed && !S_ISREG(st.st_mode))",
        "if (false)",
        "a FIFO or a device is taken as an output",
    ),
    M(
        "benchmarks/cli/files.cpp",
        "if (text.find('\\0') != std::string::npos)",
        "if (false)",
        "a text with NUL bytes is read",
    ),
    M(
        "benchmarks/cli/files.cpp",
        "if (!existed) unlink(path.c_str());",
        "",
        "a checked output is left behind",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "    check_entry_types(origin, entry, index);\n",
        "",
        "a resume entry's field of the wrong type is read",
    ),
    M(
        "benchmarks/cli/grammar.cpp",
        "return negative ? -value : value;\n  }",
        "return value;\n  }",
        "-2^20 is read as 2^20",
    ),
    M(
        "benchmarks/cli/grammar.cpp",
        "if (is_decimal(text)) try {",
        "if (true) try {",
        "hexadecimal, spaces and nan are numbers",
    ),
    M(
        "benchmarks/cli/gbench_flags.cpp",
        "if (g_taken[f] == nullptr) g_taken[f] = *e;",
        "g_taken[f] = *e;",
        "the last of a variable given twice is read",
    ),
    M(
        "benchmarks/cli/gbench_flags.cpp",
        "if (!taken) *kept++ = *e;",
        "*kept++ = *e;",
        "Google Benchmark's variables stay in the environment",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        "it = std::isfinite(it->second.value) ? std::next(it) : run.counters.erase(it);",
        "it = std::next(it);",
        "a statistic that does not exist is written as NaN",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        "note_roofs(run);\n  }\n  checkpoint();",
        "note_roofs(run);\n  }",
        "the partial file is not closed after each case",
    ),
    M("benchmarks/gbench/result_file.cpp", "  out.seekp(here);\n", "", "the next case is written after the closing"),
    M(
        "benchmarks/gbench/result_file.cpp",
        '{"complete", true},',
        '{"complete", false},',
        "a finished file says it is not",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        '{"kind", "undeclared"}',
        '{"kind", "configuration"}',
        "a counter nothing declares passes as configuration",
    ),
    M(
        "benchmarks/cases/counters.cpp",
        '{"latency_ns", {"ns", B::lower,',
        '{"latency_ns", {"ns", B::higher,',
        "the catalog calls a higher latency better",
    ),
    M(
        "benchmarks/cases/counters.cpp",
        "if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;",
        "if (false) return false;",
        "device<anything>_bytes_per_second is a device's rate",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        'return text.substr(0, last + 6) + "\\n  ]\\n}\\n";',
        'return text.substr(0, last) + "\\n  ]\\n}\\n";',
        "a cut file is closed inside its last whole case",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        'if (!std::set<std::string>{"ns", "us", "ms", "s"}.count(run.time_unit)) {',
        "if (false) {",
        "a repetition in an unknown time unit is carried",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        'if (!doc["context"].contains("membench_version"))',
        "if (false)",
        "another program's JSON is taken for membench's",
    ),
    M(
        "benchmarks/cli/grammar.cpp",
        "if (c == '\\n')\n      out",
        "if (false)\n      out",
        "a newline is shown as \\x0a",
    ),
    M("benchmarks/cli/grammar.cpp", "if (out.size() <= max) return out;", "return out;", "a long value is not cut"),
    M(
        "benchmarks/cli/gbench_flags.cpp",
        "      check_flag(name, kind, value);\n",
        "",
        "Google Benchmark's environment variables are not checked",
    ),
    M(
        "benchmarks/cli/sweep_file.cpp",
        'read_required_text_file("--sweep", path, std::uintmax_t{1} << 20)',
        'read_required_text_file("--sweep", path, std::uintmax_t{1} << 26)',
        "a 2 MiB sweep file is read",
    ),
    M(
        "benchmarks/cases/case.hpp",
        "if (!is_element<T>(declared))",
        "if (false)",
        "a case's buffers handed out as any type it asks for",
    ),
    M(
        "benchmarks/cases/case.hpp",
        "    return e == Element::f64;",
        "    return e == Element::f64 || e == Element::u64;",
        "a chain of 64-bit words read as doubles",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        "if (stop_signal != 0) return 128 + stop_signal;",
        "if (stop_signal != 0 && summary.failures.empty()) return 128 + stop_signal;",
        "a failure hides the signal",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        "return !summary.failures.empty() || ecc_errors_grew",
        "return summary.failures.size() > 1 || ecc_errors_grew",
        "one failed case among many exits 0",
    ),
    M(
        "benchmarks/run/output_file.cpp",
        "for (const std::string& path : {resume_file, partial_path(resume_file)})",
        "for (const std::string& path : {resume_file})",
        "--resume does not read a killed run's partial file",
    ),
    M(
        "benchmarks/run/provenance.cpp",
        "  if (f.run_devices.size() > 1) {",
        "  if (f.run_devices.size() > 2) {",
        "a two-GPU run does not list its devices",
    ),
    M(
        "benchmarks/run/provenance.cpp",
        'add("membench_build", f.identity.membench_build);',
        "",
        "the build hash is not in the context",
    ),
    M(
        "benchmarks/transfer.cpp",
        "  d.work.host_paced = true;\n  return d;",
        "  return d;",
        "transfer copies are not host-paced",
    ),
    # ---- the health monitor over its samples, and the batch loop (fakes on the CPU) ----------
    M(
        "benchmarks/engine/health.cpp",
        "  if (!utilisation_only && probe_->contexts(&why_contexts)) {",
        "  if (probe_->contexts(&why_contexts)) {",
        "the utilisation fallback cannot be asked for",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "    if (seen && has_own(*seen, own_)) own_seen_ = true;",
        "",
        "our pid seen among the busy ones changes nothing",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "        if (own_.count(pid) == 0) surely_others_.insert(pid);",
        "",
        "a neighbour busy before we began may be taken for us",
    ),
    M(
        "benchmarks/engine/health.cpp",
        "case_start_us_ = probe_->now() - kSamplePeriodUs;",
        "case_start_us_ = probe_->now();",
        "a case does not look back one sampling period",
    ),
    M("benchmarks/engine/health.cpp", "  case_ = CaseHealth{};\n", "", "a case inherits the last case's marks"),
    M(
        "benchmarks/engine/health.cpp",
        "    if (own_.count(pid) == 0) out.emplace_back(pid, probe_->process_name(pid));",
        "    out.emplace_back(pid, probe_->process_name(pid));",
        "--exclusive refuses because of our own process",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "      stats.add(queue.wait(1 - slot));",
        "      queue.wait(1 - slot);",
        "the batch in flight at the stop is dropped",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "      queue.wait(1 - slot);\n      throw Interrupted",
        "      throw Interrupted",
        "a stop leaves a batch running on the GPU",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "      hooks.sample_health();\n      return stats.summary();",
        "      return stats.summary();",
        "the health is not sampled at a case's end",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "if (elapsed - sampled >= hooks.health_period) {",
        "if (elapsed >= hooks.health_period) {",
        "the health is sampled after every batch once the first period passed",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "return 100.0 * std::sqrt(squares / (n - 1) / n) / mean;",
        "return 100.0 * std::sqrt(squares / (n - 1)) / mean;",
        "the turns' standard error is their spread, not the mean's",
    ),
    M(
        "benchmarks/engine/stopping.cpp",
        "return !converged(s, rule) || (turns_sem && *turns_sem > rule.max_noise_pct);",
        "return !converged(s, rule);",
        "a mean less certain over its turns than the target is not noisy",
    ),
    # ---- the decisions a measured case's numbers rest on --------------------------------------
    M(
        "benchmarks/engine/measure.cpp",
        "m.throttle_pct / 100.0, device.sm_clock_khz / 1e3};",
        "m.throttle_pct / 100.0, device.sm_clock_khz / 1e6};",
        "the throttle's peak clock in GHz against stamps in MHz (nothing is ever throttled)",
    ),
    M(
        "benchmarks/engine/measure.cpp",
        "m.throttle_pct / 100.0, device.sm_clock_khz / 1e3};",
        "m.throttle_pct, device.sm_clock_khz / 1e3};",
        "the throttle's percentage taken as a fraction",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        'add("noise_pct", std::isfinite(s.noise_pct) ? s.noise_pct : -1);',
        'add("noise_pct", std::isfinite(s.noise_pct) ? s.noise_pct / 100 : -1);',
        "the noise reported as a fraction, not a percentage",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        'add("noise_pct", std::isfinite(s.noise_pct) ? s.noise_pct : -1);',
        'add("noise_pct", std::isfinite(s.noise_pct) ? s.noise_pct : 0);',
        "an unknown noise reported as none",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        'add("throttled_batches", s.throttled_batches);',
        'add("throttled_batches", s.throttled_batches > 1 ? s.throttled_batches : 0);',
        "a single throttled batch not reported",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        'add("latency_cycles", ns * s.clock_mhz * 1e-3);',
        'add("latency_cycles", ns * s.clock_mhz);',
        "latency in cycles from a clock taken in kHz",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        '{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};',
        '{"ns", 1e6}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};',
        "a carried time in ns replayed as if in us",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        '  r.counters.emplace_back("resumed", 1.0);\n',
        "",
        "a replayed case is not marked resumed",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "    if (run.iterations < 1) {",
        "    if (run.iterations < 0) {",
        "an entry of zero iterations is carried (a time of nothing)",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "  total *= static_cast<double>(selection.devices.size());\n",
        "",
        "the case cap counts one device's cases",
    ),
    # ---- architecture facts and the provisional check ------------------------------------------------
    M(
        "kernels/src/platform/arch_facts.cpp",
        "    if (r.cc_major != cc_major || r.cc_minor != cc_minor) continue;",
        "    if (r.cc_major != cc_major) continue;",
        "a compute capability takes another minor's facts",
    ),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "  if (v->value == assumed) return std::nullopt;",
        "  return std::nullopt;",
        "an assumption another value breaks still holds",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        "      if (!unmet) unmet = assumption_unmet(",
        "      if (false) unmet = assumption_unmet(",
        "a model counter is reported whatever its facts",
    ),
    M(
        "kernels/src/hierarchy.cu",
        "  if (d.l1_bytes == 0) return std::nullopt;\n",
        "",
        "an unknown L1 size makes every set the L2's",
    ),
    M(
        "benchmarks/cases/case.hpp",
        "  if (gpu.smem_peak_bytes_per_second > 0) return gpu.smem_peak_bytes_per_second;",
        "  if (gpu.smem_peak_bytes_per_second >= 0) return gpu.smem_peak_bytes_per_second;",
        "an unknown shared peak is a peak of zero",
    ),
    M(
        "benchmarks/run/check.cpp",
        "    joined->efficiency->low *= 1 - kProvisionalMarginPct / 100;",
        "    joined->efficiency->low *= 1;",
        "a provisional band's low is not widened",
    ),
    M(
        "benchmarks/run/check.cpp",
        "    if (reference->provisional && c.kind == CaseVerdict::Kind::slow) s = kCheckProvisionalUnhealthy;\n",
        "",
        "a provisional slow case is called unhealthy",
    ),
    M(
        "benchmarks/run/check.cpp",
        "  return judged > 0 ? kCheckProvisionalHealthy : kCheckInconclusive;",
        "  return kCheckProvisionalHealthy;",
        "a provisional check that judged nothing passes",
    ),
    M(
        "benchmarks/run/check.cpp",
        "    } else if (reference->provisional && o.peak_assumed) {",
        "    } else if (false && o.peak_assumed) {",
        "a peak resting on an assumption is judged provisionally",
    ),
    # ---- case references ---------------------------------------------------------------------------
    M(
        "benchmarks/cases/family.cpp",
        "    if (before && a.before) return {*a.before};\n",
        "",
        "a reference that leaves an added axis open takes every default",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "    if (f.derived_model && !f.model_counter.empty())\n",
        "    if (false)\n",
        "a figure that declares two models is registered",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "return cases_of(family, ref, false); }",
        "return cases_of(family, ref, true); }",
        "a figure's reference takes an added axis's value before, not the drawn case's",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        '      if (a.picks_peer) axis["picks_peer"] = true;\n',
        "",
        "the axis that picks the peer is not said to: the pair matrices split by it",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        '  if (f.slowdown_vs) out["slowdown_vs"] = pattern(*f.slowdown_vs);\n',
        "",
        "a figure's slowdown never reaches the result file",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "  if (found.size() > 1)",
        "  if (found.size() > 2)",
        "a reference naming two cases is taken as the first",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "  if (!allowed)\n",
        "  if (false)\n",
        "a reference may fix a value its axis does not take",
    ),
    M(
        "benchmarks/run/check.cpp",
        "    std::stable_sort(ordered.begin(), ordered.end(),",
        "    std::stable_sort(ordered.begin(), ordered.begin(),",
        "the check's cases run in the families' order, not the declared one",
    ),
    M(
        "kernels/src/compute.cu",
        "return results->value * c.sm_count * pipe.ops_per_step / pipe.fact_results_per_step;",
        "return results->value * c.sm_count * pipe.ops_per_step;",
        "a pipe's peak counts a half2 instruction's two results as one operation each",
    ),
    M(
        "benchmarks/cases/runner.cpp",
        "const double model = w.peak_ops_per_clock * s.clock_mhz * 1e6;",
        "const double model = w.peak_ops_per_clock * device.sm_clock_khz * 1e3;",
        "a pipe's peak is taken at the boost clock, not the clock its batches ran at",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        "if (it->second > best.value) best = {it->second, c.id.name()};",
        "best = {it->second, c.id.name()};",
        "a roof is the last run's value, not the best",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        'compute.at("gpu") == memory.at("gpu")',
        "true",
        "a ridge divides one GPU's pipe by another GPU's level",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "held->value != value_of(family.name, *spec, value)",
        "false",
        "a roof's reference fits a case at any value of the axes it fixes",
    ),
    M(
        "kernels/src/roofline.cu",
        "for (std::size_t p = 0; p < shape_.passes; ++p) sum += passes_[(t + p * shape_.shift) % shape_.threads];",
        "for (std::size_t p = 0; p < shape_.passes; ++p) sum += passes_[t % shape_.threads];",
        "the roofline's reference reads a thread's own part every pass (the kernel moves it)",
    ),
    M(
        "kernels/src/compute.cu",
        "return {2, 4096, Fact::tensor_fp8_flops_per_clock, 4096, 32, kComputeUnroll};",
        "return {2, 4096, Fact::tensor_fp8_flops_per_clock, 4096, 32};",
        "the fp8 reference sums every step, though the kernel restarts its accumulators each group",
    ),
    M(
        "kernels/src/compute.cu",
        "return {2, 1024, Fact::tensor_tf32_flops_per_clock, 1024, 8};",
        "return {2, 1024, Fact::tensor_bf16_flops_per_clock, 1024, 8};",
        "tf32 is judged against bfloat16's peak",
    ),
    M(
        "kernels/src/platform/arch_facts.cpp",
        "{F::tensor_fp8_flops_per_clock, {8192, B::derived, kHopperFp8}}",
        "{F::tensor_fp8_flops_per_clock, {4096, B::derived, kHopperFp8}}",
        "Hopper's fp8 peak is bfloat16's",
    ),
    M(
        "kernels/include/membench/local.hpp",
        "return (t / kLocalBlock * elements + k) * kLocalBlock + t % kLocalBlock;",
        "return (t / kLocalBlock * elements + k) * kLocalBlock + t % 32;",
        "a local array's input index repeats a warp's, so blocks read one another's floats",
    ),
    M(
        "benchmarks/engine/health.hpp",
        "inline constexpr std::uint64_t kClockSlowdownMarks = kClockEventMarks & ~kClockSwPowerCap;",
        "inline constexpr std::uint64_t kClockSlowdownMarks = kClockEventMarks;",
        "the board's power cap marks a case as a slowdown would",
    ),
    M(
        "benchmarks/run/check_run.cpp",
        "} else if (noise >= kUntrustedNoisePct) {",
        "} else if (noise > kUntrustedNoisePct) {",
        "the check trusts noise at the threshold the scripts distrust",
    ),
    M(
        "benchmarks/run/check_run.cpp",
        'const bool slowdown = schema_version < 4 ? (reasons & engine::kClockSlowdownMarks) != 0 : get("clock_event") > 0;',
        'const bool slowdown = get("clock_event") > 0;',
        "a schema-3 file's power cap is read as a slowdown",
    ),
    M(
        "benchmarks/run/check_run.cpp",
        "throttled > 0 && o.clock_event.empty()",
        "false && o.clock_event.empty()",
        "the check judges a case whose batches were throttled",
    ),
    M(
        "benchmarks/run/check.cpp",
        "} else if (worse && !o.noisy.empty()) {",
        "} else if (false) {",
        "the check calls a case too noisy to judge slow",
    ),
    M(
        "benchmarks/run/reference.cpp",
        "    return cases::resolve(ref).name();",
        '    return ref.family + "/" + ref.variant;',
        "a band named by its parts names its family and variant alone",
    ),
    M(
        "benchmarks/run/check_run.cpp",
        "listed != catalog.end() ? std::optional<cases::CaseId>(listed->second)",
        "false ? std::optional<cases::CaseId>(listed->second)",
        "--judge reads a case from its name, not its catalog's parts",
    ),
    M(
        "benchmarks/cases/family.cpp",
        "    if (!counter_meaning(name))\n",
        "    if (false)\n",
        "a figure, a study row or a check case may name a counter the catalog lacks",
    ),
    # ---- the compute ceilings in the check, the roofs, the inputs a fuzzer writes ------------
    M(
        "benchmarks/cases/runner.cpp",
        "if (!w.pipe_busy.empty()) add(w.pipe_busy, 100.0 * ops_rate / model);",
        "if (!w.pipe_busy.empty()) add(w.pipe_busy, 100.0);",
        "a pipe's busy share is always the whole of it",
    ),
    M(
        "benchmarks/gbench/result_file.cpp",
        'if (it->second.value > (*same).at("value").get<double>()) {',
        "if (false) {",
        "a level two families measure keeps the first family's roof, not the higher",
    ),
    M(
        "benchmarks/run/check.cpp",
        "} else if (o.values.empty() && reference->provisional && o.skipped) {",
        "} else if (false) {",
        "a case this GPU cannot run makes a provisional check inconclusive",
    ),
    M(
        "benchmarks/run/reference.cpp",
        "if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0)",
        "if (!v.is_number())",
        "a reference band may be negative or infinite",
    ),
    M(
        "benchmarks/run/reference.cpp",
        "if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 1000000)",
        "if (!v.is_number())",
        "a reference's counts may be 0 or 2.5",
    ),
    M(
        "benchmarks/run/reference.cpp",
        "if (std::none_of(check_cases().begin(), check_cases().end(),",
        "if (false && std::none_of(check_cases().begin(), check_cases().end(),",
        "a reference may band a case the check does not run",
    ),
    M(
        "benchmarks/run/check.cpp",
        'const bool rate = unit == "B/s" || unit == "updates/s" || unit == "op/s";',
        'const bool rate = unit == "B/s" || unit == "updates/s";',
        "an operation rate is shown as a bare number",
    ),
    M(
        "benchmarks/cli/files.cpp",
        "if (event == E::key && twice.empty() && !open.empty() && !open.back().insert(parsed.get<std::string>()).second)",
        "if (false)",
        "a key given twice in one object is taken",
    ),
    M(
        "benchmarks/run/check_run.cpp",
        'if (!list.is_array() || list.empty()) throw std::invalid_argument("its context\'s devices is not a list of GPUs");',
        'if (!list.is_array()) throw std::invalid_argument("its context\'s devices is not a list of GPUs");',
        "a judged file with no GPUs reaches devices.front()",
    ),
    M(
        "benchmarks/cli/launcher.cpp",
        "if (!digits || *end != '\\0' || errno != 0 || r < 0 || r > 1 << 30)",
        "if (v->empty() || *end != '\\0' || errno != 0 || r < 0 || r > 1 << 30)",
        "a rank with a leading space or sign is taken",
    ),
    M(
        "benchmarks/gbench/resume.cpp",
        "if (standard_types().count(key) == 0 && !value.is_number()) {",
        "if (false) {",
        "a resumed counter that is no number is dropped without a word",
    ),
    M(
        "benchmarks/cases/copy_case.hpp",
        "d.copy_engine = !op.uses_sm();",
        "d.copy_engine = false;",
        "a copy engine's copy drops its batches for a low SM clock",
    ),
]


def create_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cpp_mutants.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, help="a checkout to mutate in place (default: a worktree of HEAD)")
    p.add_argument("--build", type=Path, default=REPO / "build" / "mutation" / "cpp-build", help="build directory")
    p.add_argument("--only", type=int, nargs="*", help="run these mutants (1-based), not all")
    p.add_argument("--timeout", type=float, default=300, help="seconds for one test run")
    return p


def sh(command: list[str], cwd: Path | None = None, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def prepare(source: Path | None, build: Path) -> Path:
    if source is None:
        source = REPO / "build" / "mutation" / "cpp-src"
        if source.exists():
            sh(["git", "worktree", "remove", "--force", str(source)], cwd=REPO)
        done = sh(["git", "worktree", "add", "--detach", str(source), "HEAD"], cwd=REPO)
        if done.returncode != 0:
            sys.exit(f"cpp_mutants.py: cannot make a worktree: {done.stderr.strip()}")
    configure = [
        "cmake",
        "-S",
        str(source),
        "-B",
        str(build),
        "-DCMAKE_BUILD_TYPE=Release",
        "-DMEMBENCH_BUILD_TESTS=ON",
        "-DMEMBENCH_PYTHON_TESTS=OFF",
        "-DCMAKE_CUDA_ARCHITECTURES=90",
    ]
    for step in (configure, ["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)]):
        done = sh(step)
        if done.returncode != 0:
            sys.exit(f"cpp_mutants.py: {' '.join(step[:2])} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return source


def tests_pass(build: Path, timeout: float) -> bool:
    try:
        return (
            sh([str(build / "tests" / "membench_tests"), "--gtest_brief=1"], cwd=build, timeout=timeout).returncode == 0
        )
    except subprocess.TimeoutExpired:
        return False  # a test that hangs on the mutant caught it


def run_one(m: Mutant, source: Path, build: Path, timeout: float) -> str:
    path = source / m.path
    original = path.read_text()
    if original.count(m.old) != 1:
        return "stale"  # the code moved on: the mutant no longer applies
    try:
        path.write_text(original.replace(m.old, m.new))
        if sh(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)]).returncode != 0:
            return "did not compile"
        return "survived" if tests_pass(build, timeout) else "killed"
    finally:
        path.write_text(original)


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    # The tests run in the build folder: a relative --build is the caller's, made absolute before that.
    args.build = args.build.resolve()
    args.source = args.source.resolve() if args.source else None
    chosen = [(i, m) for i, m in enumerate(MUTANTS, 1) if not args.only or i in args.only]
    source = prepare(args.source, args.build)
    if not tests_pass(args.build, args.timeout):
        print("cpp_mutants.py: the tests fail without any mutant; fix them first", file=sys.stderr)
        return 2
    results: dict[str, list[tuple[int, Mutant]]] = {}
    began = time.time()
    for i, m in chosen:
        outcome = run_one(m, source, args.build, args.timeout)
        results.setdefault(outcome, []).append((i, m))
        print(f"{i:3d} {outcome:15s} {m.path}: {m.what}", flush=True)
    sh(["cmake", "--build", str(args.build), "-j", str(os.cpu_count() or 2)])  # leave the build as the source is
    killed, survived = len(results.get("killed", [])), len(results.get("survived", []))
    judged = killed + survived
    print(
        f"\nhost C++ mutants: {killed} of {judged} killed ({100.0 * killed / max(judged, 1):.0f}%)"
        f"; {len(results.get('did not compile', []))} did not compile, {len(results.get('stale', []))} stale"
        f"; {time.time() - began:.0f} s"
    )
    for i, m in results.get("survived", []):
        print(f"  survived {i}: {m.path}: {m.what}")
    for i, m in results.get("stale", []):
        print(f"  stale {i}: {m.path}: '{m.old[:60]}' is not in the file once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
