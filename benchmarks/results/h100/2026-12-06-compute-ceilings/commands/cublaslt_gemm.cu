// The rate a user attains from the tensor cores: cuBLASLt's best bfloat16 GEMM (fp32 accumulate), timed with CUDA
// events, median of 20 launches after 5 warm-ups, on random data; sampled elements checked against a double
// product. Prints one line per shape: M N K, output type, TFLOP/s, .
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

int main() {
  cublasLtHandle_t lt;
  CK(cublasLtCreate(&lt));
  const int shapes[][3] = {{8192, 8192, 8192}, {16384, 16384, 8192}, {4096, 4096, 4096}};
  for (auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    for (bool bf16_out : {true, false}) {
      std::vector<__nv_bfloat16> ha(size_t(M) * K), hb(size_t(K) * N);
      std::mt19937 rng(42);
      std::uniform_real_distribution<float> u(-1, 1);
      for (auto& x : ha) x = __float2bfloat16(u(rng));
      for (auto& x : hb) x = __float2bfloat16(u(rng));
      void *a, *b, *d, *ws;
      const size_t out_bytes = size_t(M) * N * (bf16_out ? 2 : 4), ws_bytes = 64 << 20;
      CK(cudaMalloc(&a, ha.size() * 2));
      CK(cudaMalloc(&b, hb.size() * 2));
      CK(cudaMalloc(&d, out_bytes));
      CK(cudaMalloc(&ws, ws_bytes));
      CK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemset(d, 0xFF, out_bytes));
      cublasLtMatmulDesc_t op;
      CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
      cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
      // Row-major A (M x K) and B (K x N) as column-major: D^T = B^T A^T; A^T is "A" with op T on a K x M layout.
      CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
      CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
      cublasLtMatrixLayout_t la, lb, ld;
      CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, M, K));  // A row-major M x K = column-major K x M
      CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, N, K));  // B stored column-major K x N
      const cudaDataType_t dt = bf16_out ? CUDA_R_16BF : CUDA_R_32F;
      CK(cublasLtMatrixLayoutCreate(&ld, dt, M, N, M));
      cublasLtMatmulPreference_t pref;
      CK(cublasLtMatmulPreferenceCreate(&pref));
      CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                              sizeof ws_bytes));
      cublasLtMatmulHeuristicResult_t heur[8];
      int found = 0;
      CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 8, heur, &found));
      const float alpha = 1, beta = 0;
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      double best = 0;
      for (int h = 0; h < found; ++h) {
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
      // Check sampled elements against a double product (the best algorithm's last output).
      std::vector<unsigned char> hd(out_bytes);
      CK(cudaMemcpy(hd.data(), d, out_bytes, cudaMemcpyDeviceToHost));
      double worst = 0;
      std::mt19937 pick(7);
      for (int sample = 0; sample < 64; ++sample) {
        const int i = pick() % M, j = pick() % N;
        double want = 0;
        for (int k = 0; k < K; ++k)
          want += double(__bfloat162float(ha[size_t(i) * K + k])) * double(__bfloat162float(hb[size_t(j) * K + k]));
        const size_t at = size_t(j) * M + i;
        float got;
        if (bf16_out)
          got = __bfloat162float(reinterpret_cast<__nv_bfloat16*>(hd.data())[at]);
        else
          got = reinterpret_cast<float*>(hd.data())[at];
        worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::sqrt(double(K)) / 4));
      }
      std::printf("cublaslt bf16 %d %d %d out %s: %.1f TFLOP/s (%d algorithms tried; worst sampled error %.3g %s)\n", M,
                  N, K, bf16_out ? "bf16" : "fp32", best, found, worst, worst < 0.05 ? "ok" : "WRONG");
      cudaFree(a), cudaFree(b), cudaFree(d), cudaFree(ws);
      cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(ld);
      cublasLtMatmulPreferenceDestroy(pref), cublasLtMatmulDescDestroy(op);
    }
  }
  return 0;
}
