#pragma once
// What makes the cuda plugin's host sources the hip plugin's too (Note [One source, two GPU
// plugins]): the runtime API under CUDA's names, the device type, the kernels' namespace and
// generated header, and the name in messages.
//
// Note [One source, two GPU plugins]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// plugins/cuda's sources are written once, against CUDA's spellings. plugins/hip compiles the
// same files with EMBER_GPU_HIP: the kernels (kernels/*.cu) through kernels/Vendor.h and hipcc,
// the host files through this header, which maps the runtime calls they make to HIP's (ggml's
// vendors/hip.h approach) and switches the device type to kHIP, the kernels' namespace to
// ember::hip (ember/generated/HIPFunctions.h, registered at the HIP key) and the messages to
// "HIP". What HIP lacks here (Debian has no hipBLAS, rocBLAS or MIOpen) is replaced by the
// kernels of our own: the matrix products always take the native GEMM (EMBER_GPU_VENDOR_BLAS 0).
// EMBER_GPU_EMULATE builds the cuda plugin's files on the host against an emulated runtime
// (Note [The emulated cuda plugin] in EmulatedRuntime.h).
#include "ember/core/Device.h"

#if defined(EMBER_GPU_HIP)
#include <hip/hip_runtime_api.h>

#define EMBER_GPU_NS hip
#define EMBER_GPU_FUNCTIONS_H "ember/generated/HIPFunctions.h"
#define EMBER_GPU_VENDOR_BLAS 0
namespace ember::gpu {
constexpr DeviceType kGpuDevice = kHIP;
constexpr const char* kGpuLabel = "HIP";
constexpr const char* kGpuApi = "hip";  // the runtime's prefix, in messages
}  // namespace ember::gpu

#define cudaDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaError_t hipError_t
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorNotReady hipErrorNotReady
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDefault hipEventDefault
#define cudaEventDestroy hipEventDestroy
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventQuery hipEventQuery
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEvent_t hipEvent_t
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaHostAlloc hipHostMalloc
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyKind hipMemcpyKind
#define cudaMemcpyPeerAsync hipMemcpyPeerAsync
#define cudaMemsetAsync hipMemsetAsync
#define cudaSetDevice hipSetDevice
#define cudaStreamCreateWithPriority hipStreamCreateWithPriority
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamQuery hipStreamQuery
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaStream_t hipStream_t
#define cudaSuccess hipSuccess
#else
#if defined(EMBER_GPU_EMULATE)
// The cuda plugin on the host, for tests (Note [The emulated cuda plugin] in EmulatedRuntime.h).
#include "EmulatedRuntime.h"
#define EMBER_GPU_VENDOR_BLAS 0
#else
#include <cuda_runtime_api.h>
#define EMBER_GPU_VENDOR_BLAS 1  // cuBLAS for the matrix products (and cuDNN where the toolkit has it)
#endif

#define EMBER_GPU_NS cuda
#define EMBER_GPU_FUNCTIONS_H "ember/generated/CUDAFunctions.h"
namespace ember::gpu {
constexpr DeviceType kGpuDevice = kCUDA;
constexpr const char* kGpuLabel = "CUDA";
constexpr const char* kGpuApi = "cuda";
}  // namespace ember::gpu
#endif
