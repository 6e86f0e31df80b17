import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

// MARK: - Comparison

/// How two renderings of one graph are compared (DESIGN §4, made NaN-aware).
public enum ImageComparison {
  /// A channel where two images disagree.
  public struct Mismatch: Sendable, CustomStringConvertible {
    public var x: Int, y: Int, channel: Int
    public var expected: Float, actual: Float
    /// Channels that disagree, of all compared.
    public var count: Int, total: Int
    /// Set when the images differ in size (then nothing else is compared).
    public var sizes: (expected: (Int, Int), actual: (Int, Int))?
    public var description: String {
      if let s = sizes { return "the images differ in size: expected \(s.expected.0)×\(s.expected.1), got \(s.actual.0)×\(s.actual.1)" }
      return "pixel (\(x), \(y)) channel \(Array("rgba")[channel]): expected \(expected) (bits 0x\(String(expected.bitPattern, radix: 16))), "
        + "got \(actual) (bits 0x\(String(actual.bitPattern, radix: 16))); \(count) of \(total) channels differ"
    }
  }

  /// Whether two channel values agree. NaN on both sides agrees (DESIGN §4:
  /// "within 1e-4" presumes equal values, and NaN equals nothing); ±∞ must be
  /// matched exactly; otherwise `|a − b| ≤ 1e-4 · max(1, |a|, |b|)`. The
  /// tolerance is **relative** above 1: an absolute 1e-4 is meaningless for
  /// values near 1e30, whose spacing is ~1e23, and is what DESIGN's 1e-4 means
  /// for the nominal 0…1 range.
  @inlinable
  public static func agree(_ a: Float, _ b: Float) -> Bool {
    if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
    if a == b { return true }
    if a.isInfinite || b.isInfinite { return false }
    let scale = Swift.max(1, Swift.max(Swift.abs(a), Swift.abs(b)))
    // In Double, so that |a − b| cannot overflow for ±3.4e38.
    return Swift.abs(Double(a) - Double(b)) <= 1e-4 * Double(scale)
  }

  /// The first disagreeing channel (row-major), or nil when the images agree.
  public static func compare(expected: ImageBuffer, actual: ImageBuffer) -> Mismatch? {
    guard expected.width == actual.width, expected.height == actual.height else {
      return Mismatch(
        x: 0, y: 0, channel: 0, expected: 0, actual: 0, count: 1, total: 1,
        sizes: ((expected.width, expected.height), (actual.width, actual.height)))
    }
    var first: Mismatch?
    var count = 0
    for y in 0..<expected.height {
      for x in 0..<expected.width {
        let p = expected[x, y], q = actual[x, y]
        for c in 0..<4 where !agree(p[c], q[c]) {
          count += 1
          if first == nil { first = Mismatch(x: x, y: y, channel: c, expected: p[c], actual: q[c], count: 0, total: 0) }
        }
      }
    }
    first?.count = count
    first?.total = expected.width * expected.height * 4
    return first
  }

  /// The first channel where `actual` (rgba8 or rgba16) stores a value more
  /// than one level from `expected` (an rgba32f result) stored in the same
  /// format by ``ImageBuffer``'s quantising store (DESIGN §1: un-premultiply,
  /// NaN → 0, clamp, round); nil when they agree. Values are in the format's
  /// levels (0…255 or 0…65535).
  ///
  /// With `relaxed` (``FloatMode/relaxed``, whose promise is DESIGN §4's
  /// 1e-4 on the premultiplied float result), a channel may also differ by
  /// what that promise allows once stored: `1e-4 · max(1, |v|)` of the
  /// premultiplied value `v`, in levels, divided by the pixel's alpha for a
  /// colour channel (the store un-premultiplies), and anything where alpha
  /// itself is within that of 0. A relaxed `3/x · x − 3` of ±4e-7 instead of
  /// 0 became 4 levels of a 16-bit output where alpha was 0.0003 (fxc fuzz
  /// `--float relaxed` seed 9126479790732904137); the float results agreed.
  public static func compareStored(expected: ImageBuffer, actual: ImageBuffer, relaxed: Bool = false) -> Mismatch? {
    guard expected.width == actual.width, expected.height == actual.height,
      let quantised = try? expected.copy(as: actual.format)
    else { return compare(expected: expected, actual: actual) }
    let scale: Float = actual.format == .rgba8 ? 255 : actual.format == .rgba16 ? 65535 : 1
    var first: Mismatch?
    var count = 0
    for y in 0..<actual.height {
      for x in 0..<actual.width {
        let p = (quantised[stored: x, y] * scale).rounded(.toNearestOrAwayFromZero)
        let q = (actual[stored: x, y] * scale).rounded(.toNearestOrAwayFromZero)
        let e = expected[x, y]
        func allowed(_ c: Int) -> Float {
          guard relaxed else { return 1 }
          let tolerance = 1e-4 * Swift.max(1, Swift.abs(e[c]))
          if c == 3 { return Swift.max(1, tolerance * scale) }
          // |c′/α′ − c/α| ≤ (Δc + (c/α)·Δα) / (α − Δα), c/α at most 1 once stored.
          let alphaTolerance = 1e-4 * Swift.max(1, Swift.abs(e.w))
          guard !e.w.isNaN, e.w > alphaTolerance else { return .infinity }
          let straight = Swift.min(1, Swift.abs(e[c]) / e.w)
          return Swift.max(1, (tolerance + straight * alphaTolerance) / (e.w - alphaTolerance) * scale)
        }
        for c in 0..<4 where Swift.abs(p[c] - q[c]) > allowed(c) {
          count += 1
          if first == nil { first = Mismatch(x: x, y: y, channel: c, expected: p[c], actual: q[c], count: 0, total: 0) }
        }
      }
    }
    first?.count = count
    first?.total = actual.width * actual.height * 4
    return first
  }
}

