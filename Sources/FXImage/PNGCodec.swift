internal import CPNG

/// PNG through libpng (see Sources/CPNG for the setjmp shims).
enum PNGCodec {
  /// Decodes a whole PNG file held in memory to `.rgba8` or, for 16-bit
  /// files, `.rgba16`, with straight alpha as the file holds it.
  static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws -> Decoded {
    try checkHeaderSize(bytes, maxPixels: maxPixels)
    var message = CMessage()
    var header = fx_png_header()
    var reader: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_png_reader_open(
        bytes.baseAddress, bytes.count, UInt32(ImageBuffer.maxDimension), &reader, &header, msg, cap
      )
    }
    guard opened == FX_PNG_OK, let reader else { throw failure(opened, message) }
    defer { fx_png_reader_close(reader) }

    let width = Int(header.width)
    let height = Int(header.height)
    let sixteen = header.bit_depth == 16
    try checkImageSize(width: width, height: height, maxPixels: maxPixels)
    let image = try decodeBuffer(width: width, height: height, format: sixteen ? .rgba16 : .rgba8)
    let status = message.withBuffer { msg, cap in
      fx_png_reader_decode(reader, image.data, image.rowBytes, msg, cap)
    }
    guard status == FX_PNG_OK else { throw failure(status, message) }
    if sixteen { Alpha.nativeEndianRGBA16(fromBigEndian: image) }
    let info = ImageFileInfo(
      format: .png,
      layout: layout(colorType: header.color_type, transparency: header.has_trns != 0),
      bitDepth: sixteen ? 16 : 8, width: width, height: height)
    var decoded = Decoded(image: image, info: info)
    decoded.icc = profile(reader, warnings: &decoded.info.warnings)
    decoded.exif = copy { fx_png_reader_exif(reader, &$0, &$1) }
    decoded.xmp = copy { fx_png_reader_xmp(reader, &$0, &$1) }
    decoded.info.resolution = ImageResolution.perMetre(header.ppm_x, header.ppm_y)
    return decoded
  }

  /// The iCCP profile, unless libpng warned about it: it still hands out a
  /// profile it calls "known incorrect" (an early HP/Microsoft sRGB profile),
  /// which it then refuses to write. Such a profile is dropped with a warning.
  static func profile(_ reader: OpaquePointer, warnings: inout [String]) -> [UInt8]? {
    let iccWarning = String(cString: fx_png_reader_icc_warning(reader))
    guard iccWarning.isEmpty else {
      warnings.append("libpng dropped the ICC profile (\(iccWarning)); the pixels are taken as sRGB")
      return nil
    }
    return copy { fx_png_reader_icc(reader, &$0, &$1) }
  }

  /// Encodes packed rows (``encodeRows(_:layout:bitDepth:bigEndian:iccProfile:name:_:)``).
  static func encode(
    _ image: ImageBuffer, layout: ChannelLayout, bitDepth: Int, compressionLevel: Int, iccProfile: [UInt8]?,
    metadata: MetadataBlocks = MetadataBlocks()
  ) throws -> MallocBytes {
    try encodeRows(image, layout: layout, bitDepth: bitDepth, iccProfile: iccProfile, metadata: metadata, name: "PNG") {
      input, out, size, msg, cap in
      fx_png_encode(
        input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, Int32(layout.channelCount),
        Int32(bitDepth), Int32(compressionLevel), input.icc, input.iccCount, input.exif, input.exifCount, input.xmp,
        input.xmpCount, input.resolution?.pixelsPerMetre.x ?? 0, input.resolution?.pixelsPerMetre.y ?? 0, &out, &size, msg, cap)
        == FX_PNG_OK
    }
  }

  /// The layout a file carries; tRNS transparency counts as alpha.
  static func layout(colorType: Int32, transparency: Bool) -> ChannelLayout {
    switch colorType {
    case PNG_COLOR_TYPE_GRAY: transparency ? .grayAlpha : .gray
    case PNG_COLOR_TYPE_GRAY_ALPHA: .grayAlpha
    case PNG_COLOR_TYPE_RGB_ALPHA: .rgba
    default: transparency ? .rgba : .rgb  // RGB and palette
    }
  }

  static func failure(_ code: fx_png_status, _ message: CMessage) -> ImageFileFailure {
    switch code {
    case FX_PNG_ERR_TRUNCATED:
      ImageFileFailure(
        "truncated PNG file: the data ends before the image does"
          + (message.text.isEmpty ? "" : " (libpng warned: \(message.text))"))
    case FX_PNG_END_MISSING:
      ImageFileFailure("truncated PNG file: the image data is complete, but the file ends before its IEND chunk")
    case FX_PNG_ERR_NOMEM: ImageFileFailure("out of memory while decoding the PNG")
    default: ImageFileFailure("corrupt PNG data: \(message.text)")
    }
  }

  /// Reads the size from IHDR (always the first chunk) so that an oversized
  /// image gets a plain "too large" message instead of libpng's limit error.
  static func checkHeaderSize(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws {
    guard bytes.count >= 24,
      bytes[12] == UInt8(ascii: "I"), bytes[13] == UInt8(ascii: "H"),
      bytes[14] == UInt8(ascii: "D"), bytes[15] == UInt8(ascii: "R")
    else { return }  // libpng will say what is wrong
    func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
    try checkImageSize(width: u32(16), height: u32(20), maxPixels: maxPixels)
  }
}

extension ICCProfile {
  /// Why this profile cannot go into a `format` file storing `layout`, or
  /// nil when it can: it must fit the stored channels (``fits(_:)``; a JPEG
  /// stores gray or RGB), and libpng refuses to write some profiles in a PNG
  /// — those it lists as a "known incorrect sRGB profile" (early HP and
  /// Microsoft sRGB profiles, common in older photos), though such a profile
  /// reads without trouble from a JPEG or TIFF.
  public func embeddingRefusal(in format: ImageFileFormat, layout: ChannelLayout) -> String? {
    let stored: ChannelLayout = format == .jpeg ? (layout.channelCount >= 3 ? .rgb : .gray) : layout
    guard fits(stored) else {
      return "a \(colorSpace.rawValue) ICC profile cannot describe the \(stored.rawValue) pixels of the output"
    }
    guard format == .png else { return nil }
    var message = CMessage()
    let refused = data.withUnsafeBytes { icc in
      message.withBuffer { fx_png_profile_refused(icc.baseAddress, icc.count, Int32(stored.channelCount), $0, $1) }
    }
    return refused != 0 ? "libpng refuses to write it in a PNG (\(message.text))" : nil
  }
}
