import FXDSL
import FXIR

/// A color argument of an effect: straight (not premultiplied) RGBA, each
/// channel nominally 0…1, as the command line writes it (`#ff8000`, `#ff800080`).
///
/// Colors are constants: they are checked in Swift (a non-finite channel
/// becomes 0, every channel is clamped into 0…1) and folded into the kernel.
public struct Color: Sendable, Hashable, CustomStringConvertible {
  public var red: Float
  public var green: Float
  public var blue: Float
  public var alpha: Float

  /// A color from straight channels; each is clamped into 0…1, NaN becomes 0.
  public init(_ red: Float, _ green: Float, _ blue: Float, _ alpha: Float = 1) {
    func unit(_ v: Float) -> Float { v.isNaN ? 0 : Swift.min(Swift.max(v, 0), 1) }
    self.red = unit(red)
    self.green = unit(green)
    self.blue = unit(blue)
    self.alpha = unit(alpha)
  }

  /// A color from `0xRRGGBB` (opaque).
  public init(rgb: UInt32) {
    self.init(Float((rgb >> 16) & 0xff) / 255, Float((rgb >> 8) & 0xff) / 255, Float(rgb & 0xff) / 255)
  }

  /// A color from straight channels in a SIMD vector (the chain parser's form).
  public init(_ rgba: SIMD4<Float>) { self.init(rgba.x, rgba.y, rgba.z, rgba.w) }

  public static let black = Color(0, 0, 0)
  public static let white = Color(1, 1, 1)
  /// The dissolve seed's ember color.
  public static let orange = Color(rgb: 0xff8000)

  /// The straight channels as a SIMD vector.
  public var rgba: SIMD4<Float> { SIMD4(red, green, blue, alpha) }

  /// The straight rgb as a float3 constant.
  public var rgb: Expr { float3(Expr(red), Expr(green), Expr(blue)) }

  /// The straight color as a float4 constant.
  public var straight: Expr { float4(Expr(red), Expr(green), Expr(blue), Expr(alpha)) }

  /// The premultiplied color as a float4 constant, what a kernel stores.
  public var premultiplied: Expr { float4(Expr(red * alpha), Expr(green * alpha), Expr(blue * alpha), Expr(alpha)) }

  /// `#rrggbb`, or `#rrggbbaa` when not opaque: how names and listings print it.
  public var description: String {
    let channels = alpha == 1 ? [red, green, blue] : [red, green, blue, alpha]
    return "#"
      + channels.map { c in
        let byte = Int((c * 255).rounded())
        return (byte < 16 ? "0" : "") + String(byte, radix: 16)
      }.joined()
  }
}

// Premultiplied-color helpers (DESIGN §1, EFFECTS.md "SwiftShaders discipline"):
// effects whose result is not linear in the color work on straight color and
// re-multiply, so a half-transparent edge keeps its color.

/// The straight rgb of premultiplied `c` (float3): `c.rgb / c.a`, 0 where `c.a` is 0.
public func straightColor(_ c: Expr) -> Expr {
  select(c.a > 0, c.rgb / c.a, float3(0))
}

/// `f` applied to the straight color of premultiplied `c`, clamped into 0…1 and
/// re-multiplied by `c.a`; alpha unchanged.
func onStraight(_ c: Expr, _ f: (Expr) -> Expr) -> Expr {
  float4(saturate(f(straightColor(c))) * c.a, c.a)
}

/// Rec. 709 luma weights (W3C Filter Effects §9.4 rounds them to 0.2126, 0.7152, 0.0722 for grayscale).
let rec709 = float3(0.2126, 0.7152, 0.0722)

/// Luma of an rgb value (straight or premultiplied: it is linear) with Rec. 709 weights.
func luma(_ rgb: Expr) -> Expr { dot(rgb, rec709) }
