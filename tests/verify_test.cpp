// The verification core on the host: the check that stands between a kernel
// and a published number. Every bad element is found wherever it falls in the
// pieces the host's cores split the check into, counts add up across them,
// poison is told from an ordinary NaN, and the input pattern has no
// structure a wrong address could hide in. An array that arrives a piece at
// a time (device memory through two staging buffers) is checked whole, with
// the array's indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "gpu.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench {
namespace {

constexpr std::uint32_t kSeed = 5;

float expected(std::size_t i) { return 2.0f * pattern_value(i, kSeed); }

// A result that matches expected() everywhere.
std::vector<float> correct(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = expected(i);
  return v;
}

// Doubles: element i is i / 2, exact.
double half(std::size_t i) { return 0.5 * static_cast<double>(i); }

std::vector<double> halves(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = half(i);
  return v;
}

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Large enough that the check is split across every core the host has.
constexpr std::size_t kSplitN = std::size_t{1} << 20;

TEST(Verify, ACorrectResultPasses) {
  EXPECT_FALSE(all_mismatches(correct(1000), expected));
  EXPECT_FALSE(first_mismatch(correct(1000), expected));
  EXPECT_FALSE(all_mismatches(std::vector<float>{}, expected));
}

TEST(Verify, OneBadElementAtTheStartMiddleAndEndOfEveryPiece) {
  std::vector<float> got = correct(kSplitN);
  const std::size_t workers = parallel_workers(kSplitN, kCheckMinPiece);
  ASSERT_GE(workers, 1u);
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = kSplitN * w / workers, end = kSplitN * (w + 1) / workers;
    for (std::size_t i : {begin, begin + (end - begin) / 2, end - 1}) {
      const float keep = got[i];
      got[i] = keep + 0.25f;
      const auto bad = all_mismatches(got, expected);
      ASSERT_TRUE(bad) << "element " << i << " of piece " << w << " of " << workers << " was not checked";
      EXPECT_EQ(bad->index, i);
      EXPECT_EQ(bad->count, 1u);
      EXPECT_EQ(bad->total, kSplitN);
      EXPECT_EQ(bad->got, static_cast<double>(keep + 0.25f));
      EXPECT_EQ(bad->expected, static_cast<double>(keep));
      got[i] = keep;
    }
  }
}

TEST(Verify, CountsAddUpAcrossPiecesAndTheLowestIndexIsReported) {
  std::vector<float> got = correct(kSplitN);
  const std::size_t workers = parallel_workers(kSplitN, kCheckMinPiece);
  // Two bad elements in every piece, the last piece's first.
  for (std::size_t w = workers; w-- > 0;) {
    const std::size_t begin = kSplitN * w / workers;
    got[begin + 7] = -1.0f;
    got[begin + 9] = -1.0f;
  }
  const auto bad = all_mismatches(got, expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->count, 2 * workers);
  EXPECT_EQ(bad->index, 7u);
  EXPECT_EQ(bad->got, -1.0);
}

TEST(Verify, PiecesCoverEveryIndexOnceWhateverTheSplit) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000003}}) {
    for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{1} << 20}) {
      std::vector<int> seen(n, 0);
      std::vector<int> worker_seen(parallel_workers(n, piece), 0);
      parallel_for(n, piece, [&](std::size_t worker, std::size_t begin, std::size_t end) {
        ++worker_seen[worker];
        for (std::size_t i = begin; i < end; ++i) ++seen[i];
      });
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[i], 1) << "index " << i << " of " << n << ", pieces of " << piece;
      for (int w : worker_seen) EXPECT_EQ(w, 1);
    }
  }
  EXPECT_EQ(parallel_workers(10, 100), 1u);  // less than a piece: one worker
  EXPECT_EQ(parallel_workers(0, 100), 1u);
  EXPECT_GE(parallel_workers(std::size_t{1} << 30, 1), 1u);
}

