// The rate a user attains from the tensor cores: cuBLASLt's best GEMM (fp32 accumulate) in bfloat16, tf32 and
// fp8 (e4m3), timed with CUDA events, median of 20 launches after 5 warm-ups, on random data; sampled elements
// checked against a double product of the inputs as stored. One line per type, shape and output type.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CK(x)                                                         \
  do {                                                                \
    auto e = (x);                                                     \
    if (e != 0) {                                                     \
      std::printf("error %d at %s:%d\n", int(e), __FILE__, __LINE__); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

struct Type {
  const char* name;
  cudaDataType_t data;
  cublasComputeType_t compute;
  int bytes;
};

// Stores x in the type's bytes at p; returns the value stored.
double store(const Type& t, float x, unsigned char* p) {
  if (t.data == CUDA_R_16BF) {
    __nv_bfloat16 v = __float2bfloat16(x);
    std::memcpy(p, &v, 2);
    return __bfloat162float(v);
  }
  if (t.data == CUDA_R_8F_E4M3) {
    __nv_fp8_e4m3 v(x);
    std::memcpy(p, &v, 1);
    return float(v);
  }
  std::memcpy(p, &x, 4);  // tf32: the GEMM rounds the fp32 inputs itself
  return x;
}

int main(int argc, char** argv) {
  cublasLtHandle_t lt;
  CK(cublasLtCreate(&lt));
  const Type types[] = {{"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
                        {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
                        {"e4m3", CUDA_R_8F_E4M3, CUBLAS_COMPUTE_32F, 1}};
  const int shapes[][3] = {{8192, 8192, 8192}, {16384, 16384, 8192}, {4096, 4096, 4096}};
  for (const Type& ty : types) {
    if (argc > 1 && std::strcmp(argv[1], ty.name) != 0) continue;
    for (auto& s : shapes) {
      const int M = s[0], N = s[1], K = s[2];
      std::vector<unsigned char> ha(size_t(M) * K * ty.bytes), hb(size_t(K) * N * ty.bytes);
      std::vector<double> va(size_t(M) * K), vb(size_t(K) * N);
      std::mt19937 rng(42);
      std::uniform_real_distribution<float> u(-1, 1);
      for (size_t i = 0; i < va.size(); ++i) va[i] = store(ty, u(rng), &ha[i * ty.bytes]);
      for (size_t i = 0; i < vb.size(); ++i) vb[i] = store(ty, u(rng), &hb[i * ty.bytes]);
      for (cudaDataType_t out : {CUDA_R_16BF, CUDA_R_32F}) {
        if (ty.data == CUDA_R_32F && out == CUDA_R_16BF) continue;  // tf32 writes fp32
        const int out_bytes_each = out == CUDA_R_16BF ? 2 : 4;
        void *a, *b, *d, *ws;
        const size_t out_bytes = size_t(M) * N * out_bytes_each, ws_bytes = 64 << 20;
        CK(cudaMalloc(&a, ha.size()));
        CK(cudaMalloc(&b, hb.size()));
        CK(cudaMalloc(&d, out_bytes));
        CK(cudaMalloc(&ws, ws_bytes));
        CK(cudaMemcpy(a, ha.data(), ha.size(), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, hb.data(), hb.size(), cudaMemcpyHostToDevice));
        CK(cudaMemset(d, 0xFF, out_bytes));
        cublasLtMatmulDesc_t op;
        CK(cublasLtMatmulDescCreate(&op, ty.compute, CUDA_R_32F));
        cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
        // Row-major A (M x K) and B (K x N, stored N x K): the TN layout fp8 requires.
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
        cublasLtMatrixLayout_t la, lb, ld;
        CK(cublasLtMatrixLayoutCreate(&la, ty.data, K, M, K));
        CK(cublasLtMatrixLayoutCreate(&lb, ty.data, K, N, K));
        CK(cublasLtMatrixLayoutCreate(&ld, out, M, N, M));
        cublasLtMatmulPreference_t pref;
        CK(cublasLtMatmulPreferenceCreate(&pref));
        CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                sizeof ws_bytes));
        cublasLtMatmulHeuristicResult_t heur[8];
        int found = 0;
        const auto hs = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 8, heur, &found);
        const float alpha = 1, beta = 0;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        double best = 0;
        for (int h = 0; hs == CUBLAS_STATUS_SUCCESS && h < found; ++h) {
          auto run = [&] {
            return cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heur[h].algo, ws, ws_bytes, 0);
          };
          if (run() != CUBLAS_STATUS_SUCCESS) continue;
          for (int i = 0; i < 5; ++i) CK(run());
          std::vector<float> ms;
          for (int i = 0; i < 20; ++i) {
            cudaEventRecord(e0);
            CK(run());
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float m;
            cudaEventElapsedTime(&m, e0, e1);
            ms.push_back(m);
          }
          std::sort(ms.begin(), ms.end());
          const double tflops = 2.0 * M * N * K / (ms[ms.size() / 2] * 1e-3) / 1e12;
          if (tflops > best) best = tflops;
        }
        std::vector<unsigned char> hd(out_bytes);
        CK(cudaMemcpy(hd.data(), d, out_bytes, cudaMemcpyDeviceToHost));
        double worst = 0;
        std::mt19937 pick(7);
        for (int sample = 0; best > 0 && sample < 64; ++sample) {
          const int i = pick() % M, j = pick() % N;
          double want = 0;
          for (int k = 0; k < K; ++k) want += va[size_t(i) * K + k] * vb[size_t(j) * K + k];
          const size_t at = size_t(j) * M + i;
          const float got = out == CUDA_R_16BF ? __bfloat162float(reinterpret_cast<__nv_bfloat16*>(hd.data())[at])
                                               : reinterpret_cast<float*>(hd.data())[at];
          worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::sqrt(double(K)) / 4));
        }
        std::printf(
            "cublaslt %s %d %d %d out %s: %.1f TFLOP/s (%d algorithms, heuristic status %d; worst sampled "
            "error %.3g %s)\n",
            ty.name, M, N, K, out == CUDA_R_16BF ? "bf16" : "fp32", best, found, int(hs), worst,
            best <= 0      ? "NONE"
            : worst < 0.05 ? "ok"
                           : "WRONG");
        cudaFree(a), cudaFree(b), cudaFree(d), cudaFree(ws);
        cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(ld);
        cublasLtMatmulPreferenceDestroy(pref), cublasLtMatmulDescDestroy(op);
      }
    }
  }
  return 0;
}
