internal import CTIFF

/// TIFF through libtiff (see Sources/CTIFF), read from and written to memory.
enum TIFFCodec {
  /// Decodes a page (the first unless `page` says) to `.rgba8` or, for 16-bit files, `.rgba16`,
  /// straight alpha (associated alpha is divided out), rows as stored; the
  /// Orientation tag is reported, not applied.
  static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, page: Int = 0) throws -> Decoded {
    var message = CMessage()
    var header = fx_tiff_header()
    var reader: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_tiff_reader_open(bytes.baseAddress, bytes.count, allocationLimit(maxPixels), Int32(clamping: page), &reader, &header, msg, cap)
    }
    guard opened == FX_TIFF_OK, let reader else { throw failure(opened, message) }
    defer { fx_tiff_reader_close(reader) }
    let width = Int(header.width), height = Int(header.height)
    try checkImageSize(width: width, height: height, maxPixels: maxPixels)
    let sixteen = header.bits == 16
    let image = try decodeBuffer(width: width, height: height, format: sixteen ? .rgba16 : .rgba8)
    let status = message.withBuffer { msg, cap in fx_tiff_reader_decode(reader, image.data, image.rowBytes, msg, cap) }
    guard status == FX_TIFF_OK else { throw failure(status, message) }
    var decoded = Decoded(image: image, info: info(header))
    decoded.icc = copy { fx_tiff_reader_icc(reader, &$0, &$1) }
    return decoded
  }

  /// Encodes as a Deflate-compressed TIFF (`level` 0 = uncompressed), 8 or
  /// 16 bits, unassociated alpha, in strips or, with `tile`, in tiles.
  static func encode(
    _ image: ImageBuffer, layout: ChannelLayout, bitDepth: Int, level: Int, iccProfile: [UInt8]?, tile: Int = 0,
    orientation: Int = 1, resolution: ImageResolution? = nil
  ) throws -> MallocBytes {
    try encodeRows(image, layout: layout, bitDepth: bitDepth, bigEndian: false, iccProfile: iccProfile, name: "TIFF") {
      input, out, size, msg, cap in
      fx_tiff_encode(
        input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, Int32(layout.channelCount),
        Int32(bitDepth), Int32(level), Int32(tile), input.icc, input.iccCount, Int32(orientation), resolution?.x ?? 0,
        resolution?.y ?? 0, &out, &size, msg, cap) == FX_TIFF_OK
    }
  }

  /// libtiff's largest single allocation: a strip or tile of the largest image the limit lets in.
  static func allocationLimit(_ maxPixels: Int) -> Int { min(maxPixels, ImageBuffer.maxPixels) * 8 + (64 << 20) }

  /// What the header says (read after decoding: an orientation libtiff applied is reported as 1).
  static func info(_ header: fx_tiff_header) -> ImageFileInfo {
    let layout: ChannelLayout =
      header.channels == 1 ? (header.alpha != 0 ? .grayAlpha : .gray) : (header.alpha != 0 ? .rgba : .rgb)
    var info = ImageFileInfo(
      format: .tiff, layout: layout, bitDepth: header.bits == 16 ? 16 : 8, width: Int(header.width),
      height: Int(header.height))
    info.orientation = Int(header.orientation)
    info.pageCount = Int(header.pages)
    info.resolution = header.dpi_x > 0 && header.dpi_y > 0 ? ImageResolution(x: header.dpi_x, y: header.dpi_y) : nil
    return info
  }

  static func failure(_ code: fx_tiff_status, _ message: CMessage) -> ImageFileFailure {
    switch code {
    case FX_TIFF_ERR_UNSUPPORTED: ImageFileFailure("unsupported TIFF: \(message.text)")
    case FX_TIFF_ERR_NOMEM: ImageFileFailure("out of memory while decoding the TIFF")
    case FX_TIFF_ERR_PAGE: ImageFileFailure(message.text)
    default: ImageFileFailure("corrupt or truncated TIFF data: \(message.text)")
    }
  }
}
