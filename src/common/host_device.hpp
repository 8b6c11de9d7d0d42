// host_device.hpp — marks small functions that are compiled for both the host and CUDA devices.
#pragma once
#if defined(__CUDACC__)
#define SSIDS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SSIDS_HOST_DEVICE inline
#endif
