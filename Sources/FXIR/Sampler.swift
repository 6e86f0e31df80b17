/// How `layer.sample(p)` reads an image at a continuous position (DESIGN §3).
public struct Sampler: Hashable, Sendable, CustomStringConvertible {
  /// Between which texels a sample blends.
  public enum Filter: String, Hashable, Sendable, CaseIterable {
    /// Bilinear between the four pixel centers nearest to `p`.
    case linear
    /// The texel whose square contains `p`: `floor(p)`.
    case nearest
  }

  /// What a read outside `0..<width × 0..<height` returns: the boundary condition.
  public enum AddressMode: String, Hashable, Sendable, CaseIterable {
    /// The nearest edge texel.
    case clampToEdge
    /// `float4(0)`.
    case transparent
    /// The image tiles the plane.
    case `repeat`
    /// The image tiles the plane, every other copy mirrored (period `2n`).
    case mirror
  }

  public var filter: Filter
  public var address: AddressMode

  public init(filter: Filter = .linear, address: AddressMode = .clampToEdge) {
    self.filter = filter
    self.address = address
  }

  public static let linear = Sampler()
  public static let nearest = Sampler(filter: .nearest)

  public var description: String { "\(filter)/\(address)" }

  /// Coordinates are clamped to ±2^24 before use: beyond it floats are spaced
  /// wider than one pixel, and integer indices stay within Int32.
  public static let coordinateLimit: Float = 16_777_216

  /// The texel index an integer coordinate `i` reads along an axis of `n`
  /// texels under `mode`, or nil for a transparent read. This is the reference
  /// for the IR that lowering emits (FXPasses) and the interpreter's reads.
  @inlinable
  public static func resolve(_ i: Int32, _ n: Int32, _ mode: AddressMode) -> Int32? {
    switch mode {
    case .clampToEdge: return Swift.min(Swift.max(i, 0), n - 1)
    case .transparent: return i >= 0 && i < n ? i : nil
    case .repeat: return Semantics.euclidMod(i, n)
    case .mirror:
      let m = Semantics.euclidMod(i, 2 &* n)
      return m < n ? m : 2 &* n &- 1 &- m
    }
  }
}
