import FXDSL
import FXIR

/// How a shader's `half` arithmetic is computed.
///
/// Metal computes a `half` operation in fp16: the result of each `+`, `−`,
/// `×`, `÷` and `sqrt` is the exact result rounded to the nearest binary16
/// value. Computing in fp32 and rounding the fp32 result to binary16 gives
/// the same value for these five (fp32 has more than 2·11 + 2 significand
/// bits, so the double rounding is innocuous: Figueroa, "When is double
/// rounding innocuous?", SIGNUM 1995).
public enum HalfPrecision: String, Sendable, CaseIterable {
  /// `half` is fp32 (the default): the smoothest result, and what the
  /// catalogue's effects compute; it can differ from an Apple GPU by fp16
  /// rounding.
  case float
  /// Every value of a `half` type is rounded to binary16 where it is made —
  /// each operation, conversion, literal, built-in's result, sample and
  /// argument (``FXDSL/roundHalf(_:file:line:)``) — so the result is the
  /// one the GPU gives for `+ − × ÷ sqrt`, conversions and comparisons. A
  /// built-in function (`sin`, `pow`, …) is fxc's fp32 result rounded once,
  /// where Apple's fp16 implementation may differ in the last place; a
  /// matrix product is rounded once per lane, not after each of its
  /// products and sums.
  case metal
}

extension MetalTranslator {
  /// `v` with its `half` scalars rounded to binary16, under ``HalfPrecision/metal``;
  /// `v` itself otherwise (and for values with no `half` in them).
  func roundedHalf(_ v: MetalValue) -> MetalValue {
    guard program.half == .metal, !v.type.isHandle else { return v }
    let kinds = v.type.scalarKinds
    guard kinds.contains(.half), kinds.count == v.scalars.count else { return v }
    return MetalValue(v.type, zip(v.scalars, kinds).map { $1 == .half ? roundHalf($0) : $0 })
  }
}
