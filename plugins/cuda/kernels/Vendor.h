#pragma once
// The GPU runtime's names as the kernel sources spell them (ggml's vendor-header approach): one
// set of kernel sources builds for
// - CUDA (nvcc): CUDA's own names;
// - HIP (hipcc, EMBER_GPU_HIP): HIP's under the same spellings;
// - the host (EMBER_GPU_EMULATE, a C++ compiler): HostEmulation.h runs each launch on CPU
//   threads, so the kernels' logic is tested where no GPU is (Note [GPU kernels on the host]).
// A launch is EMBER_GPU_LAUNCH(kernel, grid, block, shared_bytes, stream, args...), never a
// literal <<<...>>>; the warp size is EMBER_GPU_WARP_SIZE, never a literal 32.
#if defined(EMBER_GPU_EMULATE)
#include "HostEmulation.h"
#elif defined(EMBER_GPU_HIP)
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
using gpuStream_t = hipStream_t;
using gpu_half = __half;
using gpu_bfloat16 = hip_bfloat16;
#define EMBER_GPU_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
// ROCm 5.2 has the unsynchronised shuffles only; a wavefront runs in lock step.
#define EMBER_GPU_SHFL_DOWN(mask, v, delta) __shfl_down(v, delta)
#define EMBER_GPU_LAUNCH(kernel, grid, block, smem, stream, ...) \
  hipLaunchKernelGGL(kernel, dim3(grid), dim3(block), smem, stream, __VA_ARGS__)
#else
#include <cuda_runtime_api.h>
#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
using gpu_half = __half;
using gpu_bfloat16 = __nv_bfloat16;
#define EMBER_GPU_WARP_SIZE 32
#define EMBER_GPU_SHFL_DOWN(mask, v, delta) __shfl_down_sync(mask, v, delta)
#define EMBER_GPU_LAUNCH(kernel, grid, block, smem, stream, ...) kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#endif
using gpuStream_t = cudaStream_t;
#endif
