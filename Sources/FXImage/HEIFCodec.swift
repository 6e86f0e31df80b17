internal import CHEIF

#if canImport(Glibc)
  import Glibc
#endif

/// HEIC (HEVC) and AVIF (AV1) through libheif (see Sources/CHEIF): the
/// primary image, upright, with its ICC profile.
enum HEIFCodec {
  /// Decodes the primary image to `.rgba8` or, beyond 8 bits, `.rgba16`,
  /// straight alpha. libheif applies the file's rotation and mirroring, so
  /// the orientation reported is 1 (an EXIF orientation in the file is
  /// informative only, ISO/IEC 23008-12 §6.5.10). With `shrink` (the size a
  /// resize makes of the image), a stored thumbnail large enough is decoded
  /// instead (``ShrinkOnLoad/thumbnail(_:width:height:result:)``).
  static func decode(
    _ bytes: UnsafeRawBufferPointer, format: ImageFileFormat, maxPixels: Int, shrink: ShrinkOnLoad.Result? = nil
  ) throws -> Decoded {
    var message = CMessage()
    var header = fx_heif_header()
    var reader: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_heif_reader_open(bytes.baseAddress, bytes.count, Int32(ImageBuffer.maxDimension), &reader, &header, msg, cap)
    }
    guard opened == FX_HEIF_OK, let reader else { throw failure(opened, message, format) }
    defer { fx_heif_reader_close(reader) }
    try checkImageSize(width: Int(header.width), height: Int(header.height), maxPixels: maxPixels)
    let fromThumbnail = try useThumbnail(reader, &header, shrink: shrink, format: format)
    let width = Int(header.width), height = Int(header.height)
    let sixteen = header.bits == 16
    let image = try decodeBuffer(width: width, height: height, format: sixteen ? .rgba16 : .rgba8)
    let status = message.withBuffer { fx_heif_reader_decode(reader, image.data, image.rowBytes, $0, $1) }
    guard status == FX_HEIF_OK else { throw failure(status, message, format) }
    let info = ImageFileInfo(
      format: format, layout: header.has_alpha != 0 ? .rgba : .rgb, bitDepth: sixteen ? 16 : 8, width: width,
      height: height)
    var decoded = Decoded(image: image, info: info)
    decoded.info.fromThumbnail = fromThumbnail
    var icc: UnsafeMutableRawPointer?
    var size = 0
    if fx_heif_reader_icc(reader, &icc, &size) != 0, let icc {
      decoded.icc = Array(UnsafeRawBufferPointer(start: icc, count: size))
      free(icc)
    }
    return decoded
  }

  /// Switches `reader` to the stored thumbnail shrink-on-load picks, if any;
  /// returns whether it did (`header` then has the thumbnail's size).
  private static func useThumbnail(
    _ reader: OpaquePointer, _ header: inout fx_heif_header, shrink: ShrinkOnLoad.Result?, format: ImageFileFormat
  ) throws -> Bool {
    let width = Int(header.width), height = Int(header.height)
    guard let shrink, let result = shrink(width, height, 1) else { return false }
    var widths = [UInt32](repeating: 0, count: 16), heights = widths
    let count = Int(fx_heif_reader_thumbnails(reader, &widths, &heights, Int32(widths.count)))
    let sizes = (0..<count).map { (width: Int(widths[$0]), height: Int(heights[$0])) }
    guard let index = ShrinkOnLoad.thumbnail(sizes, width: width, height: height, result: result) else { return false }
    var message = CMessage()
    let status = message.withBuffer { fx_heif_reader_use_thumbnail(reader, Int32(index), &header, $0, $1) }
    guard status == FX_HEIF_OK else { throw failure(status, message, format) }
    return true
  }

  /// Encodes 8-bit RGB or RGBA (gray layouts as RGB) as HEIC or AVIF.
  static func encode(
    _ image: ImageBuffer, format: ImageFileFormat, layout: ChannelLayout, lossless: Bool, quality: Int,
    iccProfile: [UInt8]?
  ) throws -> MallocBytes {
    let stored: ChannelLayout = layout.hasAlpha ? .rgba : .rgb
    return try encodeRows(image, layout: stored, bitDepth: 8, iccProfile: iccProfile, name: format == .avif ? "AVIF" : "HEIC") {
      input, out, size, msg, cap in
      fx_heif_encode(
        input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, stored.hasAlpha ? 1 : 0,
        format == .avif ? 1 : 0, lossless ? 1 : 0, Int32(quality), input.icc, input.iccCount, &out, &size, msg, cap)
        == FX_HEIF_OK
    }
  }

  private static func failure(_ code: fx_heif_status, _ message: CMessage, _ format: ImageFileFormat) -> ImageFileFailure {
    let name = format == .avif ? "AVIF" : "HEIC"
    return switch code {
    case FX_HEIF_ERR_UNSUPPORTED: ImageFileFailure("unsupported \(name): \(message.text)")
    case FX_HEIF_ERR_NOMEM: ImageFileFailure("out of memory while decoding the \(name)")
    default: ImageFileFailure("corrupt or truncated \(name) data: \(message.text)")
    }
  }

  /// The HEIF brand of a file's `ftyp` box: ``ImageFileFormat/avif`` for
  /// `avif`/`avis` (also as a compatible brand of `mif1`/`msf1`),
  /// ``ImageFileFormat/heic`` for the HEVC brands and other `mif1` files; nil
  /// when the bytes are not a HEIF file.
  static func sniff(_ bytes: UnsafeRawBufferPointer) -> ImageFileFormat? {
    guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return nil }
    func brand(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
    let major = brand(8)
    if ["avif", "avis"].contains(major) { return .avif }
    if ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(major) { return .heic }
    guard ["mif1", "msf1"].contains(major) else { return nil }
    let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
    let end = min(boxSize, bytes.count)
    let compatible = stride(from: 16, to: end - 3, by: 4).map(brand)
    return compatible.contains("avif") || compatible.contains("avis") ? .avif : .heic
  }
}
