internal import CJPEG
internal import CPNG
internal import CTIFF

/// How ``ImageFile`` writes a file: the arguments of
/// ``ImageFile/write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:)``
/// as one value, for writers that take them together (``ImageRowWriter``).
public struct ImageWriteOptions: Sendable {
  /// The file format; nil takes it from the path's extension.
  public var format: ImageFileFormat?
  /// The channels stored (see ``ImageFile`` for what a layout without alpha stores).
  public var layout: ChannelLayout
  /// Bits per channel in the file, 8 or 16 (16 for PNG and TIFF only).
  public var bitDepth: Int
  /// 1…100: JPEG's, lossy WebP's, HEIC's and AVIF's quality.
  public var quality: Int
  /// zlib level 0…9 of PNG and TIFF (Deflate; 0 writes an uncompressed TIFF).
  public var compressionLevel: Int
  /// WebP, HEIC and AVIF: lossless.
  public var lossless: Bool
  /// A profile to embed; nil embeds none.
  public var iccProfile: ICCProfile?
  /// The EXIF orientation (1…8) the file records for its stored pixels: 2…8
  /// is written (a JPEG's APP1, a PNG's eXIf, a TIFF's Orientation tag) so a
  /// viewer turns the image; 1 writes none. HEIC, AVIF and WebP files
  /// record none (``ImageFile/recordsOrientation(_:)``).
  public var orientation = 1
  /// EXIF and XMP to carry into the file (JPEG, PNG and WebP: ``ImageMetadata/carried(by:)``;
  /// other formats write none). The EXIF's Orientation tag is set to ``orientation``.
  public var metadata = ImageMetadata()
  /// The pixel density to record (JPEG, PNG), or nil.
  public var resolution: ImageResolution? = nil
  /// Whether ``ImageRowWriter/finish()`` replaces a file that exists at the
  /// path (the default); false puts the file in place only where none
  /// exists, atomically, as ``ImageFile``'s `write(…, replacing: false)`.
  public var replacing = true

  /// ``ImageFile``'s defaults: the format by extension, RGBA, 8 bits,
  /// quality 90, zlib level 6, lossy, no profile.
  public init(
    format: ImageFileFormat? = nil, layout: ChannelLayout = .rgba, bitDepth: Int = 8, quality: Int = 90,
    compressionLevel: Int = 6, lossless: Bool = false, iccProfile: ICCProfile? = nil
  ) {
    self.format = format
    self.layout = layout
    self.bitDepth = bitDepth
    self.quality = quality
    self.compressionLevel = compressionLevel
    self.lossless = lossless
    self.iccProfile = iccProfile
  }
}

/// An image file written a band of rows at a time, top to bottom, with
/// exactly the bytes ``ImageFile/write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:)``
/// writes for the same pixels — and as atomically: the rows go to a
/// temporary file next to the destination, which ``finish()`` flushes and
/// renames into place. A writer that is not finished (an error, a stop)
/// removes it: the destination is never partly written.
///
/// PNG, JPEG and TIFF stream (``streams(_:)``); WebP, HEIC and AVIF need the
/// whole image (their encoders take one), so a caller writes those with ``ImageFile``.
public final class ImageRowWriter {
  /// The destination, as passed to ``init(path:width:height:options:)``.
  public let path: String
  /// The image's size in pixels.
  public let width: Int
  public let height: Int
  /// Rows written so far.
  public private(set) var rowsWritten = 0
  private let options: ImageWriteOptions
  private let file: AtomicFile
  private let codec: Codec
  private var packed: MallocBytes?

  private enum Codec {
    case png(OpaquePointer)
    case jpeg(OpaquePointer)
    case tiff(OpaquePointer)
  }

  /// Whether rows of `format` can be written as they come: PNG, JPEG, TIFF.
  public static func streams(_ format: ImageFileFormat) -> Bool { [.png, .jpeg, .tiff].contains(format) }

