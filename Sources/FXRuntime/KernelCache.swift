import CXXHash
import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses
import Foundation
import Synchronization

/// Where compiled kernels are kept between compiles (DESIGN §7): in memory for
/// this process, and on disk as ELF objects, so a second `fxc run` of a chain
/// does no LLVM optimisation or code generation at all.
///
/// The key (``keyText(_:_:_:)``) spells out everything the machine code
/// depends on: the optimised kernel (every node, constants by bit pattern), the
/// buffer layout, the target triple, CPU and feature string, and the compiler
/// version (fxc and LLVM). Files are named by its XXH3-128 hash (Debian's
/// libxxhash) and hold the whole key, which a load compares in full, so two
/// keys with one hash cannot swap objects. A cache, not a security boundary: a
/// cache directory writable by others could inject code, like any compiler
/// cache (ccache, Halide's).
///
/// Both levels are bounded and evict the least recently used: the memory
/// cache at ``memoryCapacity`` kernels, the disk at ``capacityBytes`` (a
/// disk hit refreshes the file's modification time, which orders eviction).
public struct KernelCache: Sendable {
  /// The on-disk directory, or nil for memory only.
  public var directory: String?

  /// The most bytes of object files kept on disk (default 256 MiB, or
  /// `$FXC_CACHE_MAX_MB` MiB), give or take a sixteenth: after a process's
  /// first store and then after each sixteenth of it stored, the least
  /// recently used beyond it are deleted (``dueForEviction(_:stored:capacity:)``).
  public var capacityBytes: Int = KernelCache.defaultCapacityBytes

  /// `$FXC_CACHE_MAX_MB` MiB when set to a whole number, else 256 MiB.
  public static var defaultCapacityBytes: Int {
    let mib = ProcessInfo.processInfo.environment["FXC_CACHE_MAX_MB"].flatMap { Int($0) }.map { max(0, $0) }
    return (mib ?? 256) << 20
  }

  /// The most compiled kernels the process-wide memory cache keeps (their machine code stays mapped).
  public static let memoryCapacity = 256

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

  /// The cache key's file name for `kernel` compiled for `layout` on
  /// `target`: the XXH3-128 hash of ``keyText(_:_:_:)``, 32 hex digits.
  public static func key(_ kernel: Kernel, _ layout: KernelLayout, _ target: Target) -> String {
    hash(Array(keyText(kernel, layout, target).utf8))
  }

  /// Everything the machine code of `kernel` for `layout` on `target` depends on, spelt out.
  public static func keyText(_ kernel: Kernel, _ layout: KernelLayout, _ target: Target) -> String {
    var text = "\(compilerVersion)\n\(target.triple)\n\(target.cpuName)\n\(target.features)\n"
    text += layout.inputs.map(\.rawValue).joined(separator: ",") + "->" + layout.output.rawValue + " float \(layout.floatMode)\n"
    text += "inputs \(kernel.inputCount) intermediates \(kernel.intermediates) uniforms \(kernel.uniformCount)\n"
    text += "straight alpha \(kernel.straightAlphaInputs.sorted()) \(kernel.straightAlphaOutput)\n"
    // Every node, a loop's body in full after its fold.
    func indices(_ ids: [NodeID]) -> String { ids.map { String($0.index) }.joined(separator: ",") }
    func append(_ p: Program) {
      for n in p.nodes {
        if case .fold(let loop, let k) = n.op {
          text += "fold \(k) limit \(loop.limit) exit \(loop.exit.map(String.init) ?? "none") \(n.kind) \(indices(n.args))\nbody {\n"
          append(loop.body)
          text += "}\n"
        } else {
          text += "\(opText(n.op)) \(n.kind) \(indices(n.args))\n"
        }
      }
      text += "out \(indices(p.outputs))\n"
    }
    for pass in kernel.loopNests {
      text += "pass → \(pass.output)\n"
      append(pass.program)
    }
    return text
  }

