#include "shims.h"
#include <llvm/Config/llvm-config.h>

int fxc_llvm_version_major(void) { return LLVM_VERSION_MAJOR; }

LLVMOrcThreadSafeContextRef fxc_create_thread_safe_context(LLVMContextRef *context) {
#if LLVM_VERSION_MAJOR >= 22
  // Untested here (only LLVM 19 is installed); the API shape is from LLVM 22's Orc.h.
  LLVMContextRef fresh = LLVMContextCreate();
  *context = fresh;
  return LLVMOrcCreateNewThreadSafeContextFromLLVMContext(fresh);
#else
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  *context = LLVMOrcThreadSafeContextGetContext(tsc);
  return tsc;
#endif
}