// MARK: - Differential check

/// Runs a ``FuzzCase`` three ways and compares: (a) the staged interpreter —
/// the oracle; (b) the interpreter on the lowered kernel, with the default
/// schedule, forced inlining, forced materialisation and without
/// simplification; (c) the JIT.
public enum Differential {
  /// One way of evaluating a graph, compared against staged evaluation.
  public enum Evaluation: String, Sendable, CaseIterable {
    case lowered = "lowered (default schedule)"
    case loweredInline = "lowered (forceInline)"
    case loweredMaterialise = "lowered (forceMaterialise)"
    case loweredUnsimplified = "lowered (no simplification)"
    case jit = "JIT"
    /// The graph did not type-check or a run threw (a generator or API bug).
    case error = "error"

    public static let interpreted: [Evaluation] = [.lowered, .loweredInline, .loweredMaterialise, .loweredUnsimplified]
  }

  public struct Disagreement: Sendable, CustomStringConvertible {
    public var evaluation: Evaluation
    public var message: String
    public var description: String { "\(evaluation.rawValue) disagrees with the staged interpreter: \(message)" }
  }

  /// Inlining everything costs about this many node evaluations per pixel; above
  /// the limit the forceInline checks are skipped (exponential recomputation).
  public static let inlineLimit = 60_000.0
  /// The JIT's compile time grows with the kernel: a case marked forceInline is
  /// compiled with the default schedule when its inlined kernel has more nodes.
  public static let jitInlineLimit = 1_500.0

  /// Compares the evaluations in `evaluations` with staged evaluation; the first disagreement, or nil.
  public static func check(
    _ c: FuzzCase, evaluations: [Evaluation] = Evaluation.interpreted + [.jit], cache: PipelineCache? = nil,
    target: Target = .host, floatMode: FloatMode = .strict, schedule: KernelSchedule? = nil
  ) -> Disagreement? {
    check(
      c.image, inputs: c.buffers, evaluations: evaluations, jitSchedule: c.jitSchedule, cache: cache.map { ($0, c.graphKey) },
      target: target, floatMode: floatMode, outputFormat: c.outputFormat, schedule: schedule)
  }

  /// Compares the evaluations in `evaluations` of the graph computing `output`
  /// with its staged evaluation on `inputs` (extra inputs are ignored); the first
  /// disagreement, or nil. `jitSchedule` picks the JIT's lowering options: 0
  /// default, 1 forceInline (when affordable), 2 forceMaterialise. The JIT
  /// stores `outputFormat`; an integer format is compared with the staged
  /// result quantised by ``ImageBuffer``'s store (DESIGN §1), within 1 level.
  public static func check(
    _ output: Image, inputs all: [ImageBuffer], evaluations: [Evaluation] = Evaluation.interpreted + [.jit],
    jitSchedule: Int = 0, target: Target = .host, floatMode: FloatMode = .strict, outputFormat: PixelFormat = .rgba32f,
    schedule: KernelSchedule? = nil
  ) -> Disagreement? {
    check(
      output, inputs: all, evaluations: evaluations, jitSchedule: jitSchedule, cache: nil, target: target, floatMode: floatMode,
      outputFormat: outputFormat, schedule: schedule)
  }

