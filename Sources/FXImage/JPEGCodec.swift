internal import CJPEG

/// JPEG through libjpeg-turbo (see Sources/CJPEG for the setjmp shims).
enum JPEGCodec {
  /// Decodes a whole JPEG file held in memory to opaque `.rgba8` (CMYK and
  /// YCCK files to their CMYK samples, for ``ImageFile`` to convert).
  /// `shrink`, given the stored size and the EXIF orientation, is the size a
  /// pipeline's first resize makes of the image: libjpeg then decodes it
  /// reduced by ``ShrinkOnLoad/factor(width:height:result:)`` (its DCT
  /// scaling, as a streamed read does: ``ImageRowReader/shrinkOnLoad(by:)``);
  /// nil decodes it whole. A file that is turned upright after reading (EXIF
  /// orientation) is not streamed, and this is its shrink-on-load.
  static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, shrink: ShrinkOnLoad.Result? = nil) throws -> Decoded {
    try decode(maxPixels: maxPixels, shrink: shrink, upright: false) { reader, header, msg, cap in
      fx_jpeg_reader_open(bytes.baseAddress, bytes.count, memoryLimit(maxPixels), &reader, &header, msg, cap)
    }
  }

  /// ``decode(_:maxPixels:shrink:)`` of the file open as `fd`, read from its
  /// current offset by libjpeg as it decodes: the file's bytes are never
  /// held whole (a 110 MB JPEG shrunk on load needs only its reduced pixels).
  /// With `upright`, the pixels are stored turned by the file's EXIF
  /// orientation as they are decoded, strip by strip (``ImageBuffer/oriented(_:)``'s
  /// result without a second copy of the image).
  static func decode(fd: Int32, maxPixels: Int, shrink: ShrinkOnLoad.Result? = nil, upright: Bool = false) throws -> Decoded {
    try decode(maxPixels: maxPixels, shrink: shrink, upright: upright) { reader, header, msg, cap in
      fx_jpeg_reader_open_fd(fd, memoryLimit(maxPixels), &reader, &header, msg, cap)
    }
  }

  private static func decode(
    maxPixels: Int, shrink: ShrinkOnLoad.Result?, upright: Bool,
    open: (inout OpaquePointer?, inout fx_jpeg_header, UnsafeMutablePointer<CChar>, Int) -> fx_jpeg_status
  ) throws -> Decoded {
    var message = CMessage()
    var header = fx_jpeg_header()
    var reader: OpaquePointer?
    let opened = message.withBuffer { msg, cap in open(&reader, &header, msg, cap) }
    guard opened == FX_JPEG_OK, let reader else { throw failure(opened, message) }
    defer { fx_jpeg_reader_close(reader) }

    var width = Int(header.width)
    var height = Int(header.height)
    try checkImageSize(width: width, height: height, maxPixels: maxPixels)
    // The saved segments live in libjpeg's image pool, which decoding frees.
    let exif = copy { fx_jpeg_reader_exif(reader, &$0, &$1) }
    let xmp = copy { fx_jpeg_reader_xmp(reader, &$0, &$1) }
    let orientation = ImageFile.orientation(exif: exif) ?? 1
    var factor = 1
    if let shrink, let result = shrink(width, height, orientation) {
      factor = ShrinkOnLoad.factor(width: width, height: height, result: result)
    }
    if factor > 1 {
      var w: UInt32 = 0, h: UInt32 = 0
      let scaled = message.withBuffer { fx_jpeg_reader_scale(reader, UInt32(factor), &w, &h, $0, $1) }
      guard scaled == FX_JPEG_OK else { throw failure(scaled, message) }
      (width, height) = (Int(w), Int(h))
    }
    let turn = upright && (2...8).contains(orientation) ? orientation : 1
    let image = try decodeBuffer(width: turn >= 5 ? height : width, height: turn >= 5 ? width : height, format: .rgba8)
    let status =
      turn == 1
      ? message.withBuffer { msg, cap in fx_jpeg_reader_decode(reader, image.data, image.rowBytes, msg, cap) }
      : try decodeTurned(reader, width: width, height: height, orientation: turn, into: image, &message)
    guard status == FX_JPEG_OK else { throw failure(status, message) }
    let info = ImageFileInfo(
      format: .jpeg, layout: header.components == 1 ? .gray : .rgb, bitDepth: 8, width: width,
      height: height)  // the stored size (after a shrink), as when the caller turns it
    var decoded = Decoded(image: image, info: info)
    decoded.info.shrink = factor
    decoded.icc = copy { fx_jpeg_reader_icc(reader, &$0, &$1) }
    decoded.exif = exif
    decoded.xmp = xmp
    decoded.info.resolution = ImageResolution.jfif(unit: header.density_unit, x: header.x_density, y: header.y_density)
    if header.cmyk != 0 { decoded.cmyk = .init(inverted: header.adobe_inverted != 0) }
    return decoded
  }

  /// Decodes `width × height` stored pixels in strips of 16 rows, storing
  /// each pixel where EXIF `orientation` (2…8) turns it in `image`
  /// (``ImageBuffer/turnedPosition(_:width:height:)``). Returns libjpeg's status.
  private static func decodeTurned(
    _ reader: OpaquePointer, width w: Int, height h: Int, orientation: Int, into image: ImageBuffer, _ message: inout CMessage
  ) throws -> fx_jpeg_status {
    let destination = ImageBuffer.turnedPosition(orientation, width: w, height: h)
    let strip = try decodeBuffer(width: w, height: Swift.min(16, h), format: .rgba8)
    var status = message.withBuffer { fx_jpeg_reader_start(reader, $0, $1) }
    var y0 = 0
    while status == FX_JPEG_OK && y0 < h {
      let count = Swift.min(strip.height, h - y0)
      status = message.withBuffer { fx_jpeg_reader_rows(reader, strip.data, strip.rowBytes, UInt32(count), $0, $1) }
      for r in 0..<count where status == FX_JPEG_OK {
        let row = (strip.data + r * strip.rowBytes).assumingMemoryBound(to: UInt32.self)
        for x in 0..<w {
          let (dx, dy) = destination(x, y0 + r)
          (image.data + dy * image.rowBytes).assumingMemoryBound(to: UInt32.self)[dx] = row[x]
        }
      }
      y0 += count
    }
    if status == FX_JPEG_OK { status = message.withBuffer { fx_jpeg_reader_finish(reader, $0, $1) } }
    return status
  }

  /// Encodes the premultiplied color (alpha dropped: composited over black)
  /// as gray when `layout` is gray or grayAlpha, otherwise as RGB.
  static func encode(
    _ image: ImageBuffer, layout: ChannelLayout, quality: Int, iccProfile: [UInt8]?, metadata: MetadataBlocks = MetadataBlocks()
  ) throws -> MallocBytes {
    let fileLayout: ChannelLayout = layout == .gray || layout == .grayAlpha ? .gray : .rgb
    if fileLayout == .rgb && image.format == .rgba8 && image.isOpaque {
      // Opaque RGBA8 needs no packing: libjpeg reads it as RGBX (the 4th byte ignored), the same file.
      return try encodeRGBX(image, quality: quality, iccProfile: iccProfile, metadata: metadata)
    }
    return try encodeRows(image, layout: fileLayout, bitDepth: 8, iccProfile: iccProfile, metadata: metadata, name: "JPEG") {
      input, out, size, msg, cap in
      fx_jpeg_encode(
        input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, Int32(fileLayout.channelCount),
        Int32(quality), input.icc, input.iccCount, input.exif, input.exifCount, input.xmp, input.xmpCount,
        Self.density(input.resolution), &out, &size, msg, cap) == FX_JPEG_OK
    }
  }

  /// Encodes an opaque RGBA8 image's rows as they are, as RGBX.
  private static func encodeRGBX(_ image: ImageBuffer, quality: Int, iccProfile: [UInt8]?, metadata: MetadataBlocks) throws
    -> MallocBytes
  {
    try withExtendedLifetime(image) {
      try runEncoder(rows: image.data, rowBytes: image.rowBytes, iccProfile: iccProfile, metadata: metadata, name: "JPEG") {
        input, out, size, msg, cap in
        fx_jpeg_encode(
          input.rows, UInt32(image.width), UInt32(image.height), input.rowBytes, 4, Int32(quality), input.icc,
          input.iccCount, input.exif, input.exifCount, input.xmp, input.xmpCount, Self.density(input.resolution), &out, &size,
          msg, cap) == FX_JPEG_OK
      }
    }
  }

  /// The most libjpeg may allocate: its buffers for a progressive file, 2
  /// bytes per coefficient, at most 4 components at full resolution, plus its tables.
  static func memoryLimit(_ maxPixels: Int) -> Int { min(maxPixels, ImageBuffer.maxPixels) * 8 + (64 << 20) }

  static func failure(_ code: fx_jpeg_status, _ message: CMessage) -> ImageFileFailure {
    switch code {
    case FX_JPEG_ERR_TRUNCATED:
      ImageFileFailure("truncated JPEG file: the data ends before the image does")
    case FX_JPEG_ERR_UNSUPPORTED: ImageFileFailure("unsupported JPEG: \(message.text)")
    case FX_JPEG_ERR_NOMEM: ImageFileFailure("out of memory while decoding the JPEG")
    default: ImageFileFailure("corrupt JPEG data: \(message.text)")
    }
  }

  /// `resolution` as a JFIF density in dots per inch; unit 0 (none) for nil.
  static func density(_ resolution: ImageResolution?) -> fx_jpeg_density {
    guard let r = resolution else { return fx_jpeg_density(unit: 0, x: 1, y: 1) }
    return fx_jpeg_density(unit: 1, x: r.jfifDensity.x, y: r.jfifDensity.y)
  }
}
