/// The machine a kernel is planned and compiled for: its vector width and
/// CPU features. The loop plan (``LoopPlanner``) reads only ``lanes``; code
/// generation also passes ``triple``, ``cpuName`` and ``features`` to LLVM.
///
/// `Target.host` (defined where LLVM is, in FXLLVM) is the machine fxc
/// runs on, detected at run time. The named x86-64 micro-architecture levels
/// (``named(_:)``) let tests and `fxc dump/bench --target` choose a width on
/// any host: an AVX-512 machine also runs its AVX2 and SSE code paths. Never
/// assume a vector ISA: ask ``lanes`` and ``has(_:)``.
public struct Target: Sendable, Hashable, CustomStringConvertible {
  /// A short name: `host`, or a level such as `x86-64-v3`.
  public var name: String
  /// The LLVM target triple, e.g. `x86_64-pc-linux-gnu`.
  public var triple: String
  /// LLVM's name for the CPU, e.g. `znver3`, `skylake-avx512`, `x86-64-v3`.
  public var cpuName: String
  /// LLVM's comma-separated feature string, each entry `+name` (present) or
  /// `-name` (absent), e.g. `+avx2,+fma,-avx512f,…`.
  public var features: String

  /// Describes a target explicitly, e.g. to key a kernel cache or to rebuild
  /// a target recorded elsewhere.
  public init(name: String = "custom", triple: String, cpuName: String, features: String) {
    self.name = name
    self.triple = triple
    self.cpuName = cpuName
    self.features = features
  }

  /// Whether the feature string enables `feature` (given without the sign):
  /// `has("avx2")` looks for the entry `+avx2`, never a prefix of another one.
  public func has(_ feature: String) -> Bool {
    // Bytes, not Characters: the feature string is ASCII, and this is asked
    // often (``lanes``) of a string of a hundred entries or more.
    features.utf8.split(separator: UInt8(ascii: ",")).contains {
      $0.first == UInt8(ascii: "+") && $0.dropFirst().elementsEqual(feature.utf8)
    }
  }

  /// The features the feature string enables, without their `+`.
  private var enabledFeatures: Set<Substring> {
    Set(features.split(separator: ",").lazy.filter { $0.first == "+" }.map { $0.dropFirst() })
  }

  /// What kind of processor a target is; the plan made for it follows from
  /// it (a CPU's strips and vectors of ``lanes``; a GPU's grid of threads).
  public enum Kind: Sendable, Hashable, CustomStringConvertible {
    /// A CPU: x86-64 (its levels) or AArch64, code through LLVM's native back end.
    case cpu
    /// An NVIDIA GPU of compute capability `major.minor` (`sm_90`: 9.0), for LLVM's NVPTX back end.
    case cuda(major: Int, minor: Int)

    public var description: String {
      switch self {
      case .cpu: "CPU"
      case .cuda(let major, let minor): "CUDA device, compute capability \(major).\(minor)"
      }
    }
  }

  /// The kind, from the triple: `nvptx64-…` is a CUDA device whose ``cpuName``
  /// is its compute capability (`sm_90`); anything else a CPU.
  public var kind: Kind {
    guard triple.hasPrefix("nvptx"), cpuName.hasPrefix("sm_"), let n = Int(cpuName.dropFirst(3)), n >= 10 else { return .cpu }
    return .cuda(major: n / 10, minor: n % 10)
  }

  /// A CUDA device of compute capability `sm` (`sm_90`) for LLVM's NVPTX back end.
  /// - Throws: ``TargetError`` when `sm` is not `sm_` and a capability of two or three digits.
  public static func cuda(_ sm: String) throws(TargetError) -> Target {
    guard sm.hasPrefix("sm_"), let n = Int(sm.dropFirst(3)), (10...999).contains(n) else {
      throw TargetError("'\(sm)' is not a CUDA compute capability such as sm_90")
    }
    return Target(name: sm, triple: "nvptx64-nvidia-cuda", cpuName: sm, features: "+ptx\(minimumPTX(n))")
  }

  /// The CUDA compute capabilities LLVM 19's NVPTX back end compiles for,
  /// newest last; a newer device runs the newest one's PTX (its driver
  /// compiles PTX for the device it loads on).
  public static let cudaCapabilities = [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90]

  /// The CUDA target for a device of compute capability `major.minor`: the
  /// newest capability in ``cudaCapabilities`` the device has.
  /// - Throws: ``TargetError`` for a device older than sm_50 (Maxwell).
  public static func cuda(major: Int, minor: Int) throws(TargetError) -> Target {
    guard let sm = cudaCapabilities.last(where: { $0 <= 10 * major + minor }) else {
      throw TargetError("the CUDA device has compute capability \(major).\(minor); fxc needs 5.0 (Maxwell) or newer")
    }
    return try cuda("sm_\(sm)")
  }