  static func check(
    _ img: Image, inputs all: [ImageBuffer], evaluations: [Evaluation], jitSchedule: Int,
    cache: (PipelineCache, String)?, target: Target, floatMode: FloatMode = .strict, outputFormat: PixelFormat = .rgba32f,
    schedule: KernelSchedule? = nil
  ) -> Disagreement? {
    let graph: EffectGraph
    do {
      // The graph the output's depth takes (a blur's scans at 8 bits, its loop deeper).
      let sized = try PipelineGraph(output: img, precise: outputFormat != .rgba8)
      if sized.hasCuts {
        return checkSized(
          img, sized, inputs: all, evaluations: evaluations, jitSchedule: jitSchedule, target: target, floatMode: floatMode,
          outputFormat: outputFormat, schedule: schedule)
      }
      graph = sized.head  // one size: the head is the whole graph, lowered once
    } catch {
      return Disagreement(evaluation: .error, message: "the graph does not check: \(error)")
    }
    let inputs = Array(all.prefix(Swift.max(1, graph.inputs.count)))
    let uniforms = graph.uniforms.map(\.value)
    let reference: ImageBuffer
    do { reference = try Interpreter.runStaged(graph, inputs: inputs, uniforms: uniforms) } catch {
      return Disagreement(evaluation: .error, message: "staged evaluation threw \(error)")
    }
    let cost = inlineCost(graph)
    for e in evaluations {
      var options = LoweringOptions()
      let out: ImageBuffer
      var strided: String?
      do {
        switch e {
        case .error: continue
        case .lowered: break
        case .loweredInline:
          guard cost <= inlineLimit else { continue }
          options.forceInline = true
        case .loweredMaterialise: options.forceMaterialise = true
        case .loweredUnsimplified: options.simplify = false
        case .jit:
          if jitSchedule == 1 && cost <= inlineLimit {
            var inline = options
            inline.forceInline = true
            let nodes = try Lower.run(graph, options: inline).0.loopNests.reduce(0) { $0 + $1.program.liveCount }
            options.forceInline = Double(nodes) <= jitInlineLimit
          }
          if jitSchedule == 2 { options.forceMaterialise = true }
        }
        if e == .jit {
          let key = cache.map { $0.1 + "\(options)\(target.name)\(floatMode)\(schedule.map(\.rawValue) ?? "")" }
          (out, strided) = try runJIT(
            img, inputs, options: options, cache: key.flatMap { k in cache.map { ($0.0, k) } }, target: target, floatMode: floatMode,
            outputFormat: outputFormat, schedule: schedule)
        } else {
          let (kernel, _) = try Lower.run(graph, options: options)
          out = try Interpreter.run(kernel, inputs: inputs, uniforms: uniforms, params: graph.uniforms, format: .rgba32f)
        }
      } catch {
        return Disagreement(evaluation: e == .jit ? .jit : .error, message: "\(e.rawValue) threw \(error)")
      }
      if let strided { return Disagreement(evaluation: .jit, message: strided) }
      if e == .jit && outputFormat != .rgba32f {
        if let m = ImageComparison.compareStored(expected: reference, actual: out, relaxed: floatMode == .relaxed) {
          return Disagreement(evaluation: e, message: "\(m) (stored as \(outputFormat))")
        }
        continue
      }
      if let m = ImageComparison.compare(expected: reference, actual: out) {
        return Disagreement(evaluation: e, message: "\(m)")
      }
    }
    return nil
  }

  /// The JIT's output for `img` on `inputs` (compiled, or taken from
  /// `cache` under its key), and why a run on padded rows differs from it, if it does.
  static func runJIT(
    _ img: Image, _ inputs: [ImageBuffer], options: LoweringOptions, cache: (PipelineCache, String)?, target: Target,
    floatMode: FloatMode, outputFormat: PixelFormat, schedule: KernelSchedule?
  ) throws -> (ImageBuffer, String?) {
    let compiled: CompiledPipeline
    if let (cache, key) = cache, let hit = cache.get(key) {
      compiled = hit
    } else {
      var pipeline = try Pipeline(output: img)
      pipeline.floatMode = floatMode
      // Not through the disk cache: a random graph's kernel is never asked for
      // again, and a fuzz run would leave thousands of object files behind.
      compiled = try pipeline.compile(
        inputFormats: inputs.map(\.format), outputFormat: outputFormat, options: options, cache: .memoryOnly, target: target,
        schedule: schedule)
      if let (cache, key) = cache { cache.put(key, compiled) }
    }
    let out = try compiled.run(inputs)
    return (out, try Self.stridedRunDiffers(compiled, inputs, from: out, threads: 1))
  }

