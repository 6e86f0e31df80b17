#ifndef CLLVM_SHIMS_H
#define CLLVM_SHIMS_H
/// The LLVM major version this module was built against (Debian llvm-19-dev).
int fxc_llvm_version_major(void);
#endif