  /// The oldest PTX ISA version, times 10, that describes capability `sm`
  /// (PTX ISA manual, "PTX ISA version" per target), 6.0 at least.
  static func minimumPTX(_ sm: Int) -> Int {
    switch sm {
    case 90...: 78
    case 89: 78
    case 87: 74
    case 86: 71
    case 80: 70
    case 75: 63
    case 72: 61
    default: 60
    }
  }

  /// fp32 lanes in the widest vector worth using: 16 with AVX-512F, 8 with
  /// AVX or AVX2, 4 otherwise (SSE, NEON); 1 on a CUDA device (a thread a pixel).
  public var lanes: Int {
    if case .cuda = kind { return 1 }
    if has("avx512f") { return 16 }
    if has("avx") || has("avx2") { return 8 }
    return 4
  }

  /// A short human list, e.g. `znver3: AVX2, FMA, 8 × fp32 lanes`.
  public var summary: String {
    if case .cuda = kind { return "\(cpuName): \(kind)" }
    let isa: [String] = [
      has("avx512f") ? "AVX-512" : has("avx2") ? "AVX2" : has("avx") ? "AVX" : has("sse4.2") ? "SSE4.2" : nil,
      has("fma") ? "FMA" : nil,
      has("sve") ? "SVE" : nil,
      has("neon") ? "NEON" : nil,
    ].compactMap { $0 }
    return "\(cpuName): \((isa + ["\(lanes) × fp32 lanes"]).joined(separator: ", "))"
  }

  /// The summary plus the triple, e.g. `znver3: AVX2, FMA, 8 × fp32 lanes (x86_64-pc-linux-gnu)`.
  public var description: String { "\(summary) (\(triple))" }

  // MARK: named targets

  /// The x86-64 micro-architecture levels of the System V psABI (x86-64-v2:
  /// SSE4.2, 4 lanes; v3: AVX2 and FMA, 8 lanes; v4: AVX-512, 16 lanes),
  /// lowest first, each with the features it adds to the one before.
  public static let x86Levels: [(name: String, features: [String])] = [
    ("x86-64-v2", ["cx16", "popcnt", "sahf", "sse2", "sse3", "sse4.1", "sse4.2", "ssse3"]),
    ("x86-64-v3", ["avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"]),
    ("x86-64-v4", ["avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"]),
  ]

  /// The names ``named(_:on:)`` accepts.
  public static var names: [String] { ["host"] + x86Levels.map(\.name) }

  /// The target called `name` (`host` or an x86-64 level) for code that runs
  /// on `host`.
  ///
  /// - Throws: ``TargetError`` when the name is unknown (the message lists
  ///   the valid names) or `host` cannot execute that level's instructions
  ///   (it names the missing features).
  public static func named(_ name: String, on host: Target) throws(TargetError) -> Target {
    if name == "host" { return host }
    guard let level = x86Levels.firstIndex(where: { $0.name == name }) else {
      throw TargetError("unknown target '\(name)' (valid: \(names.joined(separator: ", ")))")
    }
    let target = x86Level(level, triple: host.triple)
    if let reason = target.cannotRun(on: host) {
      throw TargetError("this machine (\(host.summary)) cannot run target '\(name)': it \(reason)")
    }
    return target
  }

  /// Why `host` cannot execute code compiled for this target — another
  /// architecture, or features it lacks — or nil when it can.
  public func cannotRun(on host: Target) -> String? {
    func arch(_ triple: String) -> Substring { triple.prefix { $0 != "-" } }
    guard arch(triple) == arch(host.triple) else { return "is \(arch(host.triple)), not \(arch(triple))" }
    let available = host.enabledFeatures
    let missing = features.split(separator: ",").filter { $0.first == "+" && !available.contains($0.dropFirst()) }
    return missing.isEmpty ? nil : "lacks " + missing.map { $0.dropFirst() }.joined(separator: ", ")
  }

  /// x86-64 level `index` of ``x86Levels`` for `triple`, whether or not this
  /// machine can run it: for planning (``LoopPlanner``) and for code that is
  /// only printed, never executed.
  public static func x86Level(_ index: Int, triple: String = "x86_64-pc-linux-gnu") -> Target {
    let on = Set(x86Levels[...index].flatMap(\.features))
    let off = Set(x86Levels[(index + 1)...].flatMap(\.features))
    let features = on.sorted().map { "+" + $0 } + off.sorted().map { "-" + $0 }
    return Target(name: x86Levels[index].name, triple: triple, cpuName: x86Levels[index].name, features: features.joined(separator: ","))
  }

  /// The x86-64 levels `host` can run, lowest first (none off x86-64).
  public static func runnableLevels(on host: Target) -> [Target] {
    x86Levels.indices.compactMap { try? named(x86Levels[$0].name, on: host) }
  }
}

/// A target that is unknown or that this machine cannot execute.
public struct TargetError: Error, CustomStringConvertible, Equatable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