  /// ``check(_:inputs:evaluations:jitSchedule:target:floatMode:outputFormat:)``
  /// for a graph with geometry stages: the staged pipeline (each geometry
  /// stage as its definition, in Double) against the pipeline compiled with
  /// the interpreter's backend (lowered kernels, the reference geometry) for
  /// the `lowered` evaluations and with the JIT (kernels in bands, the fast
  /// geometry). A geometry stage that cannot take its input's size must be
  /// an error in every evaluation.
  static func checkSized(
    _ img: Image, _ sized: PipelineGraph, inputs all: [ImageBuffer], evaluations: [Evaluation], jitSchedule: Int,
    target: Target, floatMode: FloatMode, outputFormat: PixelFormat, schedule: KernelSchedule?
  ) -> Disagreement? {
    let inputs = Array(all.prefix(Swift.max(1, sized.head.inputs.count)))
    let reference: ImageBuffer?
    do { reference = try Interpreter.runStaged(sized, inputs: inputs) } catch is GeometryError {
      reference = nil
    } catch {
      return Disagreement(evaluation: .error, message: "staged evaluation threw \(error)")
    }
    for e in evaluations where e != .error {
      var options = LoweringOptions()
      switch e {
      case .loweredInline: options.forceInline = true
      case .loweredMaterialise: options.forceMaterialise = true
      case .loweredUnsimplified: options.simplify = false
      case .jit: if jitSchedule == 2 { options.forceMaterialise = true }
      default: break
      }
      let out: ImageBuffer
      do {
        var pipeline = try Pipeline(output: img)
        pipeline.floatMode = floatMode
        let compiled = try pipeline.compile(
          inputFormats: inputs.map(\.format), outputFormat: e == .jit ? outputFormat : .rgba32f, backend: e == .jit ? .jit : .interpreter,
          options: options, cache: nil, target: target, schedule: e == .jit ? schedule : nil)
        out = try compiled.run(inputs, threads: 2)
        if e == .jit, let m = try Self.stridedRunDiffers(compiled, inputs, from: out, threads: 2) {
          return Disagreement(evaluation: .jit, message: m)
        }
      } catch {
        if reference == nil { continue }  // both refuse the size
        return Disagreement(evaluation: e == .jit ? .jit : .error, message: "\(e.rawValue) threw \(error)")
      }
      guard let reference else {
        return Disagreement(evaluation: e, message: "\(e.rawValue) ran where the staged pipeline refused a geometry stage's size")
      }
      let m =
        e == .jit && outputFormat != .rgba32f
        ? ImageComparison.compareStored(expected: reference, actual: out, relaxed: floatMode == .relaxed)
        : ImageComparison.compare(expected: reference, actual: out)
      if let m { return Disagreement(evaluation: e, message: "\(m)") }
    }
    return nil
  }

