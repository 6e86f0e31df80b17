import Dispatch
import FXIR
import FXLLVM
import FXPasses
import Synchronization

/// Machine code for the loop nests of one kernel on one ``Target``, linked into
/// a ``JIT`` of its own: one C function per loop nest (``LoopNestFunction``). What a
/// back end hands the runtime (FXRuntime's `CompiledKernel`), which knows
/// nothing of LLVM.
public final class NativeCode: @unchecked Sendable {
  /// `void fxc_nest<k>(BufferDescriptor *buffers, float *uniforms, i32 width,
  /// i32 height, i32 y0, i32 y1, i32 x0, i32 x1)`: computes columns `x0..<x1`
  /// of rows `y0..<y1` (``KernelEmitter``).
  public typealias LoopNestFunction =
    @convention(c) (
      UnsafeRawPointer, UnsafePointer<Float>, Int32, Int32, Int32, Int32, Int32, Int32
    ) -> Void

  /// LLVM's new-pass-manager pipeline for kernels: O1's clean-ups without
  /// the rest of O1 — scalar replacement, CSE, instruction combining, CFG
  /// simplification, hoisting of loop invariants, GVN — then rotation and
  /// unrolling of the tap loops. The emitter writes vector code itself, so
  /// O3's vectorisers found nothing to gain, and this pipeline runs as fast
  /// as O1 while compiling in 12–35 % less time (measurements:
  /// Benchmarks/README.md).
  public static let optimisationPipeline =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(licm),gvn,instcombine<no-verify-fixpoint>,"
    + "simplifycfg,loop(loop-rotate),loop-unroll<O2>,instcombine<no-verify-fixpoint>,simplifycfg)"

  /// The loop nest functions, in kernel order.
  public let loopNests: [LoopNestFunction]
  /// The relocatable objects the code was linked from (one per loop nest, in an
  /// ``ObjectBundle``), when asked to keep them (for a disk cache) or when
  /// they came from one.
  public let object: [UInt8]?
  /// Milliseconds by phase: "emit", "optimise" and "codegen" summed over the
  /// loop nests (which are compiled in parallel, so the sum may exceed the
  /// wall-clock time), "link" (loading the objects and looking up the loop nests).
  public let phaseMilliseconds: [String: Double]
  /// Keeps the code alive: releasing the JIT frees it.
  private let jit: JIT

  /// Emits each loop nest of `kernel` following `plan` into a module of its own,
  /// optimises it (``optimisationPipeline``) and generates an ELF object for
  /// the plan's target — the loop nests on as many threads as there are cores
  /// (LLVM contexts are independent, so this is safe and gives the same
  /// machine code as one module) — then links the objects into a JIT.
  /// With `keepObject`, the objects are kept for a disk cache.
  ///
  /// - Throws: ``LLVMError`` if LLVM rejects a module (a compiler bug) or
  ///   this machine cannot run the target's code.
  public init(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout, keepObject: Bool = false) throws {
    try Self.checkRunnable(plan.target)
    let count = kernel.loopNests.count
    let results = Mutex<[Result<PassObject, Error>?]>(Array(repeating: nil, count: count))
    // Largest first (longest-processing-time scheduling): the thread that is
    // free first takes the next largest, so the cheapest loop nest (a planar copy)
    // is the last to start and the threads finish close together.
    let order = kernel.loopNests.indices.sorted { Self.size(kernel.loopNests[$0].program) > Self.size(kernel.loopNests[$1].program) }
    DispatchQueue.concurrentPerform(iterations: count) { i in
      let k = order[i]
      let result = Result { try PassObject(k, of: kernel, plan: plan, layout: layout) }
      results.withLock { $0[k] = result }
    }
    let objects = try results.withLock { try $0.map { try $0!.get() } }
    let linking = DispatchTime.now().uptimeNanoseconds
    let jit = try JIT(target: plan.target)
    for object in objects { try jit.addObject(object.bytes) }
    loopNests = try Self.lookup(count, in: jit)
    if PerfMap.isEnabled { Self.recordPerfMap(loopNests, objects.map(\.bytes), names: kernel.loopNests.map(\.name)) }
    var phases = ["link": Double(DispatchTime.now().uptimeNanoseconds - linking) / 1e6]
    for phase in ["emit", "optimise", "codegen"] {
      phases[phase] = objects.reduce(0) { $0 + ($1.milliseconds[phase] ?? 0) }
    }
    phaseMilliseconds = phases
    object = keepObject ? ObjectBundle.pack(objects.map(\.bytes)) : nil
    self.jit = jit
  }

