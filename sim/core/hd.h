// Host/device qualifiers: one kernel source for the CUDA and the CPU backend.
#pragma once

#if defined(__CUDACC__)
#define CB_HD __host__ __device__
#define CB_DEVICE __device__
#define CB_INLINE __forceinline__
#else
#define CB_HD
#define CB_DEVICE
#define CB_INLINE inline
#endif
