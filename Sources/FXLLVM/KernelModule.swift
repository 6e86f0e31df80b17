internal import CLLVM
import FXPasses

/// One LLVM module under construction, in its own LLVM context, with the
/// target's triple and data layout already set.
///
/// Build functions with ``addFunction(_:type:)``, their types from ``types``
/// and their bodies with a ``Builder`` (``withBuilder(_:)``), then ``optimize(_:)`` and hand the module to a ``JIT`` (or
/// emit ``objectCode()`` for a cache).
///
/// ## Ownership
/// The module owns its context (an ORC thread-safe context, so a JIT can
/// compile it later on another thread), its `LLVMModuleRef` and a target
/// machine; all are released when the `KernelModule` is. ``JIT/add(_:)``
/// transfers the module and its context to the JIT: afterwards ``module`` and
/// ``context`` trap if used, and values you created in them are dangling.
///
/// ## Thread safety
/// None: build, optimise and add one module from one thread at a time.
/// Different modules have different contexts and may be built concurrently.
public final class KernelModule {
  /// The module's name, used in error messages.
  public let name: String
  /// The target the module is compiled for.
  public let target: Target

  private var threadSafeContext: LLVMOrcThreadSafeContextRef?
  private var ownedContext: LLVMContextRef?
  private var ownedModule: LLVMModuleRef?
  private let machine: TargetMachine
  private var constantArrays: [[Value]: Value] = [:]

  /// The LLVM context that owns the module's types, constants and metadata.
  ///
  /// - Precondition: the module has not been handed to a ``JIT``.
  var context: LLVMContextRef {
    guard let ownedContext else { preconditionFailure(movedMessage) }
    return ownedContext
  }

  /// The module to add functions to.
  ///
  /// - Precondition: the module has not been handed to a ``JIT``.
  var module: LLVMModuleRef {
    guard let ownedModule else { preconditionFailure(movedMessage) }
    return ownedModule
  }

  /// Whether the module was handed to a ``JIT`` and may no longer be used.
  public var isTransferred: Bool { ownedModule == nil }

  /// Types of this module's context.
  package var types: LLVMTypes { LLVMTypes(context) }

  /// Creates an empty module for `target` in a fresh context.
  ///
  /// - Throws: ``LLVMError`` if LLVM cannot generate code for `target`.
  public init(name: String, target: Target = .host) throws {
    self.name = name
    self.target = target
    self.machine = try TargetMachine(target)
    var context: LLVMContextRef?
    let threadSafeContext = fxc_create_thread_safe_context(&context)
    self.threadSafeContext = threadSafeContext
    self.ownedContext = context
    let module = LLVMModuleCreateWithNameInContext(name, context)
    self.ownedModule = module
    // Before any optimisation: without them O3's cost model assumes a
    // generic CPU and will not use the vector ISA.
    LLVMSetTarget(module, target.triple)
    LLVMSetDataLayout(module, machine.dataLayout)
  }

  deinit {
    if let ownedModule { LLVMDisposeModule(ownedModule) }
    // Drops this object's reference; the context dies with its last user.
    if let threadSafeContext { LLVMOrcDisposeThreadSafeContext(threadSafeContext) }
  }

  private var movedMessage: String {
    "KernelModule '\(name)' was handed to a JIT and can no longer be used"
  }

  /// Checks the module with LLVM's verifier.
  ///
  /// - Throws: ``LLVMError`` with the verifier's findings, e.g.
  ///   `verifying module 'k': Basic Block in function 'f' does not have terminator!`.
  public func verify() throws {
    var message: UnsafeMutablePointer<CChar>?
    let broken = LLVMVerifyModule(module, LLVMReturnStatusAction, &message) != 0
    // The verifier allocates a message even when the module is valid.
    let text = takeLLVMMessage(message)
    if broken {
      let findings = (text ?? "").trimmingTrailingNewlines()
      throw LLVMError("verifying module '\(name)': \(findings)")
    }
  }

  /// Verifies the module, then runs a new-pass-manager pipeline on it with a
  /// target machine for ``target``'s CPU and features.
  ///
  /// - Parameter pipeline: an `opt -passes=` string, e.g. `default<O3>`,
  ///   `default<O1>`, `function(instcombine,simplifycfg)`.
  /// - Throws: ``LLVMError`` if the module is invalid or the pipeline does not parse.
  public func optimize(_ pipeline: String = "default<O3>") throws {
    try verify()
    let options = LLVMCreatePassBuilderOptions()
    defer { LLVMDisposePassBuilderOptions(options) }
    try LLVMError.check(
      LLVMRunPasses(module, pipeline, machine.ref, options),
      "optimising module '\(name)' with \"\(pipeline)\"")
  }

  /// The module as LLVM IR text.
  public var textualIR: String {
    takeLLVMMessage(LLVMPrintModuleToString(module)) ?? ""
  }

