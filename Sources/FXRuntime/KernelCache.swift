import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses
import Foundation

/// Where compiled kernels are kept between compiles (DESIGN §7): in memory for
/// this process, and on disk as ELF objects, so a second `fxc run` of a chain
/// does no LLVM optimisation or code generation at all.
///
/// The key hashes everything the machine code depends on: the optimised
/// kernel (every node, constants by bit pattern), the buffer layout, the target
/// triple, CPU and feature string, and the compiler version (fxc and LLVM).
/// The hash is two FNV-1a 64-bit hashes with different offsets (128 bits): a
/// cache key, not a security boundary — a cache directory writable by others
/// could inject code, like any compiler cache (ccache, Halide's).
public struct KernelCache: Sendable {
  /// The on-disk directory, or nil for memory only.
  public var directory: String?

  /// `$FXC_CACHE_DIR`, else `$XDG_CACHE_HOME/fxc`, else `~/.cache/fxc`.
  public static var defaultDirectory: String {
    let env = ProcessInfo.processInfo.environment
    if let dir = env["FXC_CACHE_DIR"], !dir.isEmpty { return dir }
    if let xdg = env["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/fxc" }
    return NSHomeDirectory() + "/.cache/fxc"
  }

  /// Memory and disk, in ``defaultDirectory``.
  public static let standard = KernelCache(directory: defaultDirectory)
  /// Memory only (nothing is written to disk).
  public static let memoryOnly = KernelCache(directory: nil)

  /// Whether the process-wide memory cache is consulted (off to measure disk loads).
  public var useMemory = true

  public init(directory: String?, useMemory: Bool = true) {
    self.directory = directory
    self.useMemory = useMemory
  }

  /// The compiler's identity: LLVM's version and the running executable's size
  /// and modification time, so any rebuild of fxc (a changed code generator)
  /// misses the cache instead of loading stale machine code.
  public static let compilerVersion: String = {
    var st = stat()
    let exe = stat("/proc/self/exe", &st) == 0 ? "\(st.st_size)-\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)" : "unknown"
    return "fxc/llvm-\(llvmVersion)/exe-\(exe)"
  }()

