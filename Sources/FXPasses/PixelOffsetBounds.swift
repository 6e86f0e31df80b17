import FXIR

/// How far a load's coordinate can stray from the output pixel when it is not
/// a fixed tap: bounds on `coordinate − pixel` that hold at every pixel,
/// proved from the value ranges (``RangeAnalysis``) of what is added to the
/// pixel. A distortion whose displacement is bounded — a chromatic
/// aberration's shift clamped to ±amount, a wave's `a·sin(…)` — reads rows
/// within that bound of its own, so what it reads can stay a line buffer
/// (``RunPlan``) instead of a whole image.
///
/// The coordinate must be the pixel (as an int, or converted to float) plus
/// terms whose facts are finite and never NaN, through `+`, `−`, `floor`,
/// `ceil`, `toInt`, `select`, and the clamp to the image (`max(·, c ≤ 0)`,
/// `min(·, extent − 1)`). Float `+` and `−` are widened by their rounding
/// error at the largest coordinate (``RangeAnalysis/maxExtent``), so the
/// bounds hold for the fp32 values the kernel computes.
public enum PixelOffsetBounds {
  /// The bounds of `id − pixel` along `axis`, or nil when `id` is not the
  /// pixel plus bounded terms (or the bounds exceed 2²² pixels).
  public static func of(_ id: NodeID, _ axis: PixelOffset.Axis, in p: Program, facts: [ValueFacts]) -> ClosedRange<Double>? {
    guard let r = bounds(id, axis, p, facts, depth: 0), r.lowerBound > -limit, r.upperBound < limit else { return nil }
    return r
  }

  /// How far `id` reaches from the pixel along `axis`: the larger bound's
  /// magnitude of ``of(_:_:in:facts:)``, rounded up; nil when unbounded.
  public static func reach(_ id: NodeID, _ axis: PixelOffset.Axis, in p: Program, facts: [ValueFacts]) -> Int32? {
    of(id, axis, in: p, facts: facts).map { Int32(Swift.max(-$0.lowerBound, $0.upperBound).rounded(.up)) }
  }

  /// Offsets beyond this many pixels are not worth a line buffer and would
  /// strain the exactness of the float conversions.
  static let limit = Double(1 << 22)

  private static func bounds(_ id: NodeID, _ axis: PixelOffset.Axis, _ p: Program, _ facts: [ValueFacts], depth: Int) -> ClosedRange<Double>? {
    guard depth < 64 else { return nil }
    let n = p[id]
    let (pixel, extent): (Op, Op) = axis == .x ? (.pixelX, .width) : (.pixelY, .height)
    func inner(_ k: Int) -> ClosedRange<Double>? { bounds(n.args[k], axis, p, facts, depth: depth + 1) }
    func term(_ k: Int) -> ValueFacts? {
      let f = facts[Int(n.args[k].index)]
      return f.isFinite ? f : nil
    }
    let isFloat = n.kind == .float
    switch n.op {
    case pixel: return 0...0
    case .toFloat: return inner(0)
    case .add, .sub:
      if let r = inner(0), let f = term(1) {
        return n.op == .add
          ? widened(r.lowerBound + f.lo...r.upperBound + f.hi, isFloat) : widened(r.lowerBound - f.hi...r.upperBound - f.lo, isFloat)
      }
      if n.op == .add, let r = inner(1), let f = term(0) { return widened(r.lowerBound + f.lo...r.upperBound + f.hi, isFloat) }
      return nil
    case .floor:
      // pixel is an integer: floor(pixel + d) = pixel + floor(d).
      return inner(0).map { $0.lowerBound.rounded(.down)...$0.upperBound.rounded(.down) }
    case .ceil:
      return inner(0).map { $0.lowerBound.rounded(.up)...$0.upperBound.rounded(.up) }
    case .toInt:
      // Truncation: floor at or above 0, ceil below; NaN would give 0.
      guard !facts[Int(n.args[0].index)].mayBeNaN else { return nil }
      return inner(0).map { $0.lowerBound.rounded(.down)...$0.upperBound.rounded(.up) }
    case .select:
      guard let a = bounds(n.args[1], axis, p, facts, depth: depth + 1), let b = bounds(n.args[2], axis, p, facts, depth: depth + 1) else {
        return nil
      }
      return Swift.min(a.lowerBound, b.lowerBound)...Swift.max(a.upperBound, b.upperBound)
    case .max:
      // max(pixel + d, c) with c ≤ 0 ≤ pixel: c − pixel ≤ 0, so the offset is in lo…max(hi, 0).
      let c = facts[Int(n.args[1].index)]
      guard let r = inner(0), !c.mayBeNaN, c.hi <= 0 else { return nil }
      return r.lowerBound...Swift.max(r.upperBound, 0)
    case .min:
      // min(pixel + d, extent − k) with k ≥ 1: extent − k − pixel ≥ 0 when pixel < extent.
      let bound = p[n.args[1]]
      guard let r = inner(0), bound.op == .sub, p[bound.args[0]].op == extent,
        case .int(let k)? = p.constantValue(bound.args[1]), k >= 1
      else { return nil }
      return Swift.min(r.lowerBound, 0)...r.upperBound
    default: return nil
    }
  }

  /// A float sum's bounds widened by its rounding error: at most half an ulp
  /// of the largest magnitude it can have (the image's extent plus the offset).
  private static func widened(_ r: ClosedRange<Double>, _ isFloat: Bool) -> ClosedRange<Double> {
    guard isFloat else { return r }
    let magnitude = RangeAnalysis.maxExtent + Swift.max(abs(r.lowerBound), abs(r.upperBound))
    let slack = magnitude * 0x1p-23
    return (r.lowerBound - slack)...(r.upperBound + slack)
  }
}
