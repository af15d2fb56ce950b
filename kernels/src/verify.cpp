#include "membench/verify.hpp"

#include <algorithm>
#include <sstream>
#include <thread>

namespace membench {

namespace {

template <class T>
std::optional<Mismatch> check_in_parallel(const T* got, std::size_t count, const std::function<T(std::size_t)>& expected) {
  constexpr std::size_t kMinPiece = 1 << 20;
  std::vector<std::optional<Mismatch>> found(parallel_workers(count, kMinPiece));
  parallel_for(count, kMinPiece, [&](std::size_t worker, std::size_t begin, std::size_t end) {
    std::optional<Mismatch>& mine = found[worker];
    for (std::size_t i = begin; i < end; ++i) {
      const T want = expected(i);
      if (std::memcmp(&got[i], &want, sizeof(T)) == 0) continue;
      if (mine) ++mine->count;
      else mine = mismatch_at(i, got[i], want, count);
    }
  });
  std::optional<Mismatch> first;
  for (const auto& f : found) {
    if (!f) continue;
    if (!first) first = f;
    else first->count += f->count;
  }
  return first;
}

std::string show(double x, bool poison) {
  if (poison) return "poison (never written)";
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

}  // namespace

std::size_t parallel_workers(std::size_t n, std::size_t min_piece) {
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_piece, 1), 1,
                                 std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t n, std::size_t min_piece,
                  const std::function<void(std::size_t, std::size_t, std::size_t)>& work) {
  const std::size_t workers = parallel_workers(n, min_piece);
  auto run = [&](std::size_t w) { work(w, n * w / workers, n * (w + 1) / workers); };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(run, w);
  run(0);
  for (auto& t : threads) t.join();
}

std::optional<Mismatch> all_mismatches(const std::vector<float>& got, const std::function<float(std::size_t)>& expected) {
  return check_in_parallel(got.data(), got.size(), expected);
}

std::optional<Mismatch> all_mismatches(const float* got, std::size_t count,
                                       const std::function<float(std::size_t)>& expected) {
  return check_in_parallel(got, count, expected);
}

std::optional<Mismatch> all_mismatches(const std::vector<double>& got, const std::function<double(std::size_t)>& expected) {
  return check_in_parallel(got.data(), got.size(), expected);
}

std::string describe(const Mismatch& m, const std::string& array_name) {
  std::ostringstream os;
  os << "verification failed: " << array_name << '[' << m.index << "] = " << show(m.got, m.got_poison)
     << ", expected " << show(m.expected, m.expected_poison);
  if (m.total > 0) os << " (" << m.count << " of " << m.total << " elements differ)";
  return os.str();
}

std::vector<double> pattern_chunk_sums(std::size_t chunks, std::size_t floats_per_chunk, std::uint32_t seed) {
  std::vector<double> sums(chunks);
  parallel_for(chunks, 64, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t chunk = begin; chunk < end; ++chunk) {
      double s = 0;
      for (std::size_t e = chunk * floats_per_chunk; e < (chunk + 1) * floats_per_chunk; ++e) s += pattern_value(e, seed);
      sums[chunk] = s;
    }
  });
  return sums;
}

}  // namespace membench
