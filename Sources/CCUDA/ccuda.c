#include "CCUDA.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static fxc_cuda_driver driver;
static const fxc_cuda_driver *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(failure, sizeof failure, "no NVIDIA CUDA driver: %s", dlerror());
    return;
  }
  // The `_v2` symbols are the ones cuda.h has named since CUDA 4.0 (64-bit sizes and pointers).
#define RESOLVE(field, symbol)                                                                  \
  do {                                                                                          \
    *(void **)&driver.field = dlsym(library, symbol);                                           \
    if (!driver.field) {                                                                        \
      snprintf(failure, sizeof failure, "the CUDA driver (libcuda.so.1) lacks %s: too old", symbol); \
      return;                                                                                   \
    }                                                                                           \
  } while (0)
  RESOLVE(cuInit, "cuInit");
  RESOLVE(cuDriverGetVersion, "cuDriverGetVersion");
  RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
  RESOLVE(cuDeviceGet, "cuDeviceGet");
  RESOLVE(cuDeviceGetName, "cuDeviceGetName");
  RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  RESOLVE(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  RESOLVE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
  RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  RESOLVE(cuModuleUnload, "cuModuleUnload");
  RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
  RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
  RESOLVE(cuMemFree, "cuMemFree_v2");
  RESOLVE(cuMemAllocHost, "cuMemAllocHost_v2");
  RESOLVE(cuMemFreeHost, "cuMemFreeHost");
  RESOLVE(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  RESOLVE(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  RESOLVE(cuMemsetD8, "cuMemsetD8_v2");
  RESOLVE(cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  RESOLVE(cuStreamCreate, "cuStreamCreate");
  RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2");
  RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
  RESOLVE(cuEventCreate, "cuEventCreate");
  RESOLVE(cuEventDestroy, "cuEventDestroy_v2");
  RESOLVE(cuEventRecord, "cuEventRecord");
  RESOLVE(cuEventSynchronize, "cuEventSynchronize");
  RESOLVE(cuEventElapsedTime, "cuEventElapsedTime");
  RESOLVE(cuLaunchKernel, "cuLaunchKernel");
  RESOLVE(cuGetErrorName, "cuGetErrorName");
  RESOLVE(cuGetErrorString, "cuGetErrorString");
#undef RESOLVE
  loaded = &driver;
}

const fxc_cuda_driver *fxc_cuda_load(char *error, size_t size) {
  pthread_once(&once, load);
  if (!loaded && error && size > 0) {
    strncpy(error, failure, size - 1);
    error[size - 1] = 0;
  }
  return loaded;
}