  /// Why the JIT's run on the same inputs wrapped with padded rows (the
  /// caller's own memory, any stride: ``ImageBuffer/init(wrapping:width:height:rowBytes:format:deallocator:)``)
  /// into a padded output is not `packed`'s bits, or writes into the padding; nil when it is
  /// and does not. A row copy that used the stride for the row's length once
  /// overran its ring (issue 37); every fuzz case now runs both ways.
  static func stridedRunDiffers(_ compiled: CompiledPipeline, _ inputs: [ImageBuffer], from packed: ImageBuffer, threads: Int) throws
    -> String?
  {
    let pad = 36, sentinel: UInt8 = 0xAB
    func padded(_ width: Int, _ height: Int, _ format: PixelFormat) throws -> ImageBuffer {
      let rowBytes = width * format.bytesPerPixel + pad
      let p = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * height, alignment: 16)
      p.initializeMemory(as: UInt8.self, repeating: sentinel, count: rowBytes * height)
      return try ImageBuffer(
        wrapping: p, width: width, height: height, rowBytes: rowBytes, format: format, deallocator: .custom { $0.deallocate() })
    }
    let wrapped = try inputs.map { image in
      let copy = try padded(image.width, image.height, image.format)
      copy.copyPixels(from: image)
      return copy
    }
    let output = try padded(packed.width, packed.height, packed.format)
    try compiled.run(wrapped, into: output, threads: threads)
    for y in 0..<output.height {
      let row = (output.data + y * output.rowBytes).assumingMemoryBound(to: UInt8.self)
      let expected = (packed.data + y * packed.rowBytes).assumingMemoryBound(to: UInt8.self)
      if memcmp(row, expected, output.rowDataBytes) != 0 { return "jit on padded rows differs from packed rows in row \(y)" }
      if (output.rowDataBytes..<output.rowBytes).contains(where: { row[$0] != sentinel }) {
        return "jit wrote into the padding of a wrapped output's row \(y)"
      }
    }
    return nil
  }

  /// Node evaluations per output pixel when every stage is inlined (the
  /// schedule's own estimate with forceInline: four texels per bilinear tap
  /// off the pixel grid, one otherwise).
  public static func inlineCost(_ g: EffectGraph) -> Double {
    guard case .stage(let out) = g.output else { return 0 }
    var e = [Double](repeating: 0, count: g.stages.count)
    e[out] = 1
    var total = 0.0
    for s in stride(from: g.stages.count - 1, through: 0, by: -1) where e[s] > 0 {
      total += e[s] * Double(g.stages[s].program.liveCount)
      for (ref, taps) in Schedule.taps(of: g.stages[s].program) {
        if case .stage(let p) = ref { e[p] += e[s] * taps }
      }
    }
    return total
  }

  /// A memo of compiled pipelines, so that shrinking does not recompile a graph
  /// whose inputs alone changed. Thread-safe.
  public final class PipelineCache: @unchecked Sendable {
    private var entries: [String: CompiledPipeline] = [:]
    private let lock = NSLock()
    public init() {}
    func get(_ k: String) -> CompiledPipeline? { lock.withLock { entries[k] } }
    func put(_ k: String, _ v: CompiledPipeline) {
      lock.withLock {
        if entries.count > 64 { entries.removeAll() }
        entries[k] = v
      }
    }
  }

  // MARK: shrinking

  /// Reduces a failing case while it still fails the same way: fewer stages,
  /// fewer locals, smaller expressions (a subtree replaced by an operand of its
  /// type or by a constant), simpler samplers, smaller and plainer images.
  /// Returns the smallest failing case found and its disagreement.
  public static func shrink(
    _ c: FuzzCase, failing d: Disagreement, maxAttempts: Int = 2000, cache: PipelineCache = PipelineCache(),
    target: Target = .host, floatMode: FloatMode = .strict, schedule: KernelSchedule? = nil
  ) -> (FuzzCase, Disagreement) {
    let evaluations = d.evaluation == .error ? Evaluation.interpreted + [.jit] : [d.evaluation]
    var last = d
    let small = shrink(c, maxAttempts: maxAttempts) { candidate in
      guard
        let f = check(candidate, evaluations: evaluations, cache: cache, target: target, floatMode: floatMode, schedule: schedule),
        f.evaluation == d.evaluation
      else { return false }
      last = f
      return true
    }
    // `last` belongs to the last candidate that failed, which is `small`.
    return (small, check(small, evaluations: evaluations, cache: cache, target: target, floatMode: floatMode) ?? last)
  }

  /// Greedy reduction of `c` while `fails` holds: the first candidate (from
  /// ``Shrinker``: graph structure, then expressions, then images) that still
  /// fails is taken, until none does or `maxAttempts` candidates were tried.
  public static func shrink(_ c: FuzzCase, maxAttempts: Int = 2000, while fails: (FuzzCase) -> Bool) -> FuzzCase {
    var best = c
    var attempts = 0
    var progress = true
    while progress && attempts < maxAttempts {
      progress = false
      for family in [Shrinker.graphCandidates, Shrinker.exprCandidates, Shrinker.imageCandidates] {
        // After a success the list is rebuilt and the scan goes on from the same
        // place: the candidates before it were just tried, and would mostly fail again.
        var list = family(best)
        var i = 0
        while i < list.count && attempts < maxAttempts {
          attempts += 1
          if fails(list[i]) {
            best = list[i]
            progress = true
            list = family(best)
          } else {
            i += 1
          }
        }
      }
    }
    return best
  }
}