TEST(Verify, PoisonIsEveryByte0xFFNotAnyNan) {
  EXPECT_EQ(kPoisonByte, 0xFF);
  const float poison = poison_value();
  std::uint32_t bits;
  std::memcpy(&bits, &poison, sizeof bits);
  EXPECT_EQ(bits, 0xFFFFFFFFu);
  EXPECT_TRUE(std::isnan(poison));
  EXPECT_TRUE(is_poison(poison));
  EXPECT_TRUE(is_poison(poison_value<double>()));
  EXPECT_FALSE(is_poison(from_bits(0x7FC00000u)));  // the canonical quiet NaN a kernel computes
  EXPECT_FALSE(is_poison(from_bits(0xFFFFFFFEu)));  // one bit off
  EXPECT_FALSE(is_poison(0.0f));
  // An element that must stay unwritten: poison passes, a NaN the kernel wrote does not.
  const auto unwritten = [](std::size_t) { return poison_value(); };
  EXPECT_FALSE(all_mismatches(std::vector<float>(100, poison_value()), unwritten));
  std::vector<float> written(100, poison_value());
  written[42] = from_bits(0x7FC00000u);
  const auto bad = all_mismatches(written, unwritten);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, 42u);
  EXPECT_FALSE(bad->got_poison);
  EXPECT_TRUE(bad->expected_poison);
  EXPECT_EQ(describe(*bad, "out"),
            "verification failed: out[42] = nan, expected poison (never written) (1 of 100 elements differ)");
}

TEST(Verify, DescribeNamesTheArrayTheIndexBothValuesAndTheCount) {
  std::vector<float> got = correct(2048);
  got[1000] = 0.0f;
  got[1500] = poison_value();
  const auto bad = all_mismatches(got, expected);
  ASSERT_TRUE(bad);
  std::ostringstream want;
  want.precision(17);
  want << "verification failed: partial[1000] = 0, expected " << static_cast<double>(expected(1000))
       << " (2 of 2048 elements differ)";
  EXPECT_EQ(describe(*bad, "partial"), want.str());
  Mismatch lone;
  lone.index = 3;
  lone.got_poison = true;
  lone.expected = 4.5;
  EXPECT_EQ(describe(lone, "out"), "verification failed: out[3] = poison (never written), expected 4.5");
}

TEST(Verify, FirstMismatchIsTheLowestIndexBitForBit) {
  std::vector<float> got = correct(64);
  got[40] = -0.0f;
  got[30] = from_bits(0x7FC00000u);
  auto zero = [](std::size_t) { return 0.0f; };
  std::vector<float> negative_zero(4, -0.0f);
  ASSERT_TRUE(first_mismatch(negative_zero, zero));  // -0 == 0 as numbers, not as bits
  const auto bad = first_mismatch(got, expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, 30u);
  EXPECT_EQ(bad->total, 64u);
}

TEST(Verify, DoublesAreCheckedBitForBit) {
  std::vector<double> got = halves(3000);
  EXPECT_FALSE(all_mismatches(got, half));
  got[2999] = std::nextafter(got[2999], 1e9);
  const auto bad = all_mismatches(got, half);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, 2999u);
  EXPECT_EQ(bad->count, 1u);
}

