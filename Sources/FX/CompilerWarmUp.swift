import Dispatch
import Synchronization

extension Pipeline {
  /// Pays LLVM's one-time start-up cost in this process now, so that the
  /// first real compile does not: the first compile of a process spends
  /// 20–30 ms more than later ones creating LLVM's first target machine and
  /// touching its code generator for the first time (measured on a σ 30 blur,
  /// Benchmarks/README.md). Compiles a small blur-and-colour kernel for
  /// `target` and throws it away; later calls return at once. Call it early,
  /// e.g. on another thread while images decode. `fxc bench` calls it before
  /// timing and reports its time as `llvm_startup_ms`.
  ///
  /// - Returns: the milliseconds it took, 0 when LLVM had already started.
  @discardableResult
  public static func warmUpCompiler(target: Target = .host) -> Double {
    compilerStarted.withLock { started in
      if started { return 0 }
      started = true
      let start = DispatchTime.now().uptimeNanoseconds
      _ = try? Pipeline(gaussianBlur(sigma: 1) | sepia()).compile(cache: nil, target: target)
      return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
  }
}

private let compilerStarted = Mutex(false)
