// The part of NVIDIA's CUDA driver API that fxc's CUDA executor calls,
// declared here (the driver API's C ABI is stable: functions are only ever
// added, and changed ones get a new `_v2` symbol) and resolved at run time
// from libcuda.so.1 with dlopen, so that fxc builds with no CUDA toolkit and
// runs where there is no NVIDIA driver (it then says so when asked for a
// CUDA device). Names, types and constants follow the driver API's
// reference (CUDA Driver API, "Data types" and "Modules" sections).
#ifndef FX_CCUDA_H
#define FX_CCUDA_H

#include <stddef.h>

typedef int CUresult;  // CUDA_SUCCESS is 0
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
  FXC_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  FXC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  FXC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  FXC_CU_JIT_ERROR_LOG_BUFFER = 5,
  FXC_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/// The driver's entry points, filled by fxc_cuda_load.
typedef struct {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned int count, int *options, void **values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemAllocHost)(void **pointer, size_t bytes);
  CUresult (*cuMemFreeHost)(void *pointer);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr destination, const void *source, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *destination, CUdeviceptr source, size_t bytes, CUstream stream);
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value, size_t count);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr destination, CUdeviceptr source, size_t bytes);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuEventCreate)(CUevent *event, unsigned int flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start, CUevent end);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                             unsigned int blockX, unsigned int blockY, unsigned int blockZ, unsigned int sharedBytes,
                             CUstream stream, void **parameters, void **extra);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
} fxc_cuda_driver;

/// Opens libcuda.so.1 and resolves every entry point, once (later calls
/// return the first result). Returns the table, or NULL with the reason
/// (dlopen's or the missing symbol's) in `error[0..<size]`.
const fxc_cuda_driver *fxc_cuda_load(char *error, size_t size);

#endif
