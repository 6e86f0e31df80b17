// swift-tools-version:5.3
import PackageDescription

// libFuzzer targets for fxc (issue 16), apart from the main package so that
// `swift build` there never builds them. scripts/fuzz.sh builds one with
// `--sanitize fuzzer --sanitize address` and runs it; see README.md.
//
// Tools version 5.3 on purpose: its executables keep the plain `main` entry
// point, so libFuzzer's `main` is the program's, and each harness is compiled
// as a library (it defines `LLVMFuzzerTestOneInput`, no top-level code).
let package = Package(
  name: "FXFuzz",
  dependencies: [.package(name: "fxc", path: "..")],
  targets: [
    .target(
      name: "FuzzImage", dependencies: [.product(name: "FX", package: "fxc")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    .target(
      name: "FuzzChain", dependencies: [.product(name: "FX", package: "fxc")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    // The listing of `fxc run`'s inputs, through a link to Sources/fxc/BatchInputs.swift.
    .target(
      name: "FuzzInputs", dependencies: [.product(name: "FX", package: "fxc")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
  ]
)
