internal import CLCMS

#if canImport(Glibc)
  import Glibc
#endif

/// An ICC colour profile embedded in an image file (PNG `iCCP`, JPEG APP2),
/// checked by LittleCMS when read.
///
/// ``ImageFile/read(_:options:)`` reports a file's profile in
/// ``ImageFileInfo/iccProfile`` and, by default, leaves the pixels in the
/// profile's colour space; ``ImageFile/write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:)``
/// embeds it again, so the numbers and their meaning travel together. With
/// ``ImageReadOptions/convertToSRGB`` the pixels are converted to sRGB on
/// read instead (LittleCMS, relative colorimetric intent with black-point
/// compensation, as libvips and Photoshop convert by default) and no profile
/// is reported.
public struct ICCProfile: Sendable, Equatable {
  /// The colour spaces a profile describes that fxc can use.
  public enum ColorSpace: String, Sendable {
    case gray, rgb, cmyk
  }

  /// The profile as stored (the ICC.1 byte layout).
  public let data: [UInt8]
  /// What the profile's data colour space is.
  public let colorSpace: ColorSpace

  /// Opens `data` with LittleCMS.
  /// - Throws: ``ImageFileError`` (with an empty path) when LittleCMS cannot
  ///   parse it, or it is not a gray, RGB or CMYK profile that can be the
  ///   source of a transform.
  public init(data: [UInt8]) throws {
    guard let space = Self.space(of: data) else {
      throw ImageFileError(path: "", reason: Self.unreadable)
    }
    self.data = data
    colorSpace = space
  }

  /// Whether the profile may describe pixels stored in `layout`: gray
  /// profiles for gray layouts, RGB profiles for RGB ones (ICC.1 and the PNG
  /// specification allow no other pairing).
  public func fits(_ layout: ChannelLayout) -> Bool {
    switch colorSpace {
    case .gray: layout == .gray || layout == .grayAlpha
    case .rgb: layout == .rgb || layout == .rgba
    case .cmyk: false
    }
  }

  /// The profile's description tag (e.g. "Adobe RGB (1998)"), or nil when
  /// it has none.
  public var name: String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let length = data.withUnsafeBytes { fx_icc_description($0.baseAddress, $0.count, &buffer, buffer.count) }
    guard length > 0 else { return nil }
    return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static let unreadable = "the ICC profile is corrupt or not a gray, RGB or CMYK profile LittleCMS can use"

  /// The profile's colour space, or nil when it cannot be used.
  static func space(of data: [UInt8]) -> ColorSpace? {
    let space = data.withUnsafeBytes { fx_icc_color_space($0.baseAddress, $0.count) }
    switch space {
    case FX_ICC_GRAY: return .gray
    case FX_ICC_RGB: return .rgb
    case FX_ICC_CMYK: return .cmyk
    default: return nil
    }
  }

  /// Converts `image` (straight alpha, rgba8 or rgba16, as a decoder made it)
  /// in place from this profile to sRGB; CMYK samples (4 bytes per pixel in
  /// an rgba8 buffer, as the JPEG decoder leaves them) become RGB, opaque.
  func convertToSRGB(_ image: ImageBuffer, cmykInverted: Bool = false) throws {
    var message = CMessage()
    let space: fx_icc_space =
      switch colorSpace {
      case .gray: FX_ICC_GRAY
      case .rgb: FX_ICC_RGB
      case .cmyk: FX_ICC_CMYK
      }
    let status = data.withUnsafeBytes { icc in
      message.withBuffer { msg, cap in
        fx_icc_to_srgb(
          icc.baseAddress, icc.count, space, cmykInverted ? 1 : 0, image.format == .rgba16 ? 2 : 1,
          image.data, image.rowBytes, UInt32(image.width), UInt32(image.height), msg, cap)
      }
    }
    guard status == 0 else { throw ImageFileFailure("cannot convert to sRGB: \(message.text)") }
  }

  /// Converts CMYK samples (4 bytes per pixel in an rgba8 buffer) in place to
  /// opaque RGB with no profile: `R = (1 − C)(1 − K)`, and so for G with M
  /// and B with Y — the conversion of the PostScript Language Reference
  /// (§7.2.4, "Conversion from DeviceCMYK to DeviceRGB", without undercolour
  /// removal), as libvips and Pillow apply to a CMYK file without a profile.
  static func convertCMYKWithoutProfile(_ image: ImageBuffer, inverted: Bool) {
    fx_cmyk_to_rgb_naive(image.data, image.rowBytes, UInt32(image.width), UInt32(image.height), inverted ? 1 : 0)
  }

  /// An RGB display profile made by LittleCMS from CIE xy chromaticities
  /// (`white`, then red, green, blue) and a tone curve for all channels: a
  /// parametric one of ICC type 1 (`[γ]`) or type 4 (`[γ, a, b, c, d]`, the
  /// sRGB form), or with `curveType` 0 a table of `curve.count` values in
  /// 0…1. The same parameters give the same bytes (the header's creation
  /// date is fixed). For tests and tools that need a profile to embed.
  /// - Throws: ``ImageFileError`` when LittleCMS refuses the parameters.
  public static func makeRGB(white: SIMD2<Double>, red: SIMD2<Double>, green: SIMD2<Double>, blue: SIMD2<Double>, curveType: Int, curve: [Double])
    throws -> ICCProfile
  {
    let w = [white.x, white.y]
    let p = [red.x, red.y, green.x, green.y, blue.x, blue.y]
    var out: UnsafeMutableRawPointer?
    var size = 0
    let status = fx_icc_make_rgb(w, p, Int32(curveType), curve, curve.count, &out, &size)
    guard status == 0, let out else { throw ImageFileError(path: "", reason: "LittleCMS cannot make this RGB profile") }
    defer { free(out) }
    var data = Array(UnsafeRawBufferPointer(start: out, count: size))
    // The header's creation date (bytes 24..<36: year, month, day, hour,
    // minute, second, big-endian) is fixed, so the same parameters give the same bytes.
    let date: [UInt16] = [2026, 1, 1, 0, 0, 0]
    for (i, v) in date.enumerated() { (data[24 + 2 * i], data[25 + 2 * i]) = (UInt8(v >> 8), UInt8(v & 0xFF)) }
    return try ICCProfile(data: data)
  }

  /// Adobe RGB (1998): D65 white, its primaries and γ = 563/256 (Adobe RGB
  /// (1998) Color Image Encoding, §4.3.1.2 and §4.3.4.2).
  public static func adobeRGB() throws -> ICCProfile {
    try makeRGB(
      white: [0.3127, 0.3290], red: [0.64, 0.33], green: [0.21, 0.71], blue: [0.15, 0.06], curveType: 1,
      curve: [563.0 / 256])
  }

  /// Display P3: DCI-P3 primaries, D65 white and the sRGB tone curve
  /// (IEC 61966-2-1: γ 2.4, a = 1/1.055, b = 0.055/1.055, c = 1/12.92, d = 0.04045).
  public static func displayP3() throws -> ICCProfile {
    try makeRGB(
      white: [0.3127, 0.3290], red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], curveType: 4,
      curve: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
  }
}

extension ICCProfile: CustomStringConvertible {
  /// "ICC "Adobe RGB (1998)" (rgb, 560 bytes)": the name, not the bytes.
  public var description: String {
    let title = name.map { "\"\($0)\" " } ?? ""
    return "ICC \(title)(\(colorSpace.rawValue), \(data.count) bytes)"
  }
}