  /// The cache key of `kernel` compiled for `layout` on `target`.
  public static func key(_ kernel: Kernel, _ layout: KernelLayout, _ target: Target) -> String {
    var text = "\(compilerVersion)\n\(target.triple)\n\(target.cpuName)\n\(target.features)\n"
    text += layout.inputs.map(\.rawValue).joined(separator: ",") + "->" + layout.output.rawValue + " float \(layout.floatMode)\n"
    text += "inputs \(kernel.inputCount) intermediates \(kernel.intermediates) uniforms \(kernel.uniformCount)\n"
    text += "straight alpha \(kernel.straightAlphaInputs.sorted()) \(kernel.straightAlphaOutput)\n"
    // Every node, a loop's body in full after its fold.
    func indices(_ ids: [NodeID]) -> String { ids.map { String($0.index) }.joined(separator: ",") }
    func append(_ p: Program) {
      for n in p.nodes {
        if case .fold(let loop, let k) = n.op {
          text += "fold \(k) limit \(loop.limit) \(n.kind) \(indices(n.args))\nbody {\n"
          append(loop.body)
          text += "}\n"
        } else {
          text += "\(opText(n.op)) \(n.kind) \(indices(n.args))\n"
        }
      }
      text += "out \(indices(p.outputs))\n"
    }
    for pass in kernel.passes {
      text += "pass → \(pass.output)\n"
      append(pass.program)
    }
    func fnv(_ offset: UInt64) -> UInt64 {
      var h = offset
      for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
      return h
    }
    return String(format: "%016llx%016llx", fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142))
  }

  /// `op` with every payload: a constant by its bits, any other op by its
  /// ``Op/name`` (which names each op and its parameters; an accumulator's
  /// or capture's kind is the node's, printed beside it). Not Swift's
  /// printing of the enum, which goes through reflection: milliseconds for a
  /// kernel's hundreds of nodes.
  package static func opText(_ op: Op) -> String {
    switch op {
    case .constant(.float(let bits)): "constant float \(bits)"
    case .constant(.int(let v)): "constant int \(v)"
    case .constant(.bool(let b)): "constant \(b)"
    // Every value by its bits: the printed name shows only the first few.
    case .table(let t): "table \(t.first) \(t.values.map { opText(.constant($0)) }.joined(separator: ", "))"
    default: op.name
    }
  }

  // The process-wide memory cache.
  nonisolated(unsafe) private static var memory: [String: CompiledKernel] = [:]
  private static let lock = NSLock()

  static func lookup(_ key: String) -> CompiledKernel? {
    lock.lock()
    defer { lock.unlock() }
    return memory[key]
  }

  static func remember(_ key: String, _ kernel: CompiledKernel) {
    lock.lock()
    defer { lock.unlock() }
    memory[key] = kernel
  }

  /// The object file for `key`, if it is on disk and is the one stored for
  /// `key`: each file starts with a header line holding a checksum of the key
  /// and the object, so a truncated file, or another kernel's object copied
  /// over this one, is not loaded (the kernel is compiled again).
  func load(_ key: String) -> [UInt8]? {
    guard let directory, let data = FileManager.default.contents(atPath: "\(directory)/\(key).o") else { return nil }
    let bytes = [UInt8](data)
    guard let newline = bytes.firstIndex(of: 0x0A), newline < 80 else { return nil }
    let object = Array(bytes[(newline + 1)...])
    guard String(decoding: bytes[..<newline], as: UTF8.self) == Self.header(key, object) else { return nil }
    return object
  }

  /// Stores an object file, atomically (temporary file, then rename); failures
  /// (a read-only home, a full disk) only cost the next run a compile.
  func store(_ key: String, _ object: [UInt8]) {
    guard let directory else { return }
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let tmp = "\(directory)/.\(key).\(getpid()).tmp"
      try Data(Array((Self.header(key, object) + "\n").utf8) + object).write(to: URL(fileURLWithPath: tmp))
      if rename(tmp, "\(directory)/\(key).o") != 0 { try? FileManager.default.removeItem(atPath: tmp) }
    } catch {}
  }

  /// `fxc-object <checksum>`: two FNV-1a hashes (64-bit, different offsets)
  /// of the key and the object's bytes.
  static func header(_ key: String, _ object: [UInt8]) -> String {
    func fnv(_ offset: UInt64) -> UInt64 {
      var h = offset
      for byte in key.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
      for byte in object { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
      return h
    }
    return String(format: "fxc-object %016llx%016llx", fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142))
  }
}

/// Where a compiled kernel's machine code came from.
public enum KernelSource: String, Sendable {
  /// LLVM ran: emit, optimise, code generation.
  case compiled
  /// An object file from the disk cache, linked into a fresh JIT.
  case diskCache = "disk cache"
  /// Already compiled in this process.
  case memoryCache = "memory cache"
}

extension CompiledKernel {
  /// The compiled kernel for `kernel` and `layout`, from the memory cache, the
  /// disk cache, or LLVM (then stored in both).
  /// - Throws: ``LLVMError`` when LLVM rejects the kernel or a cached object is unusable
  ///   (a corrupt cached object is ignored and recompiled).
  public static func cached(
    _ kernel: Kernel, layout: KernelLayout, target: Target = .host, cache: KernelCache = .standard
  ) throws -> (CompiledKernel, KernelSource) {
    let key = KernelCache.key(kernel, layout, target)
    if cache.useMemory, let hit = KernelCache.lookup(key) { return (hit, .memoryCache) }
    if let object = cache.load(key), let loaded = try? CompiledKernel(kernel, layout: layout, target: target, object: object) {
      if cache.useMemory { KernelCache.remember(key, loaded) }
      return (loaded, .diskCache)
    }
    let compiled = try CompiledKernel(kernel, layout: layout, target: target, keepObject: cache.directory != nil)
    if let object = compiled.object { cache.store(key, object) }
    if cache.useMemory { KernelCache.remember(key, compiled) }
    return (compiled, .compiled)
  }
}
