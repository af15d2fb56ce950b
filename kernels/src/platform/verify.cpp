#include "membench/platform/verify.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace membench {

namespace {

// `later` found at higher indices than `into`: the lowest stays, counts add.
void merge_later(std::optional<Mismatch>& into, const std::optional<Mismatch>& later) {
  if (!later) return;
  if (!into)
    into = later;
  else
    into->count += later->count;
}

// Elements [first, first + count) of an array of `total`, got[k] being element
// first + k; indices in the result are the array's.
template <class T>
std::optional<Mismatch> check_in_parallel(const T* got, std::size_t first, std::size_t count, std::size_t total,
                                          const std::function<T(std::size_t)>& expected) {
  std::vector<std::optional<Mismatch>> found(parallel_workers(count, kCheckMinPiece));
  parallel_for(count, kCheckMinPiece, [&](std::size_t worker, std::size_t begin, std::size_t end) {
    std::optional<Mismatch>& mine = found[worker];
    for (std::size_t k = begin; k < end; ++k) {
      const T want = expected(first + k);
      if (std::memcmp(&got[k], &want, sizeof(T)) == 0) continue;
      if (mine)
        ++mine->count;
      else
        mine = mismatch_at(first + k, got[k], want, total);
    }
  });
  std::optional<Mismatch> lowest;
  for (const auto& f : found) merge_later(lowest, f);
  return lowest;
}

template <class T>
std::optional<Mismatch> check_piecewise(std::size_t count, std::size_t piece, T* const buffers[2],
                                        const FetchPiece<T>& fetch, const std::function<T(std::size_t)>& expected) {
  if (piece == 0) throw std::invalid_argument("piecewise check: pieces of no elements");
  std::optional<Mismatch> found, checked;
  std::thread checking;  // checks the piece fetched last, into `checked`
  auto collect = [&] {
    if (!checking.joinable()) return;
    checking.join();
    merge_later(found, checked);
  };
  try {
    for (std::size_t first = 0, k = 0; first < count; first += piece, ++k) {
      const std::size_t n = std::min(piece, count - first);
      T* into = buffers[k % 2];
      fetch(first, n, into);  // the other buffer's piece is being checked meanwhile
      collect();
      checking = std::thread([&, into, first, n] { checked = check_in_parallel<T>(into, first, n, count, expected); });
    }
    collect();
  } catch (...) {
    if (checking.joinable()) checking.join();
    throw;
  }
  return found;
}

// Two pinned host buffers for the whole process (portable: any device's
// copies may use them), or ordinary memory where pinning fails.
class Staging {
 public:
  Staging() {
    for (int b = 0; b < 2; ++b) {
      if (cudaHostAlloc(&pinned_[b], kStagingBytes, cudaHostAllocPortable) == cudaSuccess) continue;
      cudaGetLastError();
      pinned_[b] = nullptr;
      pageable_[b] = std::make_unique<char[]>(kStagingBytes);
    }
  }
  ~Staging() {
    for (void* p : pinned_)
      if (p != nullptr) cudaFreeHost(p);  // at exit the runtime may already be gone: nothing to report
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  void* buffer(int b) const { return pinned_[b] != nullptr ? pinned_[b] : pageable_[b].get(); }
  std::mutex& mutex() { return mutex_; }

 private:
  void* pinned_[2] = {nullptr, nullptr};
  std::unique_ptr<char[]> pageable_[2];
  std::mutex mutex_;
};

// The one pair, shared by every element type (a function-local static in
// the template below would make a pair for each).
Staging& staging_pair() {
  static Staging pair;
  return pair;
}

template <class T>
std::optional<Mismatch> check_device(const T* device, std::size_t count,
                                     const std::function<T(std::size_t)>& expected) {
  Staging& staging = staging_pair();
  std::lock_guard<std::mutex> lock(staging.mutex());
  T* const buffers[2] = {static_cast<T*>(staging.buffer(0)), static_cast<T*>(staging.buffer(1))};
  return check_piecewise<T>(
      count, kStagingBytes / sizeof(T), buffers,
      [device](std::size_t first, std::size_t n, T* into) {
        MEMBENCH_CUDA(cudaMemcpy(into, device + first, n * sizeof(T), cudaMemcpyDeviceToHost));
      },
      expected);
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

std::optional<Mismatch> all_mismatches(const std::vector<float>& got,
                                       const std::function<float(std::size_t)>& expected) {
  return check_in_parallel<float>(got.data(), 0, got.size(), got.size(), expected);
}

std::optional<Mismatch> all_mismatches(const float* got, std::size_t count,
                                       const std::function<float(std::size_t)>& expected) {
  return check_in_parallel<float>(got, 0, count, count, expected);
}

std::optional<Mismatch> all_mismatches(const std::vector<double>& got,
                                       const std::function<double(std::size_t)>& expected) {
  return check_in_parallel<double>(got.data(), 0, got.size(), got.size(), expected);
}

std::optional<Mismatch> piecewise_mismatches(std::size_t count, std::size_t piece, float* const buffers[2],
                                             const FetchPiece<float>& fetch,
                                             const std::function<float(std::size_t)>& expected) {
  return check_piecewise<float>(count, piece, buffers, fetch, expected);
}

std::optional<Mismatch> piecewise_mismatches(std::size_t count, std::size_t piece, double* const buffers[2],
                                             const FetchPiece<double>& fetch,
                                             const std::function<double(std::size_t)>& expected) {
  return check_piecewise<double>(count, piece, buffers, fetch, expected);
}

std::optional<Mismatch> device_mismatches(const float* device, std::size_t count,
                                          const std::function<float(std::size_t)>& expected) {
  return check_device<float>(device, count, expected);
}

std::optional<Mismatch> device_mismatches(const double* device, std::size_t count,
                                          const std::function<double(std::size_t)>& expected) {
  return check_device<double>(device, count, expected);
}

std::string describe(const Mismatch& m, const std::string& array_name) {
  std::ostringstream os;
  os << "verification failed: " << array_name << '[' << m.index << "] = " << show(m.got, m.got_poison) << ", expected "
     << show(m.expected, m.expected_poison);
  if (m.total > 0) os << " (" << m.count << " of " << m.total << " elements differ)";
  return os.str();
}

std::vector<double> pattern_chunk_sums(std::size_t chunks, std::size_t floats_per_chunk, std::uint32_t seed) {
  std::vector<double> sums(chunks);
  parallel_for(chunks, 64, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t chunk = begin; chunk < end; ++chunk) {
      double s = 0;
      for (std::size_t e = chunk * floats_per_chunk; e < (chunk + 1) * floats_per_chunk; ++e)
        s += pattern_value(e, seed);
      sums[chunk] = s;
    }
  });
  return sums;
}

}  // namespace membench
