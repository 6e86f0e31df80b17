import FXIR
import FXImage

/// A float RGBA raster, the interpreter's image (DESIGN §4: every stage is a
/// full RGBA32F raster of the output size).
public struct Raster: Sendable {
  public var width: Int32
  public var height: Int32
  public var pixels: [SIMD4<Float>]

  public init(width: Int, height: Int) {
    self.width = Int32(width)
    self.height = Int32(height)
    pixels = Array(repeating: .zero, count: width * height)
  }

  /// The buffer's pixels as premultiplied floats (``ImageBuffer/subscript(_:_:)``),
  /// or with `stored`, its stored values (``ImageBuffer/subscript(stored:_:)``:
  /// straight alpha as an 8- or 16-bit buffer holds it).
  public init(_ buffer: ImageBuffer, stored: Bool = false) {
    self.init(width: buffer.width, height: buffer.height)
    for y in 0..<buffer.height {
      for x in 0..<buffer.width { pixels[y * buffer.width + x] = stored ? buffer[stored: x, y] : buffer[x, y] }
    }
  }

  @inline(__always)
  public subscript(x: Int32, y: Int32) -> SIMD4<Float> {
    pixels[Int(y) * Int(width) + Int(x)]
  }

  /// The raster of premultiplied values stored in `format` (quantised as
  /// DESIGN §1 says, un-premultiplied first for an 8- or 16-bit format), or
  /// with `stored`, its values stored as they are.
  public func buffer(_ format: PixelFormat, stored: Bool = false) -> ImageBuffer {
    let out = try! ImageBuffer(width: Int(width), height: Int(height), format: format, zeroFilled: false)
    for y in 0..<Int(height) {
      for x in 0..<Int(width) {
        if stored { out[stored: x, y] = pixels[y * Int(width) + x] } else { out[x, y] = pixels[y * Int(width) + x] }
      }
    }
    return out
  }

  /// DESIGN §3, the reference: sampling written directly from the contract,
  /// independently of the IR that ``FXPasses/LowerToKernel`` emits for it.
  public func sample(_ px: Float, _ py: Float, _ s: Sampler) -> SIMD4<Float> {
    if px.isNaN || py.isNaN { return .zero }
    let limit = Sampler.coordinateLimit
    let cx = Semantics.min(Semantics.max(px, -limit), limit)
    let cy = Semantics.min(Semantics.max(py, -limit), limit)
    switch s.filter {
    case .nearest:
      return texel(Semantics.toInt(cx.rounded(.down)), Semantics.toInt(cy.rounded(.down)), s.address)
    case .linear:
      let fx = cx - 0.5, fy = cy - 0.5
      let x0 = fx.rounded(.down), y0 = fy.rounded(.down)
      let tx = fx - x0, ty = fy - y0
      let i = Semantics.toInt(x0), j = Semantics.toInt(y0)
      func lerp(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ t: Float) -> SIMD4<Float> {
        t == 0 ? a : (a * (1 - t)).addingProduct(b, t)
      }
      let top = lerp(texel(i, j, s.address), texel(i &+ 1, j, s.address), tx)
      let bottom = lerp(texel(i, j &+ 1, s.address), texel(i &+ 1, j &+ 1, s.address), tx)
      return lerp(top, bottom, ty)
    }
  }

  @inline(__always)
  func texel(_ i: Int32, _ j: Int32, _ mode: Sampler.AddressMode) -> SIMD4<Float> {
    guard let x = Sampler.resolve(i, width, mode), let y = Sampler.resolve(j, height, mode) else { return .zero }
    return self[x, y]
  }
}
