import FX

/// `fxc version` and `fxc --version`: fxc's version, the commit it was built
/// from (``buildCommit``, written by the BuildInfo plugin), LLVM's version,
/// the host and the CUDA device (or why there is none).
struct VersionCommand: Command {
  static let spec = CommandSpec(
    name: "version", abstract: "print fxc's version, its commit, LLVM's version, the host and the CUDA device",
    usage: [""], options: [])

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    let rest = try args.remaining()
    if !rest.isEmpty { throw UsageError("fxc version takes no arguments (got \(rest.joined(separator: " ")))") }
  }

  func execute() throws {
    print(Self.text)
    // The CUDA device `--device cuda` would use, or why there is none.
    do { print("CUDA: \(try CUDADevice.open().summary)") } catch { print("CUDA: none (\(error))") }
  }

  static var text: String {
    """
    fxc \(FXC.version)
    commit: \(buildCommit)
    LLVM: \(llvmVersion)
    host: \(Target.host.description)
    """
  }
}
