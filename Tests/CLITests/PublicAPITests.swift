import Foundation
import Testing

/// What `import FX` gives a user's program, checked by type-checking small
/// programs against the modules this build made (the same `swiftc` that runs
/// the tests): the library's API is there, LLVM's C API is not — FXLLVM
/// imports it `internal`, so no public symbol can expose an LLVM type — and
/// neither is FXLLVM's builder API, which has `package` access.
@Suite("import FX: the public API")
struct PublicAPITests {
  /// `swiftc -typecheck` of `source` against the build's modules: exit status and messages.
  static func typecheck(_ source: String) throws -> (status: Int32, output: String) {
    let fxc = try #require(BatchFXC.executable, "no fxc executable next to the test binary")
    let build = URL(fileURLWithPath: fxc).deletingLastPathComponent()
    let root = BatchFXC.packageRoot
    let file = NSTemporaryDirectory() + "fxc-api-\(UUID().uuidString).swift"
    try source.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    var arguments = ["swiftc", "-typecheck", "-I", build.appendingPathComponent("Modules").path]
    for module in ["CLLVM", "CPNG", "CJPEG", "CTIFF", "CWEBP", "CGIF", "CHEIF", "CLCMS", "CEXIF", "CScan", "CXXHash", "CCUDA"] {
      arguments += ["-Xcc", "-I\(root)/Sources/\(module)/include"]
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments + [file]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test func libraryTypesAreVisible() throws {
    let result = try Self.typecheck("import FX\nlet t: Target = .host\nlet p = try Pipeline(sepia())\nprint(t.lanes, p)\n")
    #expect(result.status == 0, "\(result.output)")
  }

  @Test func llvmTypesAreNot() throws {
    for name in ["LLVMValueRef", "LLVMModuleRef", "LLVMOrcLLJITRef"] {
      let result = try Self.typecheck("import FX\nlet v: \(name)? = nil\nprint(v as Any)\n")
      #expect(result.status != 0 && result.output.contains("cannot find type '\(name)'"), "\(name): \(result.output)")
    }
  }

  @Test func theWrapperIsReachableButItsBuilderIsNot() throws {
    let wrapper = try Self.typecheck("import FX\nlet j = try JIT()\nprint(j, llvmVersion, LLVMError(\"x\"))\n")
    #expect(wrapper.status == 0, "\(wrapper.output)")
    for name in ["Builder", "IRType", "BasicBlock", "LLVMTypes"] {
      let result = try Self.typecheck("import FX\nlet v: \(name)? = nil\nprint(v as Any)\n")
      #expect(result.status != 0 && result.output.contains("cannot find type '\(name)'"), "\(name): \(result.output)")
    }
  }
}
