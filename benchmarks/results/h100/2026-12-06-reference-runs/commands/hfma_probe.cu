// Probe: what limits HFMA2 on this GPU. Chains of x = x*a + b in half2, ILP per thread, occupancy blocks/SM.
#include <cuda_fp16.h>
#include <cstdio>
template <int Ilp, bool Distinct>
__global__ void __launch_bounds__(256) k(const float* in, float* out, __half2 a, __half2 b, int steps) {
  __half2 x[Ilp], as[Ilp];
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < Ilp; ++i) {
    x[i] = __floats2half2_rn(in[(t + i) % 256], in[(t + 2 * i) % 256]);
    as[i] = Distinct ? __hmul2(a, __floats2half2_rn(1.0f - i / 4096.0f, 1.0f)) : a;
  }
#pragma unroll 1
  for (int s = 0; s < steps; s += 16) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
#pragma unroll
      for (int i = 0; i < Ilp; ++i) x[i] = __hfma2(x[i], as[i], b);
  }
  float acc = 0;
#pragma unroll
  for (int i = 0; i < Ilp; ++i) acc += __low2float(x[i]) + __high2float(x[i]);
  out[t] = acc;
}
template <int Ilp, bool D>
void run(int sms, int occ, float* in, float* out, double clock_ghz) {
  const int steps = 4096;
  int grid = sms * occ;
  __half2 a = __floats2half2_rn(0.998f, 0.998f), b = __floats2half2_rn(0.25f, 0.25f);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 3; ++w) k<Ilp, D><<<grid, 256>>>(in, out, a, b, steps);
  float best = 1e9;
  for (int r = 0; r < 10; ++r) {
    cudaEventRecord(e0);
    k<Ilp, D><<<grid, 256>>>(in, out, a, b, steps);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (ms < best) best = ms;
  }
  double flops = 4.0 * steps * Ilp * grid * 256.0;  // 2 lanes x FMA = 4 FLOP an instruction
  double t = flops / (best * 1e-3) / 1e12, peak = sms * 256.0 * 2 * clock_ghz / 1e3;
  printf("ilp %2d distinct %d occupancy %d: %7.2f TFLOP/s  %5.1f%% of %.1f  (%s)\n", Ilp, D, occ, t, 100 * t / peak,
         peak, cudaGetErrorString(cudaGetLastError()));
}
int main() {
  int sms, khz;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  float *in, *out;
  cudaMalloc(&in, 4096);
  cudaMemset(in, 0, 4096);
  cudaMalloc(&out, sms * 32 * 256 * 4);
  double ghz = khz / 1e6;
  for (int occ : {4, 8}) {
    run<8, false>(sms, occ, in, out, ghz);
    run<16, false>(sms, occ, in, out, ghz);
    run<32, false>(sms, occ, in, out, ghz);
    run<8, true>(sms, occ, in, out, ghz);
    run<16, true>(sms, occ, in, out, ghz);
  }
  return 0;
}
