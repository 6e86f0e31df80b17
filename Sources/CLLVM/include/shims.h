#ifndef CLLVM_SHIMS_H
#define CLLVM_SHIMS_H
#include <llvm-c/Core.h>
#include <llvm-c/Orc.h>

/// The LLVM major version this module was built against (Debian llvm-19-dev).
int fxc_llvm_version_major(void);

/// Creates an ORC thread-safe context holding a fresh LLVMContext and stores
/// that context in `*context`. The caller owns one reference to the returned
/// thread-safe context (release it with LLVMOrcDisposeThreadSafeContext).
///
/// LLVM 19 creates the context inside the thread-safe context and hands it out
/// with LLVMOrcThreadSafeContextGetContext, which LLVM 22 removed in favour of
/// wrapping a context the caller created; this shim hides the difference.
LLVMOrcThreadSafeContextRef fxc_create_thread_safe_context(LLVMContextRef *context);
#endif
