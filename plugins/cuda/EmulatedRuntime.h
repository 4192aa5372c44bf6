#pragma once
// The subset of the CUDA runtime API the cuda plugin's host files call, implemented on the host
// (EmulatedRuntime.cpp), for the cuda-emulated test plugin: see the Note.
//
// Note [The emulated cuda plugin]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// libember-cuda-emulated.so is the cuda plugin built from the same sources with
// EMBER_GPU_EMULATE: its host files run unchanged against this header's runtime, and its
// kernels run on CPU threads (Note [GPU kernels on the host]). It registers the CUDA key and
// device type kCUDA, so on a machine without a GPU the whole path of an operator on a "cuda"
// tensor runs: the dispatcher, the plugin's argument checks, dtype rules, output allocation
// through the caching allocator, the launch geometry, the kernel, the copies back. The
// backend op harness, the autograd checks and the training job run against it in CI.
// The copies and memsets check their pointers as a device would fault on them: a device side
// must lie inside one device allocation, a host side outside all of them. What it cannot check:
// other uses of real device memory (it is host memory, so a kernel or host dereference of the
// wrong kind of pointer goes unnoticed), concurrency between streams (a launch
// completes before it returns, every stream is in order with every other), cuBLAS and cuDNN
// (the native kernels stand in, as on HIP), and speed. The devices' count comes from
// EMBER_CUDA_EMULATED_DEVICES (default 1), their memory from EMBER_CUDA_EMULATED_MEMORY
// (bytes per device, default 8 GiB), so out-of-memory paths and multi-device guards run too.
// It is a test artifact: built in the build tree, never installed or in the default set.
#include <cstddef>

using cudaStream_t = void*;  // HostEmulation.h's gpuStream_t
struct EmulatedEvent;
using cudaEvent_t = EmulatedEvent*;

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor, multiProcessorCount, maxThreadsPerBlock, warpSize;
};

constexpr unsigned cudaEventDefault = 0x0;
constexpr unsigned cudaEventDisableTiming = 0x2;
constexpr unsigned cudaStreamNonBlocking = 0x1;

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
const char* cudaGetErrorName(cudaError_t err);
const char* cudaGetErrorString(cudaError_t err);

cudaError_t cudaMalloc(void** ptr, size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total);
constexpr unsigned cudaHostAllocDefault = 0x0;
// Pinned host memory is host memory here (page-aligned, as the driver's).
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                                cudaStream_t stream);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream);

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
