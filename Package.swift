// swift-tools-version:6.0
import PackageDescription

// LLVM is linked statically, only the components fxc uses (the ORC JIT, the
// new pass manager, the host's back end, NVPTX for CUDA devices), from llvm-19-dev's archives. Linking
// libLLVM-19.so instead maps every target LLVM has and runs all their static
// constructors: 51 MB resident before the first pixel, against 26 MB (measured
// on an empty C program linked each way). The archives are a linker group, so
// their order does not matter and a member nothing references is left out.
let llvmLibrary = "/usr/lib/llvm-19/lib"
#if arch(arm64)
  let llvmBackEnd = ["AArch64CodeGen", "AArch64AsmParser", "AArch64Disassembler", "AArch64Desc", "AArch64Info", "AArch64Utils"]
#else
  let llvmBackEnd = ["X86CodeGen", "X86AsmParser", "X86Disassembler", "X86TargetMCA", "X86Desc", "X86Info"]
#endif
// `llvm-config-19 --link-static --libnames orcjit native passes`, less the back end.
let llvmComponents = [
  "MCA", "MCDisassembler", "GlobalISel", "SelectionDAG", "AsmPrinter", "OrcJIT", "Passes", "IRPrinter", "HipStdPar",
  "Coroutines", "ipo", "Instrumentation", "Vectorize", "Linker", "FrontendOpenMP", "FrontendOffloading", "CodeGen",
  "ScalarOpts", "InstCombine", "ObjCARCOpts", "CodeGenTypes", "BitWriter", "CFGuard", "AggressiveInstCombine",
  "TransformUtils", "WindowsDriver", "JITLink", "Option", "ExecutionEngine", "Target", "Analysis", "ProfileData",
  "Symbolize", "DebugInfoBTF", "DebugInfoPDB", "DebugInfoMSF", "DebugInfoDWARF", "RuntimeDyld", "OrcTargetProcess",
  "OrcShared", "Object", "TextAPI", "MCParser", "IRReader", "AsmParser", "BitReader", "MC", "DebugInfoCodeView",
  "Core", "Remarks", "BitstreamReader", "BinaryFormat", "TargetParser", "Support", "Demangle",
]
// PTX for NVIDIA GPUs (the CUDA target): code generation only, no JIT.
let llvmNVPTX = ["NVPTXCodeGen", "NVPTXDesc", "NVPTXInfo"]
let llvmArchives = (llvmBackEnd + llvmNVPTX + llvmComponents).flatMap { ["-Xlinker", "\(llvmLibrary)/libLLVM\($0).a"] }
let llvmLinking: [LinkerSetting] = [
  .unsafeFlags(["-Xlinker", "--start-group"] + llvmArchives + ["-Xlinker", "--end-group"]),
  .linkedLibrary("stdc++"), .linkedLibrary("z"), .linkedLibrary("zstd"),
]

// fxc — an effect-graph compiler. Data flows one way through the targets:
// FXIR (the IR) ← FXDSL (the Swift front end); FXIR → FXPasses (optimise, schedule, lower to a Kernel) →
// FXInterpreter (the oracle) / FXLLVM (the LLVM wrapper) → FXCodegen (kernels
// as LLVM IR, JIT-compiled) → FXRuntime (executor,
// kernel cache) → FX (the API users import)
// → FXTestSupport (random graphs for the tests and `fxc fuzz`) → fxc.
let package = Package(
  name: "fxc",
  products: [
    .library(name: "FX", targets: ["FX"]),
    .executable(name: "fxc", targets: ["fxc"]),
  ],
  targets: [
    // C modules over Debian's llvm-19-dev, libpng-dev, libjpeg62-turbo-dev,
    // libtiff-dev, libwebp-dev, libgif-dev, libheif-dev, liblcms2-dev (ICC profiles), libexif-dev (EXIF
    // orientation) and libxxhash-dev (the kernel cache's key).
    .target(name: "CLLVM", linkerSettings: llvmLinking),
    .target(name: "CPNG"),
    .target(name: "CJPEG"),
    .target(name: "CTIFF"),
    .target(name: "CWEBP"),
    .target(name: "CGIF"),
    .target(name: "CHEIF"),
    .target(name: "CLCMS"),
    .target(name: "CEXIF"),
    // The scan executors' inner loops, one copy per instruction set (see CScan.h).
    .target(name: "CScan"),
    // Debian's libxxhash-dev: the kernel cache's key.
    .target(name: "CXXHash"),
    // NVIDIA's CUDA driver API, opened at run time (dlopen of libcuda.so.1): no CUDA toolkit to build.
    .target(name: "CCUDA"),

    .target(name: "FXIR", linkerSettings: [.linkedLibrary("m")]),
    // The Swift front end: Expr, Effect, Image and the shader built-ins,
    // lowered to an EffectGraph (a Metal front end would sit beside it).
    .target(name: "FXDSL", dependencies: ["FXIR"]),
    .target(
      name: "FXImage", dependencies: ["CPNG", "CJPEG", "CTIFF", "CWEBP", "CGIF", "CHEIF", "CLCMS", "CEXIF"],
      linkerSettings: [.linkedLibrary("m")]),
    .target(name: "FXPasses", dependencies: ["FXIR"]),
    .target(name: "FXInterpreter", dependencies: ["FXIR", "FXPasses", "FXImage"]),
    // The LLVM wrapper, the only module that imports CLLVM: modules, the JIT,
    // target machines, and a typed builder API (package access) for FXCodegen.
    .target(name: "FXLLVM", dependencies: ["FXPasses", "CLLVM"]),
    .target(name: "FXCodegen", dependencies: ["FXIR", "FXPasses", "FXImage", "FXLLVM"]),
    // The executor (line buffers, tiles, threads) and the kernel cache; it
    // runs what a code generator made and does not import LLVM.
    .target(
      name: "FXRuntime", dependencies: ["FXIR", "FXPasses", "FXImage", "FXInterpreter", "FXLLVM", "FXCodegen", "CScan", "CXXHash", "CCUDA"]),
    .target(name: "FXEffects", dependencies: ["FXIR", "FXDSL"]),
    // The Metal Shading Language front end: SwiftUI `[[ stitchable ]]`
    // functions, preprocessed, parsed, checked and lowered to FXDSL effects.
    .target(name: "FXMetal", dependencies: ["FXIR", "FXDSL", "FXEffects"]),
    .target(
      name: "FX",
      dependencies: [
        "FXIR", "FXDSL", "FXPasses", "FXInterpreter", "FXLLVM", "FXCodegen", "FXRuntime", "FXImage", "FXEffects", "FXMetal",
      ]),
    // Random graphs, the shrinker and differential checks: for the tests and
    // `fxc fuzz`, not part of the FX product.
    .target(name: "FXTestSupport", dependencies: ["FX"]),
    .executableTarget(name: "fxc", dependencies: ["FX", "FXTestSupport"], plugins: ["BuildInfo"]),
    .plugin(name: "BuildInfo", capability: .buildTool()),

    .testTarget(name: "FXIRTests", dependencies: ["FXIR", "FXDSL", "FXPasses", "FXInterpreter"]),
    .testTarget(name: "FXImageTests", dependencies: ["FXImage", "CLCMS"], resources: [.copy("Fixtures")]),
    .testTarget(name: "FXLLVMTests", dependencies: ["FXLLVM", "FXPasses", "CLLVM"]),
    .testTarget(name: "FXTests", dependencies: ["FX", "FXTestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "CLITests", dependencies: ["FX", "fxc"], exclude: ["Golden"]),
  ],
  swiftLanguageModes: [.v5]
)
