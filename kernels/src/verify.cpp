#include "membench/verify.hpp"

#include <algorithm>
#include <sstream>
#include <thread>

#include "membench/cuda.hpp"
#include "membench/pattern.hpp"

namespace membench {

std::vector<float> copy_to_host(const float* device, std::size_t count) {
  std::vector<float> host(count);
  MEMBENCH_CUDA(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

std::optional<Mismatch> all_mismatches(const std::vector<float>& got, const std::function<float(std::size_t)>& expected) {
  constexpr std::size_t kMinChunk = 1 << 20;
  const std::size_t workers = std::clamp<std::size_t>(got.size() / kMinChunk, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::optional<Mismatch>> found(workers);
  auto check = [&](std::size_t w) {
    const std::size_t begin = got.size() * w / workers, end = got.size() * (w + 1) / workers;
    for (std::size_t i = begin; i < end; ++i) {
      const float want = expected(i);
      if (std::memcmp(&got[i], &want, sizeof(float)) == 0) continue;
      if (found[w]) ++found[w]->count;
      else found[w] = Mismatch{i, got[i], want, 1, got.size()};
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(check, w);
  check(0);
  for (auto& t : threads) t.join();
  std::optional<Mismatch> first;
  for (const auto& f : found) {
    if (!f) continue;
    if (!first) first = f;
    else first->count += f->count;
  }
  return first;
}

namespace {
std::string show(float x) {
  if (is_poison(x)) return "poison (never written)";
  std::ostringstream os;
  os.precision(9);
  os << x;
  return os.str();
}
}  // namespace

std::string describe(const Mismatch& m, const std::string& array_name) {
  std::ostringstream os;
  os << "verification failed: " << array_name << '[' << m.index << "] = " << show(m.got) << ", expected "
     << show(m.expected);
  if (m.total > 0) os << " (" << m.count << " of " << m.total << " elements differ)";
  return os.str();
}

}  // namespace membench
