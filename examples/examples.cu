// User-style kernels with a known access anomaly, each beside its fixed twin,
// for `membench-explain` to place against the measured ceilings: a program a
// user would profile (ncu --set full -o app membench_examples), not a
// membench case. Each kernel's output is checked against the host before it
// is timed (CUDA events, the median of 20 launches after 3); one JSON line a
// kernel: its name, its twin, the milliseconds, the useful bytes.
//
// Sizes: every kernel moves at least 256 MB, over four times the L2 of the GPUs it was written on, so that
// caches carry nothing from one timed launch to the next, and a launch's few microseconds of ramp are a small
// share of its time. Each example builds only the inputs it reads.
//
//   transpose_naive     an 8192 x 8192 transpose writing down columns (stores 32 sectors a request);
//                       twin transpose_padded, through a [32][33] shared tile
//   transpose_conflicts the tile without its pad: reading a column of [32][32] is a 32-way bank conflict;
//                       twin transpose_padded
//   stride2, stride32   reading every 2nd or 32nd float of a larger array; twin contiguous, the same floats' count
//   aos_one_field       reading one field of an array of 4-float structs; twin soa_one_field, the field's own array
//   gather_random       reading through a random permutation; twin gather_sorted, the same kernel, indices in order
//   fma_bound           2048 multiply-adds on each float read: bound by the FMA pipe, no twin
//
// Usage: membench_examples [--only=NAME] [--list] [--verify-only]; a bad argument is one line and status 2, a wrong
// result status 1. --verify-only launches each kernel once and checks it, untimed (for compute-sanitizer).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

#define CHECK(call)                                                                        \
  do {                                                                                     \
    const cudaError_t rc_ = (call);                                                        \
    if (rc_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "membench_examples: %s: %s\n", #call, cudaGetErrorString(rc_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr int kSide = 8192;              // the transposes' matrix
constexpr std::size_t kCount = 1 << 25;  // floats each read kernel delivers
constexpr int kTile = 32;
constexpr int kFmas = 2048;

__global__ void transpose_naive(const float* in, float* out) {
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8)
    out[static_cast<std::size_t>(x) * kSide + y + j] = in[(static_cast<std::size_t>(y) + j) * kSide + x];
}

template <int Pad>
__global__ void transpose_tiled(const float* in, float* out) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(static_cast<std::size_t>(y) + j) * kSide + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8)
    out[(static_cast<std::size_t>(y) + j) * kSide + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void strided_read(const float* in, float* out, int stride) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kCount) out[i] = 2.0f * in[i * stride];
}

struct Point {
  float x, y, z, w;
};
__global__ void aos_one_field(const Point* in, float* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kCount) out[i] = 2.0f * in[i].x;
}

__global__ void gather(const float* in, const unsigned* index, float* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kCount) out[i] = 2.0f * in[index[i]];
}

__global__ void fma_bound(const float* in, float* out, float a, float b) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= kCount) return;
  float v[4] = {in[i], in[i] + 1, in[i] + 2, in[i] + 3};
  for (int s = 0; s < kFmas / 4; ++s)
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = fmaf(v[k], a, b);
  out[i] = v[0] + v[1] + v[2] + v[3];
}

float value_at(std::size_t i) { return static_cast<float>(i % 1021) * 0.25f; }

struct Example {
  std::string name, twin;
  double useful_bytes;
  std::function<void()> launch;
  std::function<bool(const std::vector<float>&)> check;  // the output against the host's
  std::function<void()> prepare;                         // builds the inputs it reads
};

double median_ms(const std::function<void()>& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return (ms[9] + ms[10]) / 2;
}