TEST(Verify, ASmallOutputOfLongSumsIsSplitAcrossTheCores) {
  // A reduction's partial sums: a thousand elements, each standing for a
  // block's worth of work, must not fall to one core.
  EXPECT_EQ(parallel_workers(1056, kCheckMinPiece),
            std::min<std::size_t>(1056 / kCheckMinPiece, std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_LE(kCheckMinPiece, 1056u / 16);  // 16 cores each get a piece
}

// ---- the check of an array that arrives a piece at a time --------------------------------

// Fetches pieces of `source` as a device copy would, and records them.
struct PieceSource {
  const std::vector<float>& source;
  std::vector<std::pair<std::size_t, std::size_t>> fetched;
  FetchPiece<float> fetch() {
    return [this](std::size_t first, std::size_t n, float* into) {
      fetched.emplace_back(first, n);
      std::memcpy(into, source.data() + first, n * sizeof(float));
    };
  }
};

TEST(Verify, PiecewiseFetchesEveryElementOnceInOrderThroughBothBuffers) {
  const std::vector<float> got = correct(1000);
  std::vector<float> a(300), b(300);
  float* const buffers[2] = {a.data(), b.data()};
  PieceSource src{got, {}};
  EXPECT_FALSE(piecewise_mismatches(got.size(), 300, buffers, src.fetch(), expected));
  const std::vector<std::pair<std::size_t, std::size_t>> want{{0, 300}, {300, 300}, {600, 300}, {900, 100}};
  EXPECT_EQ(src.fetched, want);
  EXPECT_EQ(a[0], got[600]);  // pieces 0 and 2 went to the first buffer,
  EXPECT_EQ(b[0], got[900]);  // 1 and 3 to the second
  PieceSource none{got, {}};
  EXPECT_FALSE(piecewise_mismatches(0, 300, buffers, none.fetch(), expected));
  EXPECT_TRUE(none.fetched.empty());
}

TEST(Verify, PiecewiseFindsBadElementsAtPieceEdgesWithTheArraysIndices) {
  std::vector<float> got = correct(1000);
  std::vector<float> a(300), b(300);
  float* const buffers[2] = {a.data(), b.data()};
  for (std::size_t i :
       {std::size_t{0}, std::size_t{299}, std::size_t{300}, std::size_t{599}, std::size_t{900}, std::size_t{999}}) {
    const float keep = got[i];
    got[i] = keep + 0.25f;
    PieceSource src{got, {}};
    const auto bad = piecewise_mismatches(got.size(), 300, buffers, src.fetch(), expected);
    ASSERT_TRUE(bad) << "element " << i;
    EXPECT_EQ(bad->index, i);
    EXPECT_EQ(bad->count, 1u);
    EXPECT_EQ(bad->total, 1000u);
    EXPECT_EQ(bad->got, static_cast<double>(keep + 0.25f));
    got[i] = keep;
  }
  // One bad element in every piece: the lowest is reported, all are counted.
  for (std::size_t i : {950u, 650u, 310u, 5u}) got[i] = -1.0f;
  PieceSource src{got, {}};
  const auto bad = piecewise_mismatches(got.size(), 300, buffers, src.fetch(), expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, 5u);
  EXPECT_EQ(bad->count, 4u);
}

TEST(Verify, PiecewiseChecksDoublesAndPassesAFetchFailureOn) {
  std::vector<double> got = halves(777);
  got[776] = std::nextafter(got[776], 1e9);
  std::vector<double> a(100), b(100);
  double* const buffers[2] = {a.data(), b.data()};
  const auto copy = [&](std::size_t first, std::size_t n, double* into) {
    std::memcpy(into, got.data() + first, n * sizeof(double));
  };
  const auto bad = piecewise_mismatches(got.size(), 100, buffers, copy, half);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, 776u);
  int fetches = 0;
  const auto failing = [&](std::size_t first, std::size_t n, double* into) {
    if (++fetches == 3) throw std::runtime_error("copy failed");
    copy(first, n, into);
  };
  EXPECT_THROW(piecewise_mismatches(got.size(), 100, buffers, failing, half), std::runtime_error);
  EXPECT_THROW(piecewise_mismatches(got.size(), 0, buffers, copy, half), std::invalid_argument);
}

TEST(Verify, TheRawPointerFormChecksThePointedCount) {
  std::vector<float> got = correct(10);
  got[9] = 1e30f;
  EXPECT_FALSE(all_mismatches(got.data(), 9, expected));  // the bad element is past the count
  EXPECT_TRUE(all_mismatches(got.data(), 10, expected));
}

// ---- the input pattern ----------------------------------------------------------------------

TEST(Pattern, QuartersFrom1To256AndThreeQuarters) {
  float lo = 1e9f, hi = -1e9f;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float v = pattern_value(i, kSeed);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ASSERT_EQ(v * 4.0f, std::floor(v * 4.0f)) << "not a multiple of 1/4 at " << i;  // doubling stays exact
  }
  EXPECT_EQ(lo, 1.0f);     // 1 + 0 / 4
  EXPECT_EQ(hi, 256.75f);  // 1 + 1023 / 4
}

