internal import CWEBP

#if canImport(Glibc)
  import Glibc
#endif

/// WebP through libwebp (see Sources/CWEBP): lossy and lossless, alpha, the
/// first frame of an animation, ICC and EXIF chunks.
enum WebPCodec {
  /// Decodes to `.rgba8`, straight alpha (an animation: its first frame on its canvas).
  /// `shrink`, given the stored size and the EXIF orientation, is the size a
  /// resize makes of it: a still image is decoded reduced by
  /// ``ShrinkOnLoad/factor(width:height:result:)`` (each side ⌈n / factor⌉,
  /// libwebp's scaled decoding: shrink-on-load); nil decodes it whole.
  static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, shrink: ShrinkOnLoad.Result? = nil) throws -> Decoded {
    var message = CMessage()
    var header = fx_webp_header()
    let read = message.withBuffer { fx_webp_header_read(bytes.baseAddress, bytes.count, &header, $0, $1) }
    guard read == FX_WEBP_OK else { throw ImageFileFailure("corrupt WebP data: \(message.text)") }
    var width = Int(header.width), height = Int(header.height)
    try checkImageSize(width: width, height: height, maxPixels: maxPixels)
    // A WebP EXIF chunk holds the TIFF structure, sometimes after an "Exif\0\0" prefix.
    var exif = chunk("EXIF", bytes)
    if let e = exif, e.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { exif = Array(e.dropFirst(6)) }
    var factor = 1
    if let shrink, header.animated == 0, let result = shrink(width, height, ImageFile.orientation(exif: exif) ?? 1) {
      factor = ShrinkOnLoad.factor(width: width, height: height, result: result)
    }
    (width, height) = ((width + factor - 1) / factor, (height + factor - 1) / factor)
    let image = try decodeBuffer(width: width, height: height, format: .rgba8)
    let status = message.withBuffer { msg, cap in
      factor == 1
        ? fx_webp_decode(bytes.baseAddress, bytes.count, image.data, image.rowBytes, &header, msg, cap)
        : fx_webp_decode_scaled(bytes.baseAddress, bytes.count, image.data, image.rowBytes, UInt32(width), UInt32(height), msg, cap)
    }
    guard status == FX_WEBP_OK else { throw ImageFileFailure("corrupt WebP data: \(message.text)") }
    // A lossless file's alpha flag is a hint only (WebP Lossless Bitstream
    // §3.2): its pixels decide whether it has alpha. A lossy image without an
    // ALPH chunk is opaque, and is not scanned.
    let alpha = header.has_alpha != 0 || (header.lossless != 0 && !image.isOpaque)
    var decoded = Decoded(
      image: image,
      info: ImageFileInfo(format: .webp, layout: alpha ? .rgba : .rgb, bitDepth: 8, width: width, height: height))
    decoded.icc = chunk("ICCP", bytes)
    decoded.exif = exif
    decoded.info.shrink = factor
    decoded.xmp = chunk("XMP ", bytes)
    return decoded
  }

  private static func chunk(_ fourcc: String, _ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var out: UnsafeMutableRawPointer?
    var size = 0
    guard fx_webp_chunk(bytes.baseAddress, bytes.count, fourcc, &out, &size) != 0, let out else { return nil }
    defer { free(out) }
    return Array(UnsafeRawBufferPointer(start: out, count: size))
  }

  /// Encodes 8-bit rows (gray layouts as RGB with R = G = B), lossless or at `quality`.
  static func encode(
    _ image: ImageBuffer, layout: ChannelLayout, lossless: Bool, quality: Int, iccProfile: [UInt8]?,
    metadata: MetadataBlocks = MetadataBlocks()
  ) throws -> MallocBytes {
    try encodeRows(image, layout: layout, bitDepth: 8, iccProfile: iccProfile, metadata: metadata, name: "WebP") {
      input, out, size, msg, cap in
      fx_webp_encode(
        input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, Int32(layout.channelCount),
        lossless ? 1 : 0, Int32(quality), input.icc, input.iccCount, input.exif, input.exifCount, input.xmp, input.xmpCount,
        &out, &size, msg, cap) == FX_WEBP_OK
    }
  }
}