float* device_copy(const std::vector<float>& host) {
  float* d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  bool list = false, verify_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--only=", 7) == 0)
      only = argv[i] + 7;
    else if (std::strcmp(argv[i], "--list") == 0)
      list = true;
    else if (std::strcmp(argv[i], "--verify-only") == 0)
      verify_only = true;
    else {
      std::fprintf(stderr, "membench_examples: unknown argument '%s' (--only=NAME, --list, --verify-only)\n", argv[i]);
      return 2;
    }
  }
  const std::vector<std::string> names = {"transpose_naive", "transpose_conflicts", "transpose_padded", "stride2",
                                          "stride32",        "contiguous",          "aos_one_field",    "soa_one_field",
                                          "gather_random",   "gather_sorted",       "fma_bound"};
  if (list) {
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    return 0;
  }
  if (!only.empty() && std::find(names.begin(), names.end(), only) == names.end()) {
    std::fprintf(stderr, "membench_examples: --only=%s: no such example (--list names them)\n", only.c_str());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "membench_examples: no CUDA device visible\n");
    return 1;
  }
  const std::size_t square = static_cast<std::size_t>(kSide) * kSide;
  // Each input is built (on the host, then copied) the first time an example asks for it.
  std::vector<float> matrix, wide, fields, soa;
  std::vector<unsigned> random, sorted;
  float *d_matrix = nullptr, *d_wide = nullptr, *d_fields = nullptr, *d_soa = nullptr, *d_out = nullptr;
  unsigned *d_random = nullptr, *d_sorted = nullptr;
  const auto filled = [](std::vector<float>& host, std::size_t count, float*& device) {
    if (device != nullptr) return;
    host.resize(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = value_at(i);
    device = device_copy(host);
  };
  const auto need_matrix = [&] { filled(matrix, square, d_matrix); };
  const auto need_wide = [&] { filled(wide, kCount * 32, d_wide); };
  const auto need_fields = [&] { filled(fields, kCount * 4, d_fields); };
  const auto need_soa = [&] {
    need_fields();
    if (d_soa != nullptr) return;
    soa.resize(kCount);
    for (std::size_t i = 0; i < kCount; ++i) soa[i] = fields[4 * i];
    d_soa = device_copy(soa);
  };
  const auto need_indices = [&] {
    need_wide();
    if (d_random != nullptr) return;
    sorted.resize(kCount);
    std::iota(sorted.begin(), sorted.end(), 0u);
    random = sorted;
    std::shuffle(random.begin(), random.end(), std::mt19937(7));
    CHECK(cudaMalloc(&d_random, kCount * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_sorted, kCount * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_random, random.data(), kCount * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_sorted, sorted.data(), kCount * sizeof(unsigned), cudaMemcpyHostToDevice));
  };
  CHECK(cudaMalloc(&d_out, square * sizeof(float)));

  const dim3 tiles(kSide / kTile, kSide / kTile), rows(kTile, 8);
  const unsigned blocks = static_cast<unsigned>(kCount / 256);
  const auto transposed = [&](const std::vector<float>& out) {
    for (std::size_t y = 0; y < kSide; ++y)
      for (std::size_t x = 0; x < kSide; ++x)
        if (out[x * kSide + y] != matrix[y * kSide + x]) return false;
    return true;
  };
  const auto doubled = [&](const std::function<float(std::size_t)>& source) {
    return [source](const std::vector<float>& out) {
      for (std::size_t i = 0; i < kCount; ++i)
        if (out[i] != 2.0f * source(i)) return false;
      return true;
    };
  };
  const float a = 1.0f - 1.0f / 4096, b = 0.25f;
  const auto fmas = [&](const std::vector<float>& out) {
    for (std::size_t i = 0; i < kCount; i += 4099) {  // a sample: the chains are long
      float v[4] = {wide[i], wide[i] + 1, wide[i] + 2, wide[i] + 3};
      for (int s = 0; s < kFmas / 4; ++s)
        for (float& x : v) x = std::fma(x, a, b);
      if (out[i] != v[0] + v[1] + v[2] + v[3]) return false;
    }
    return true;
  };
  const double matrix_bytes = 2.0 * square * sizeof(float), read_bytes = 2.0 * kCount * sizeof(float);
  std::vector<Example> examples = {
      {"transpose_naive", "transpose_padded", matrix_bytes, [&] { transpose_naive<<<tiles, rows>>>(d_matrix, d_out); },
       transposed, need_matrix},
      {"transpose_conflicts", "transpose_padded", matrix_bytes,
       [&] { transpose_tiled<0><<<tiles, rows>>>(d_matrix, d_out); }, transposed, need_matrix},
      {"transpose_padded", "", matrix_bytes, [&] { transpose_tiled<1><<<tiles, rows>>>(d_matrix, d_out); }, transposed,
       need_matrix},
      {"stride2", "contiguous", read_bytes, [&] { strided_read<<<blocks, 256>>>(d_wide, d_out, 2); },
       doubled([&](std::size_t i) { return wide[2 * i]; }), need_wide},
      {"stride32", "contiguous", read_bytes, [&] { strided_read<<<blocks, 256>>>(d_wide, d_out, 32); },
       doubled([&](std::size_t i) { return wide[32 * i]; }), need_wide},
      {"contiguous", "", read_bytes, [&] { strided_read<<<blocks, 256>>>(d_wide, d_out, 1); },
       doubled([&](std::size_t i) { return wide[i]; }), need_wide},
      {"aos_one_field", "soa_one_field", read_bytes,
       [&] { aos_one_field<<<blocks, 256>>>(reinterpret_cast<const Point*>(d_fields), d_out); },
       doubled([&](std::size_t i) { return fields[4 * i]; }), need_fields},
      {"soa_one_field", "", read_bytes, [&] { strided_read<<<blocks, 256>>>(d_soa, d_out, 1); },
       doubled([&](std::size_t i) { return soa[i]; }), need_soa},
      {"gather_random", "gather_sorted", read_bytes + kCount * 4.0,
       [&] { gather<<<blocks, 256>>>(d_wide, d_random, d_out); },
       doubled([&](std::size_t i) { return wide[random[i]]; }), need_indices},
      {"gather_sorted", "", read_bytes + kCount * 4.0, [&] { gather<<<blocks, 256>>>(d_wide, d_sorted, d_out); },
       doubled([&](std::size_t i) { return wide[sorted[i]]; }), need_indices},
      {"fma_bound", "", read_bytes, [&] { fma_bound<<<blocks, 256>>>(d_wide, d_out, a, b); }, fmas, need_wide},
  };
  int status = 0;
  for (Example& e : examples) {
    if (!only.empty() && e.name != only) continue;
    e.prepare();
    const std::size_t count = e.name.rfind("transpose", 0) == 0 ? square : kCount;
    CHECK(cudaMemset(d_out, 0xFF, count * sizeof(float)));  // poison: a kernel that writes nothing fails
    e.launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(count);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (!e.check(out)) {
      std::printf("{\"example\": \"%s\", \"error\": \"its output differs from the host's\"}\n", e.name.c_str());
      status = 1;
      continue;
    }
    if (verify_only) {
      std::printf("{\"example\": \"%s\", \"verified\": true}\n", e.name.c_str());
      continue;
    }
    const double ms = median_ms(e.launch);
    std::printf(
        "{\"example\": \"%s\", \"twin\": \"%s\", \"ms\": %.6f, \"useful_bytes\": %.0f, \"gb_per_second\": %.2f}\n",
        e.name.c_str(), e.twin.c_str(), ms, e.useful_bytes, e.useful_bytes / (ms * 1e-3) / 1e9);
    std::fflush(stdout);
  }
  for (void* p : {static_cast<void*>(d_matrix), static_cast<void*>(d_wide), static_cast<void*>(d_fields),
                  static_cast<void*>(d_soa), static_cast<void*>(d_out), static_cast<void*>(d_random),
                  static_cast<void*>(d_sorted)})
    CHECK(cudaFree(p));  // null where an example did not need it
  return status;
}