TEST(Pattern, ManyDistinctValuesAndNoShortPeriod) {
  std::set<float> distinct;
  for (std::uint64_t i = 0; i < 4096; ++i) distinct.insert(pattern_value(i, kSeed));
  EXPECT_GT(distinct.size(), 1000u);  // of 1024 possible
  // A kernel that reads element i + p instead of i must almost never read the same value.
  for (std::uint64_t p = 1; p <= 4096; ++p) {
    int same = 0;
    for (std::uint64_t i = 0; i < 2048; ++i) same += pattern_value(i, kSeed) == pattern_value(i + p, kSeed);
    ASSERT_LT(same, 2048 / 50) << "period-like repetition at offset " << p;
  }
  // Nor at any power of two: a hash that mixed only the low bits would repeat there.
  for (int k = 10; k < 48; ++k) {
    int same = 0;
    for (std::uint64_t i = 0; i < 2048; ++i)
      same += pattern_value(i, kSeed) == pattern_value(i + (std::uint64_t{1} << k), kSeed);
    ASSERT_LT(same, 2048 / 50) << "repeats at offset 2^" << k;
  }
  // Indices past 2^32 are not the low 32 bits again, and the seed changes the values.
  int same_high = 0, same_seed = 0;
  for (std::uint64_t i = 0; i < 2048; ++i) {
    same_high += pattern_value(i, kSeed) == pattern_value(i + (std::uint64_t{1} << 32), kSeed);
    same_seed += pattern_value(i, kSeed) == pattern_value(i, kSeed + 1);
  }
  EXPECT_LT(same_high, 2048 / 50);
  EXPECT_LT(same_seed, 2048 / 50);
}

TEST(Pattern, SmallIntegersFrom1To16) {
  std::set<float> values;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const float v = small_int_value(i);
    ASSERT_EQ(v, std::floor(v));
    values.insert(v);
  }
  EXPECT_EQ(values.size(), 16u);
  EXPECT_EQ(*values.begin(), 1.0f);
  EXPECT_EQ(*values.rbegin(), 16.0f);
}

// ---- device memory, through the pinned staging buffers -----------------------------------

TEST(VerifyGpu, DeviceArraysOfSeveralPiecesAreCheckedWhole) {
  MEMBENCH_REQUIRE_GPU();
  const std::size_t piece = kStagingBytes / sizeof(float);
  const std::size_t n = 2 * piece + 123;
  DeviceBuffer<float> out(n);
  MEMBENCH_CUDA(launch_fill_pattern(out.get(), n, kSeed, nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  const auto pattern = [](std::size_t i) { return pattern_value(i, kSeed); };
  EXPECT_FALSE(device_mismatches(out.get(), n, pattern));
  const float wrong = -2.0f;
  for (std::size_t i : {n - 1, piece, piece - 1})
    MEMBENCH_CUDA(cudaMemcpy(out.get() + i, &wrong, sizeof wrong, cudaMemcpyHostToDevice));
  const auto bad = device_mismatches(out.get(), n, pattern);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, piece - 1);
  EXPECT_EQ(bad->count, 3u);
  EXPECT_EQ(bad->total, n);
  EXPECT_EQ(bad->got, -2.0);
  EXPECT_FALSE(device_mismatches(out.get(), piece - 1, pattern));  // the count bounds the check
}

TEST(VerifyGpu, DeviceDoublesAndPoisonAreCheckedBitForBit) {
  MEMBENCH_REQUIRE_GPU();
  const std::size_t n = kStagingBytes / sizeof(double) + 7;
  DeviceBuffer<double> out(n);
  MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  const auto unwritten = [](std::size_t) { return poison_value<double>(); };
  EXPECT_FALSE(device_mismatches(out.get(), n, unwritten));
  const double written = 0.0;
  MEMBENCH_CUDA(cudaMemcpy(out.get() + n - 3, &written, sizeof written, cudaMemcpyHostToDevice));
  const auto bad = device_mismatches(out.get(), n, unwritten);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->index, n - 3);
  EXPECT_TRUE(bad->expected_poison);
  EXPECT_FALSE(bad->got_poison);
}

}  // namespace
}  // namespace membench
