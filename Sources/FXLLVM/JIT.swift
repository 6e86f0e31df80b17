internal import CLLVM
import FXPasses
import Synchronization

/// An ORC LLJIT instance for one ``Target`` (by default the host CPU): add
/// kernel modules or object files, then look up their functions as callable
/// addresses.
///
/// Code is generated lazily, at the first ``lookup(_:)`` of a symbol of a
/// module, with the target's CPU name and features. Functions in the process
/// (libc, libm) are visible to JIT'd code.
///
/// ## Thread safety
/// ``add(_:)``, ``addObject(_:)`` and ``lookup(_:)`` may be called from any
/// thread; they are serialised by a lock, so concurrent lookups wait for each
/// other's code generation. The addresses returned by ``lookup(_:)`` are plain
/// machine code: call them from any number of threads at once, for as long as
/// the `JIT` is alive. Releasing the `JIT` frees all its code.
public final class JIT: @unchecked Sendable {
  private let jit: LLVMOrcLLJITRef
  private let lock = Mutex(())
  /// Failures ORC cannot return to a caller (e.g. unresolved symbols met while
  /// linking), collected so ``lookup(_:)`` can explain its failure.
  private let sessionErrors = SessionErrorLog()

  /// Creates a JIT that generates code for `target`, which must be one this
  /// machine can execute (``Target/named(_:)`` checks that).
  ///
  /// - Throws: ``LLVMError`` if LLVM cannot generate code for `target`.
  public init(target: Target = .host) throws {
    // ORC owns the target machine from here on.
    let machineBuilder = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(try TargetMachine.create(target))
    let builder = LLVMOrcCreateLLJITBuilder()
    // The builder takes the machine builder, and LLVMOrcCreateLLJIT the
    // builder, even when it fails: nothing is left to dispose here.
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, machineBuilder)
    var jit: LLVMOrcLLJITRef?
    try LLVMError.check(LLVMOrcCreateLLJIT(&jit, builder), "creating an LLJIT")
    self.jit = jit!
    LLVMOrcExecutionSessionSetErrorReporter(
      LLVMOrcLLJITGetExecutionSession(self.jit), SessionErrorLog.report,
      Unmanaged.passUnretained(sessionErrors).toOpaque())
  }

  deinit {
    // Disposing returns an error (e.g. from running static destructors) that
    // must be consumed; there is no caller left to tell.
    if let error = LLVMOrcDisposeLLJIT(jit) {
      _ = LLVMError.consumeMessage(of: error)
    }
  }

  /// Verifies `module` and transfers it, with its context, to the JIT.
  ///
  /// Once this returns or throws a non-verification error, the module belongs
  /// to the JIT: do not use `module` or any value built in it again. If
  /// verification fails nothing is transferred, and the module can still be
  /// inspected (e.g. its ``KernelModule/textualIR``).
  ///
  /// - Throws: ``LLVMError`` if the module is invalid, was already added, or
  ///   defines a symbol the JIT already has.
  public func add(_ module: KernelModule) throws {
    guard !module.isTransferred else {
      throw LLVMError("module '\(module.name)' was already handed to a JIT")
    }
    try module.verify()
    let name = module.name
    try lock.withLock { _ in
      let transferred = module.transferToThreadSafeModule()
      try LLVMError.check(
        LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), transferred),
        "adding module '\(name)' to the JIT")
    }
  }

  /// Loads a relocatable object file, e.g. one from ``KernelModule/objectCode()``.
  ///
  /// - Throws: ``LLVMError`` if the bytes are not an object file for this
  ///   host or define a symbol the JIT already has.
  public func addObject(_ object: [UInt8]) throws {
    try lock.withLock { _ in
      let buffer = object.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) {
          LLVMCreateMemoryBufferWithMemoryRangeCopy($0.baseAddress, $0.count, "fxc-object")!
        }
      }
      // The JIT owns the buffer from here on, even if adding fails.
      try LLVMError.check(
        LLVMOrcLLJITAddObjectFile(jit, LLVMOrcLLJITGetMainJITDylib(jit), buffer),
        "adding an object file of \(object.count) bytes to the JIT")
    }
  }

  /// The address of `symbol` (an unmangled C name such as a kernel function),
  /// compiling and linking its module on first use. Call it through
  /// `unsafeBitCast(address, to: (@convention(c) (…) -> …).self)`.
  ///
  /// - Throws: ``LLVMError`` if no added module defines `symbol` or its module
  ///   fails to compile or link; the message includes the linker's reasons.
  public func lookup(_ symbol: String) throws -> UnsafeRawPointer {
    try lock.withLock { _ in
      _ = sessionErrors.drain()
      var address: LLVMOrcExecutorAddress = 0
      let error = LLVMOrcLLJITLookup(jit, &address, symbol)
      let details = sessionErrors.drain()
      if let error {
        let reasons = ([LLVMError.consumeMessage(of: error)] + details).joined(separator: "; ")
        throw LLVMError("looking up '\(symbol)' in the JIT: \(reasons)")
      }
      guard let pointer = UnsafeRawPointer(bitPattern: UInt(address)) else {
        throw LLVMError("looking up '\(symbol)' in the JIT: it resolved to address 0")
      }
      return pointer
    }
  }
}

/// Collects the messages of errors ORC reports out of band.
private final class SessionErrorLog: @unchecked Sendable {
  private let messages = Mutex<[String]>([])

  /// The ORC error reporter; `context` is an unretained `SessionErrorLog`,
  /// which lives as long as the JIT that calls this.
  static let report: LLVMOrcErrorReporterFunction = { context, error in
    guard let context, let error else { return }
    let log = Unmanaged<SessionErrorLog>.fromOpaque(context).takeUnretainedValue()
    let message = LLVMError.consumeMessage(of: error)
    log.messages.withLock { $0.append(message) }
  }

  /// Removes and returns the messages collected so far.
  func drain() -> [String] {
    messages.withLock { messages in
      defer { messages.removeAll() }
      return messages
    }
  }
}
