import FX

/// `run --check-map DIR`: where a kernel's output differs from the
/// interpreter's, as a picture. Each pixel is the largest difference of its
/// four channels (premultiplied values, as ``ImageBuffer/subscript(_:_:)``
/// reads them), in levels of the output's format (1/255 for RGBA8, 1/65535
/// for RGBA16, 1e-4 for float), shown as grey `min(255, 64 × levels)`: black
/// where equal, a 1-level rounding difference dark grey, 4 levels or more white.
struct DifferenceMap {
  let width: Int, height: Int
  /// The largest channel difference per pixel, row by row, in the image's own units (0…1).
  let differences: [Float]

  /// The largest difference anywhere.
  var largest: Float { differences.max() ?? 0 }

  /// - Precondition: the two images have one size.
  init(_ a: ImageBuffer, _ b: ImageBuffer) throws {
    precondition(a.width == b.width && a.height == b.height, "difference of images of two sizes")
    (width, height) = (a.width, a.height)
    var differences = [Float](repeating: 0, count: a.width * a.height)
    for y in 0..<a.height {
      for x in 0..<a.width {
        let d = simdAbs(a[x, y] - b[x, y])
        differences[y * a.width + x] = max(max(d.x, d.y), max(d.z, d.w))
      }
    }
    self.differences = differences
  }

  /// One level of `format`: the smallest step it stores (1e-4 for float, DESIGN's tolerance).
  static func level(_ format: PixelFormat) -> Float {
    switch format {
    case .rgba8: 1.0 / 255
    case .rgba16: 1.0 / 65535
    case .rgba32f: 1e-4
    }
  }

  /// The map's file name for an output: its name and `.diff.png` (`out/a.jpg` → `a.jpg.diff.png`).
  static func name(for destination: String) -> String {
    (destination.split(separator: "/").last.map(String.init) ?? destination) + ".diff.png"
  }

  /// Writes the grey map as an 8-bit gray PNG.
  /// - Throws: ``ImageFileError`` when it cannot be written.
  func write(to path: String, format: PixelFormat = .rgba8) throws {
    let image = try ImageBuffer(width: width, height: height, format: .rgba8, zeroFilled: false)
    let level = Self.level(format)
    for y in 0..<height {
      for x in 0..<width {
        let grey = min(1, differences[y * width + x] / level * 64 / 255)
        image[stored: x, y] = SIMD4(grey, grey, grey, 1)
      }
    }
    try ImageFile.write(image, to: path, format: .png, layout: .gray)
  }
}

/// The lane-wise magnitude (FX's `abs` is the effect language's).
private func simdAbs(_ v: SIMD4<Float>) -> SIMD4<Float> { SIMD4(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z), Swift.abs(v.w)) }