  /// Starts the file `path` of `width × height` pixels.
  /// - Throws: ``ImageFileError`` as ``ImageFile``'s write does for these
  ///   options (an unknown extension, an option out of range, a profile that
  ///   does not fit, a directory that is missing or not writable), and when
  ///   the format does not stream (``streams(_:)``).
  public init(path: String, width: Int, height: Int, options: ImageWriteOptions) throws {
    self.path = path
    self.width = width
    self.height = height
    var options = options
    let format = try ImageFile.attributing(to: path) { try options.format ?? ImageFile.formatFromExtension(of: path) }
    options.format = format
    // A JPEG stores gray or RGB; ImageFile writes grayAlpha as gray and rgba as RGB.
    if format == .jpeg { options.layout = options.layout.channelCount <= 2 ? .gray : .rgb }
    self.options = options
    (file, codec) = try ImageFile.attributing(to: path) {
      guard Self.streams(format) else {
        throw ImageFileFailure("\(format.name) files are encoded whole, not row by row")
      }
      try ImageFile.checkOptions(
        format: format, layout: options.layout, bitDepth: options.bitDepth, quality: options.quality,
        level: options.compressionLevel, iccProfile: options.iccProfile)
      guard width >= 1, height >= 1, width <= ImageBuffer.maxDimension, height <= ImageBuffer.maxDimension else {
        throw ImageBufferError.invalidSize(width: width, height: height)
      }
      let file = try AtomicFile(path)
      return (file, try Self.start(format, fd: file.fd, width: width, height: height, options: options))
    }
  }

  private static func start(_ format: ImageFileFormat, fd: Int32, width: Int, height: Int, options: ImageWriteOptions)
    throws -> Codec
  {
    var message = CMessage()
    var handle: OpaquePointer?
    let icc = options.iccProfile?.data ?? []
    let blocks = options.metadata.blocks(orientation: options.orientation, format: format)
    let ppm = options.resolution?.pixelsPerMetre
    let exifBytes = blocks.exif ?? [], xmpBytes = blocks.xmp ?? []
    // A JPEG's RGB is handed over as RGBX, so opaque RGBA8 rows go as they are (``write(_:rowBytes:format:count:)``).
    let channels = Int32(format == .jpeg && options.layout == .rgb ? 4 : options.layout.channelCount)
    let (w, h) = (UInt32(width), UInt32(height))
    return try icc.withUnsafeBytes { icc in
      try exifBytes.withUnsafeBytes { exif in
        try xmpBytes.withUnsafeBytes { xmp in
          let iccPointer = icc.isEmpty ? nil : icc.baseAddress
          let (exifPointer, xmpPointer) = (exif.isEmpty ? nil : exif.baseAddress, xmp.isEmpty ? nil : xmp.baseAddress)
          switch format {
          case .png:
            let s = message.withBuffer {
              fx_png_writer_open(
                fd, w, h, channels, Int32(options.bitDepth), Int32(options.compressionLevel), iccPointer, icc.count,
                exifPointer, exif.count, xmpPointer, xmp.count, ppm?.x ?? 0, ppm?.y ?? 0, &handle, $0, $1)
            }
            guard s == FX_PNG_OK, let handle else { throw ImageFileFailure("cannot encode PNG: \(message.text)") }
            return .png(handle)
          case .jpeg:
            let s = message.withBuffer {
              fx_jpeg_writer_open(
                fd, w, h, channels, Int32(options.quality), iccPointer, icc.count, exifPointer, exif.count, xmpPointer, xmp.count,
                JPEGCodec.density(options.resolution), &handle, $0, $1)
            }
            guard s == FX_JPEG_OK, let handle else { throw ImageFileFailure("cannot encode JPEG: \(message.text)") }
            return .jpeg(handle)
          default:
            let s = message.withBuffer {
              fx_tiff_writer_open(
                fd, w, h, channels, Int32(options.bitDepth), Int32(options.compressionLevel), 0, iccPointer, icc.count,
                Int32(options.orientation), options.resolution?.x ?? 0, options.resolution?.y ?? 0, &handle, $0, $1)
            }
            guard s == FX_TIFF_OK, let handle else { throw ImageFileFailure("cannot encode TIFF: \(message.text)") }
            return .tiff(handle)
          }
        }
      }
    }
  }

  /// Encodes the next `count` rows: `count` rows `rowBytes` apart at
  /// `pixels`, each ``width`` pixels of `format` (straight alpha in rgba8
  /// and rgba16, premultiplied in rgba32f, as ``ImageBuffer`` holds them).
  /// - Throws: ``ImageFileError`` when encoding or writing fails (a full
  ///   disk), or `count` goes past the last row.
  /// Whether rows written so far had a pixel with alpha below 1 that a
  /// layout without alpha dropped (composited over black): a batch warns.
  public private(set) var droppedTransparency = false

