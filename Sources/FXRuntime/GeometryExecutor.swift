import FXIR
import FXImage
import FXInterpreter

/// Runs geometry stages (docs/design.md §4) on premultiplied rgba32f images:
/// crops, quarter turns, mirrors and extends as exact copies of rows and
/// pixels; resizes through ``Resampler``'s tables; affine maps as the
/// reference defines them (``Interpreter/apply(_:to:)``: the definition
/// itself, per pixel in Double; not yet a compiled kernel).
public enum GeometryExecutor {
  /// `geometry` applied to `image`.
  /// - Parameters:
  ///   - image: rgba32f, premultiplied.
  ///   - threads: rows of a resize are split across this many threads.
  /// - Returns: an rgba32f image of ``Geometry/outputSize(width:height:)``.
  /// - Throws: ``GeometryError`` when the stage cannot apply to this size;
  ///   ``ImageBufferError`` when memory runs out.
  public static func apply(_ geometry: Geometry, to image: ImageBuffer, threads: Int = 1) throws -> ImageBuffer {
    precondition(image.format == .rgba32f, "geometry runs on premultiplied rgba32f images")
    let (ow, oh) = try geometry.outputSize(width: image.width, height: image.height)
    switch geometry {
    case .crop(let crop):
      let r = try crop.rectangle(width: image.width, height: image.height)
      let out = try ImageBuffer(width: ow, height: oh, format: .rgba32f, zeroFilled: false)
      for y in 0..<oh {
        out.data.advanced(by: y * out.rowBytes).copyMemory(
          from: image.data + (y + r.y) * image.rowBytes + r.x * 16, byteCount: out.rowDataBytes)
      }
      return out
    case .orient(let o): return try image.oriented(o.exifOrientation)
    case .extend(let e): return try extend(image, e, width: ow, height: oh)
    case .resize(let r):
      return try Resampler.resample(image, width: ow, height: oh, filter: r.filter, threads: threads)
    case .affine: return try Interpreter.apply(geometry, to: image)
    }
  }

  /// The input copied into its place; the margins from the background.
  private static func extend(_ image: ImageBuffer, _ e: Extend, width: Int, height: Int) throws -> ImageBuffer {
    let m = e.margins(width: image.width, height: image.height)
    let out = try ImageBuffer(width: width, height: height, format: .rgba32f, zeroFilled: false)
    let pixels = { (y: Int) in (out.data + y * out.rowBytes).assumingMemoryBound(to: SIMD4<Float>.self) }
    for y in 0..<height {
      let row = pixels(y)
      let inside = y >= m.top && y < m.top + image.height
      if case .color(let c) = e.background {
        row.update(repeating: c, count: width)
        if inside {
          (out.data + y * out.rowBytes + m.left * 16).copyMemory(
            from: image.data + (y - m.top) * image.rowBytes, byteCount: image.rowDataBytes)
        }
      } else {
        for x in 0..<width { row[x] = Interpreter.texel(image, x - m.left, y - m.top, e.background) }
      }
    }
    return out
  }
}
