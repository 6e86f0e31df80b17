#include "shims.h"
#include <llvm/Config/llvm-config.h>
int fxc_llvm_version_major(void) { return LLVM_VERSION_MAJOR; }