  /// XXH3-128 of `bytes`, as 32 hex digits.
  static func hash(_ bytes: [UInt8]) -> String {
    var high: UInt64 = 0
    var low: UInt64 = 0
    bytes.withUnsafeBytes { fx_xxh3_128($0.baseAddress, $0.count, &high, &low) }
    return String(format: "%016llx%016llx", high, low)
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

  /// The process-wide memory cache: kernels by key text, each with the tick of its last use.
  private struct Memory: ~Copyable {
    var kernels: [String: (kernel: CompiledKernel, used: UInt64)] = [:]
    var tick: UInt64 = 0
  }
  private static let memory = Mutex(Memory())

  static func lookup(_ key: String) -> CompiledKernel? {
    memory.withLock { m in
      guard let hit = m.kernels[key] else { return nil }
      m.tick += 1
      m.kernels[key] = (hit.kernel, m.tick)
      return hit.kernel
    }
  }

  /// Keeps `kernel`, evicting the least recently used beyond ``memoryCapacity``.
  static func remember(_ key: String, _ kernel: CompiledKernel) {
    memory.withLock { m in
      m.tick += 1
      m.kernels[key] = (kernel, m.tick)
      if m.kernels.count > memoryCapacity, let oldest = m.kernels.min(by: { $0.value.used < $1.value.used })?.key {
        m.kernels[oldest] = nil
      }
    }
  }

  /// A cache file: a header line `fxc-object 2 <XXH3-128 of the object> <key bytes>`,
  /// the key text, then the object.
  static func fileContents(_ keyText: String, _ object: [UInt8]) -> [UInt8] {
    let key = Array(keyText.utf8)
    return Array("fxc-object 2 \(hash(object)) \(key.count)\n".utf8) + key + object
  }

  /// The object in `contents` when its header is well formed, its key text is
  /// `keyText` byte for byte and the object's hash matches; nil otherwise.
  static func object(in contents: [UInt8], keyText: String) -> [UInt8]? {
    guard let newline = contents.prefix(96).firstIndex(of: 0x0A) else { return nil }
    let fields = String(decoding: contents[..<newline], as: UTF8.self).split(separator: " ")
    guard fields.count == 4, fields[0] == "fxc-object", fields[1] == "2", let keyCount = Int(fields[3]) else { return nil }
    let key = Array(keyText.utf8)
    let start = newline + 1
    guard keyCount == key.count, contents.count >= start + keyCount, contents[start..<start + keyCount].elementsEqual(key)
    else { return nil }
    let object = Array(contents[(start + keyCount)...])
    return hash(object) == fields[2] ? object : nil
  }

  /// The object file stored for `keyText`, if there is one and it passes
  /// ``object(in:keyText:)`` (a truncated file, or another kernel's copied
  /// over it, is not loaded: the kernel is compiled again). A hit refreshes
  /// the file's modification time, the order of eviction.
  func load(_ keyText: String) -> [UInt8]? {
    guard let directory else { return nil }
    let path = "\(directory)/\(Self.hash(Array(keyText.utf8))).o"
    guard let data = FileManager.default.contents(atPath: path), let object = Self.object(in: [UInt8](data), keyText: keyText)
    else { return nil }
    utimes(path, nil)
    return object
  }

  /// Stores an object file, atomically (temporary file, then rename), then
  /// evicts beyond ``capacityBytes``; failures (a read-only home, a full
  /// disk) only cost the next run a compile.
  func store(_ keyText: String, _ object: [UInt8]) {
    guard let directory else { return }
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let name = Self.hash(Array(keyText.utf8))
      let tmp = "\(directory)/.\(name).\(getpid()).tmp"
      try Data(Self.fileContents(keyText, object)).write(to: URL(fileURLWithPath: tmp))
      if rename(tmp, "\(directory)/\(name).o") != 0 { try? FileManager.default.removeItem(atPath: tmp) }
    } catch {}
    if Self.dueForEviction(directory, stored: object.count, capacity: capacityBytes) { evict(in: directory) }
  }

  /// Bytes stored in each directory since it was last scanned, this process.
  private static let storedSinceScan = Mutex([String: Int]())

  /// Whether a store of `stored` bytes should scan `directory` for eviction:
  /// at the first store of the process, then each time another sixteenth of
  /// the capacity has been stored. A scan stats every file, so scanning at
  /// every store made a run of many distinct kernels (`fxc fuzz`, 17,000
  /// files) spend a third of its time in `stat`; the cache may now exceed
  /// its capacity by at most a sixteenth, plus what other processes store.
  static func dueForEviction(_ directory: String, stored: Int, capacity: Int) -> Bool {
    storedSinceScan.withLock { since in
      guard let bytes = since[directory] else {
        since[directory] = 0
        return true
      }
      guard bytes + stored >= capacity / 16 else {
        since[directory] = bytes + stored
        return false
      }
      since[directory] = 0
      return true
    }
  }

  /// Deletes the least recently used object files (oldest modification time)
  /// until those left fit in ``capacityBytes``.
  func evict(in directory: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
    var files: [(path: String, bytes: Int, used: Double)] = names.filter { $0.hasSuffix(".o") }.compactMap { name in
      var st = stat()
      let path = "\(directory)/\(name)"
      guard stat(path, &st) == 0 else { return nil }
      return (path, Int(st.st_size), Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) * 1e-9)
    }
    var total = files.reduce(0) { $0 + $1.bytes }
    guard total > capacityBytes else { return }
    files.sort { $0.used < $1.used }
    for f in files where total > capacityBytes {
      if unlink(f.path) == 0 { total -= f.bytes }
    }
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
    let key = KernelCache.keyText(kernel, layout, target)
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