  /// Links machine code made earlier (a disk-cache hit): no LLVM
  /// optimisation or code generation.
  ///
  /// - Throws: ``LLVMError`` if the bytes are not an ``ObjectBundle`` of
  ///   objects for `target` defining `passCount` loop nest functions.
  public init(object: [UInt8], passCount: Int, target: Target) throws {
    try Self.checkRunnable(target)
    let start = DispatchTime.now().uptimeNanoseconds
    guard let objects = ObjectBundle.unpack(object) else {
      throw LLVMError("the cached machine code is not a bundle of object files")
    }
    let jit = try JIT(target: target)
    for bytes in objects { try jit.addObject(bytes) }
    loopNests = try Self.lookup(passCount, in: jit)
    if PerfMap.isEnabled { Self.recordPerfMap(loopNests, objects, names: (0..<passCount).map { "pass \($0) (cached)" }) }
    phaseMilliseconds = ["link": Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6]
    self.object = object
    self.jit = jit
  }

  /// The optimised LLVM IR and the assembly of `kernel` following `plan`, for
  /// `fxc dump`: each loop nest's module in turn, as compiled.
  public static func dump(_ kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws -> (ir: String, assembly: String) {
    var ir: [String] = [], assembly: [String] = []
    for k in kernel.loopNests.indices {
      let module = try KernelEmitter.emit(kernel, plan: plan, layout: layout, loopNests: k..<(k + 1))
      try module.optimize(optimisationPipeline)
      ir.append(module.textualIR)
      assembly.append(try module.assembly())
    }
    return (ir.joined(separator: "\n"), assembly.joined(separator: "\n"))
  }

  /// Nodes of `program` and of the bodies of its loops: what LLVM's time
  /// grows with.
  static func size(_ program: Program) -> Int {
    var loops = Set<ObjectIdentifier>()
    return program.nodes.reduce(program.nodes.count) { total, node in
      guard case .fold(let loop, _) = node.op, loops.insert(ObjectIdentifier(loop)).inserted else { return total }
      return total + size(loop.body)
    }
  }

  private static func checkRunnable(_ target: Target) throws {
    if let reason = target.cannotRun(on: .host) {
      throw LLVMError("this machine (\(Target.host.summary)) cannot run code for \(target.name): it \(reason)")
    }
  }

  private static func lookup(_ count: Int, in jit: JIT) throws -> [LoopNestFunction] {
    try (0..<count).map { unsafeBitCast(try jit.lookup("fxc_nest\($0)"), to: LoopNestFunction.self) }
  }

  /// Names each loop nest function in perf's map of JIT'd code (``PerfMap``).
  private static func recordPerfMap(_ passes: [LoopNestFunction], _ objects: [[UInt8]], names: [String]) {
    let sizes = objects.reduce(into: [String: UInt64]()) { $0.merge(PerfMap.functionSizes(inObject: $1)) { a, _ in a } }
    PerfMap.record(
      passes.indices.map { k in
        (unsafeBitCast(passes[k], to: UnsafeRawPointer.self), sizes["fxc_nest\(k)"] ?? 1, "fxc_nest\(k) '\(names[k])'")
      })
  }
}

/// One loop nest compiled on its own: its module emitted, optimised and turned into
/// an ELF object, with the time of each step.
private struct PassObject {
  let bytes: [UInt8]
  let milliseconds: [String: Double]

  init(_ k: Int, of kernel: Kernel, plan: KernelPlan, layout: KernelLayout) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let module = try KernelEmitter.emit(kernel, plan: plan, layout: layout, loopNests: k..<(k + 1))
    let emitted = DispatchTime.now().uptimeNanoseconds
    try module.optimize(NativeCode.optimisationPipeline)
    let optimised = DispatchTime.now().uptimeNanoseconds
    bytes = try module.consumingObjectCode()
    let done = DispatchTime.now().uptimeNanoseconds
    milliseconds = [
      "emit": Double(emitted - start) / 1e6, "optimise": Double(optimised - emitted) / 1e6,
      "codegen": Double(done - optimised) / 1e6,
    ]
  }
}

/// Several object files as one byte string, for the disk cache: a count, each
/// object's length (little-endian UInt64s), then the objects in order.
enum ObjectBundle {
  static func pack(_ objects: [[UInt8]]) -> [UInt8] {
    var bytes: [UInt8] = []
    for n in [UInt64(objects.count)] + objects.map({ UInt64($0.count) }) {
      withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
    }
    for object in objects { bytes.append(contentsOf: object) }
    return bytes
  }

  /// The objects of `bytes`, or nil when it is not a whole bundle.
  static func unpack(_ bytes: [UInt8]) -> [[UInt8]]? {
    func word(_ i: Int) -> Int? {
      guard (i + 1) * 8 <= bytes.count else { return nil }
      let n = bytes[(i * 8)..<(i * 8 + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      return n <= UInt64(bytes.count) ? Int(n) : nil
    }
    guard let count = word(0), count > 0, count < bytes.count / 8 else { return nil }
    var objects: [[UInt8]] = []
    var offset = (count + 1) * 8
    for i in 1...count {
      guard let length = word(i), offset + length <= bytes.count else { return nil }
      objects.append(Array(bytes[offset..<(offset + length)]))
      offset += length
    }
    return offset == bytes.count ? objects : nil
  }
}