  public func write(_ pixels: UnsafeRawPointer, rowBytes: Int, format: PixelFormat, count: Int) throws {
    guard count > 0 else { return }
    try ImageFile.attributing(to: path) {
      guard count <= height - rowsWritten else {
        throw ImageFileFailure("rows \(rowsWritten)..<\(rowsWritten + count) written, of \(height)")
      }
      let layout = options.layout, depth = options.bitDepth
      if !layout.hasAlpha && !droppedTransparency {
        droppedTransparency = !Packing.isOpaque(pixels, rowBytes: rowBytes, width: width, rows: count, format: format)
      }
      if case .jpeg(let w) = codec, layout == .rgb {
        try writeRGBX(w, pixels, rowBytes: rowBytes, format: format, count: count)
        rowsWritten += count
        return
      }
      let packedRowBytes = Packing.packedRowBytes(width: width, layout: layout, bitDepth: depth)
      if packed == nil || packed!.capacity < packedRowBytes * count {
        packed = try MallocBytes(capacity: packedRowBytes * count)
      }
      let out = packed!.pointer
      if case .tiff = codec {
        Packing.packRows(
          pixels, rowBytes: rowBytes, width: width, rows: count, format: format, layout: layout, bitDepth: depth,
          bigEndian: false, into: out)
      } else {
        Packing.packRows(
          pixels, rowBytes: rowBytes, width: width, rows: count, format: format, layout: layout, bitDepth: depth,
          bigEndian: true, into: out)
      }
      var message = CMessage()
      let n = UInt32(count)
      let ok: Bool
      switch codec {
      case .png(let w): ok = message.withBuffer { fx_png_writer_rows(w, out, packedRowBytes, n, $0, $1) } == FX_PNG_OK
      case .jpeg(let w): ok = message.withBuffer { fx_jpeg_writer_rows(w, out, packedRowBytes, n, $0, $1) } == FX_JPEG_OK
      case .tiff(let w): ok = message.withBuffer { fx_tiff_writer_rows(w, out, packedRowBytes, n, $0, $1) } == FX_TIFF_OK
      }
      guard ok else { throw encodingFailure(message) }
      rowsWritten += count
    }
  }

  /// RGB rows of a JPEG as RGBX: opaque RGBA8 rows are handed to libjpeg as
  /// they are (its 4th byte ignored: the same file as packed RGB, without the
  /// packing); others are composited over black into RGBX first.
  private func writeRGBX(_ w: OpaquePointer, _ pixels: UnsafeRawPointer, rowBytes: Int, format: PixelFormat, count: Int) throws {
    var source = pixels, stride = rowBytes
    if format != .rgba8 || !Packing.isOpaque(pixels, rowBytes: rowBytes, width: width, rows: count) {
      if packed == nil || packed!.capacity < 4 * width * count { packed = try MallocBytes(capacity: 4 * width * count) }
      Packing.packRGBX(pixels, rowBytes: rowBytes, width: width, rows: count, format: format, into: packed!.pointer)
      (source, stride) = (UnsafeRawPointer(packed!.pointer), 4 * width)
    }
    var message = CMessage()
    guard message.withBuffer({ fx_jpeg_writer_rows(w, source, stride, UInt32(count), $0, $1) }) == FX_JPEG_OK else {
      throw encodingFailure(message)
    }
  }

  /// After the last row: ends the file, flushes it to disk and renames it
  /// over ``path``.
  /// - Throws: ``ImageFileError`` when rows are missing, or ending, flushing
  ///   or renaming fails (the temporary file is then removed).
  public func finish() throws {
    try ImageFile.attributing(to: path) {
      guard rowsWritten == height else { throw ImageFileFailure("\(height - rowsWritten) rows were not written") }
      var message = CMessage()
      let ok: Bool
      switch codec {
      case .png(let w): ok = message.withBuffer { fx_png_writer_finish(w, nil, nil, $0, $1) } == FX_PNG_OK
      case .jpeg(let w): ok = message.withBuffer { fx_jpeg_writer_finish(w, nil, nil, $0, $1) } == FX_JPEG_OK
      case .tiff(let w): ok = message.withBuffer { fx_tiff_writer_finish(w, nil, nil, $0, $1) } == FX_TIFF_OK
      }
      guard ok else { throw encodingFailure(message) }
      try file.commit(replacing: options.replacing)
    }
  }

  private func encodingFailure(_ message: CMessage) -> ImageFileFailure {
    ImageFileFailure("cannot encode \(options.format?.name ?? "the file"): \(message.text)")
  }

  deinit {
    switch codec {
    case .png(let w): fx_png_writer_close(w)
    case .jpeg(let w): fx_jpeg_writer_close(w)
    case .tiff(let w): fx_tiff_writer_close(w)
    }
  }
}