  /// Machine assembly for ``target`` (AT&T syntax on x86). Generated from a
  /// clone, since code generation rewrites the module it runs on; the module
  /// itself stays usable and can still be JIT-compiled.
  ///
  /// - Throws: ``LLVMError`` if the module is invalid or code generation fails.
  public func assembly() throws -> String {
    let bytes = try emit(LLVMAssemblyFile, "assembly")
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A relocatable object file (ELF on Linux) for ``target``, loadable with
  /// ``JIT/addObject(_:)``. Generated from a clone, like ``assembly()``.
  ///
  /// - Throws: ``LLVMError`` if the module is invalid or code generation fails.
  public func objectCode() throws -> [UInt8] {
    try emit(LLVMObjectFile, "an object file")
  }

  /// ``objectCode()`` generated from the module itself, without the clone,
  /// for a module that was just optimised (``optimize(_:)`` verified it) and
  /// is not used again: code generation rewrites its IR, so afterwards the
  /// module is only fit to be released (it is marked as handed over).
  ///
  /// - Throws: ``LLVMError`` if code generation fails.
  public func consumingObjectCode() throws -> [UInt8] {
    defer {
      if let ownedModule { LLVMDisposeModule(ownedModule) }
      ownedModule = nil
      ownedContext = nil
    }
    return try emit(LLVMObjectFile, "an object file", from: module)
  }

  private func emit(_ kind: LLVMCodeGenFileType, _ what: String) throws -> [UInt8] {
    try verify()
    guard let clone = LLVMCloneModule(module) else {
      throw LLVMError("cloning module '\(name)' failed")
    }
    defer { LLVMDisposeModule(clone) }
    return try emit(kind, what, from: clone)
  }

  private func emit(_ kind: LLVMCodeGenFileType, _ what: String, from module: LLVMModuleRef) throws -> [UInt8] {
    var message: UnsafeMutablePointer<CChar>?
    var buffer: LLVMMemoryBufferRef?
    let failed =
      LLVMTargetMachineEmitToMemoryBuffer(machine.ref, module, kind, &message, &buffer) != 0
    let text = takeLLVMMessage(message)
    guard !failed, let buffer else {
      throw LLVMError("emitting \(what) for module '\(name)': \(text ?? "unknown reason")")
    }
    defer { LLVMDisposeMemoryBuffer(buffer) }
    let start = UnsafeRawPointer(LLVMGetBufferStart(buffer))
    let count = LLVMGetBufferSize(buffer)
    guard let start, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
  }

  /// Creates an instruction builder in this module's context, passes it to
  /// `body` and disposes of it afterwards.
  package func withBuilder<R>(_ body: (Builder) throws -> R) rethrows -> R {
    let builder = Builder(in: self)
    return try withExtendedLifetime(builder) { try body(builder) }
  }

  /// Adds a function called `name` of function type `type`, without a body
  /// until blocks are appended to it (a declaration, e.g. of a C function).
  package func addFunction(_ name: String, type: IRType) -> Function {
    Function(LLVMAddFunction(module, name, type.ref)!, type: type)
  }

  /// The function called `name`, declared with `type` if the module has none yet.
  package func declareFunction(_ name: String, type: IRType) -> Function {
    guard let existing = LLVMGetNamedFunction(module, name) else { return addFunction(name, type: type) }
    return Function(existing, type: type)
  }

  /// A private, constant, unnamed-address global array holding `values` (constants
  /// of one type `element`); the same values give the same global.
  package func constantArray(_ values: [Value], of element: IRType) -> Value {
    if let known = constantArrays[values] { return known }
    var refs: [LLVMValueRef?] = values.map(\.ref)
    let initial = refs.withUnsafeMutableBufferPointer { LLVMConstArray2(element.ref, $0.baseAddress, UInt64($0.count))! }
    let global = LLVMAddGlobal(module, LLVMTypeOf(initial), "table")!
    LLVMSetInitializer(global, initial)
    LLVMSetGlobalConstant(global, 1)
    LLVMSetLinkage(global, LLVMPrivateLinkage)
    LLVMSetUnnamedAddress(global, LLVMGlobalUnnamedAddr)
    LLVMSetAlignment(global, 64)
    constantArrays[values] = Value(global)
    return Value(global)
  }

  /// The enum attribute called `name` (e.g. `nobuiltin`) without a value, in this module's context.
  package func enumAttribute(_ name: String) -> Attribute {
    let kind = LLVMGetEnumAttributeKindForName(name, name.utf8.count)
    return Attribute(ref: LLVMCreateEnumAttribute(context, kind, 0)!)
  }

  /// Gives the module and a reference to its context to a new ORC
  /// thread-safe module, which the caller must hand to the JIT (or dispose).
  /// Afterwards this object only holds its target machine.
  func transferToThreadSafeModule() -> LLVMOrcThreadSafeModuleRef {
    let transferred = LLVMOrcCreateNewThreadSafeModule(module, threadSafeContext)!
    ownedModule = nil
    ownedContext = nil
    if let threadSafeContext { LLVMOrcDisposeThreadSafeContext(threadSafeContext) }
    threadSafeContext = nil
    return transferred
  }
}

extension String {
  fileprivate func trimmingTrailingNewlines() -> String {
    var text = Substring(self)
    while text.last?.isNewline == true { text = text.dropLast() }
    return String(text)
  }
}
