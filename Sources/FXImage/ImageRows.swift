internal import CJPEG
internal import CPNG
internal import CTIFF

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An image file read a band of rows at a time, top to bottom, instead of
/// whole (``ImageFile/read(_:options:)``), so that memory holds a few rows,
/// not the image. The rows are the same bytes ``ImageFile/read(_:options:)``
/// gives: straight alpha, RGBA8 or RGBA16 (native byte order).
///
/// Which files stream (``open(_:options:)`` returns nil for the rest, which
/// are read whole): PNG that is not interlaced; JPEG in gray, YCbCr or RGB
/// (not CMYK/YCCK) — a progressive JPEG too, though libjpeg then holds the
/// whole image's DCT coefficients (2 bytes a sample: 3 bytes a pixel at
/// 4:2:0, 6 at 4:4:4, against 4 for the decoded RGBA8 and 4 more for an
/// output) until its last row; TIFF of 8 or 16 bits, gray or RGB
/// with or without alpha, contiguous samples, striped or tiled (not palette,
/// bilevel, YCbCr, CMYK, separate planes). Any file whose ICC profile is to
/// be converted (``ImageReadOptions/convertToSRGB``) is read whole. WebP,
/// GIF, HEIC and AVIF are always read whole: their libraries decode whole
/// images.
///
/// The file is read through its own descriptor, never held in memory. Only
/// metadata before the pixels is seen: a PNG `eXIf` chunk after the image
/// data does not set ``info``'s orientation (``ImageFile/read(_:options:)``
/// sees it).
public final class ImageRowReader {
  /// What the file stores, as ``ImageFile/read(_:options:)`` reports it
  /// (after ``shrinkOnLoad(by:)``, the reduced size).
  public private(set) var info: ImageFileInfo
  /// The reduction the decoder applies (``shrinkOnLoad(by:)``): 1, 2, 4 or 8.
  public private(set) var shrink = 1
  private var started = false
  /// The format of the rows: ``PixelFormat/rgba16`` for 16-bit files, else ``PixelFormat/rgba8``.
  public let pixelFormat: PixelFormat
  /// Rows read so far; the next ``read(into:rowBytes:count:)`` starts here.
  public private(set) var rowsRead = 0
  /// The file, as passed to ``open(_:options:)`` (errors name it).
  public let path: String
  /// The options it was opened with (``reopened()`` opens it with them again).
  public private(set) var options = ImageReadOptions()
  private let fd: Int32
  private let codec: Codec

  private enum Codec {
    case png(OpaquePointer)
    case jpeg(OpaquePointer)
    case tiff(OpaquePointer)
  }

  private init(path: String, fd: Int32, codec: Codec, info: ImageFileInfo, pixelFormat: PixelFormat) {
    self.path = path
    self.fd = fd
    self.codec = codec
    self.info = info
    self.pixelFormat = pixelFormat
  }

  /// Opens `path` and reads its header, or returns nil when the file is one
  /// that is read whole (the rule above).
  /// - Throws: ``ImageFileError`` for what ``ImageFile/read(_:options:)``
  ///   refuses from the file itself or its header: a missing, unreadable or
  ///   non-regular file, an unknown format, a corrupt header, a size over
  ///   ``ImageReadOptions/maxPixels``.
  public static func open(_ path: String, options: ImageReadOptions = ImageReadOptions()) throws -> ImageRowReader? {
    try ImageFile.attributing(to: path) {
      let (fd, _) = try FileSystem.openRegularFile(path)
      var head = [UInt8](repeating: 0, count: 32)
      let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 32, 0) }
      guard n > 0 else {
        close(fd)
        throw ImageFileFailure(n == 0 ? "empty file (0 bytes)" : "cannot read the file: \(FileSystem.describe(errno))")
      }
      let prefix = Array(head[..<n])
      let opened: ImageRowReader?
      do {
        let format = prefix.withUnsafeBytes { ImageFileFormat(sniffing: $0) }
        if let format { try ImageFile.checkPage(options.page, format: format) }
        switch format {
        case .png: opened = try openPNG(path, fd, prefix, options)
        case .jpeg: opened = try openJPEG(path, fd, options)
        case .tiff: opened = try openTIFF(path, fd, options)
        case nil: throw ImageFileFailure(ImageFileFormat.unsupported)
        default: opened = nil
        }
      } catch {
        close(fd)
        throw error
      }
      if opened == nil { close(fd) }
      opened?.options = options
      return opened
    }
  }

  /// The same file opened again from its first row, reduced as this reader
  /// is (``shrinkOnLoad(by:)``): a second reading, for a reduction that
  /// counts the rows on the first (``ReductionExecutor``).
  /// - Throws: what ``open(_:options:)`` throws; ``ImageFileError`` when the
  ///   file no longer has the size or format it had at the first reading.
  public func reopened() throws -> ImageRowReader {
    let again = try Self.open(path, options: options)
    if let again, shrink > 1 { _ = try again.shrinkOnLoad(by: shrink) }
    guard let again, again.info.width == info.width, again.info.height == info.height, again.pixelFormat == pixelFormat
    else {
      throw ImageFileError(path: path, reason: "the file changed between its two readings (a reduction reads it twice)")
    }
    return again
  }

  private static func openPNG(_ path: String, _ fd: Int32, _ head: [UInt8], _ options: ImageReadOptions) throws
    -> ImageRowReader?
  {
    try head.withUnsafeBytes { try PNGCodec.checkHeaderSize($0, maxPixels: options.maxPixels) }
    var message = CMessage()
    var header = fx_png_header()
    var handle: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_png_reader_open_fd(fd, UInt32(ImageBuffer.maxDimension), &handle, &header, msg, cap)
    }
    guard opened == FX_PNG_OK, let handle else { throw PNGCodec.failure(opened, message) }
    var info = ImageFileInfo(
      format: .png, layout: PNGCodec.layout(colorType: header.color_type, transparency: header.has_trns != 0),
      bitDepth: header.bit_depth == 16 ? 16 : 8, width: Int(header.width), height: Int(header.height))
    // After start, as the whole read asks after decoding: libpng drops an
    // invalid iCCP chunk ("known incorrect sRGB profile") only as it sets up the transforms.
    let started = message.withBuffer { msg, cap in fx_png_reader_start(handle, msg, cap) }
    let icc = PNGCodec.profile(handle, warnings: &info.warnings)
    // Chunks before the image data: a streamed PNG's metadata is what precedes its IDAT.
    let metadata = ImageMetadata(exif: copy { fx_png_reader_exif(handle, &$0, &$1) }, xmp: copy { fx_png_reader_xmp(handle, &$0, &$1) })
    info.resolution = ImageResolution.perMetre(header.ppm_x, header.ppm_y)
    guard header.interlaced == 0, started == FX_PNG_OK,
      try finishInfo(&info, icc: icc, metadata: metadata, options: options)
    else {
      fx_png_reader_close(handle)
      return nil
    }
    return ImageRowReader(path: path, fd: fd, codec: .png(handle), info: info, pixelFormat: info.bitDepth == 16 ? .rgba16 : .rgba8)
  }

  private static func openJPEG(_ path: String, _ fd: Int32, _ options: ImageReadOptions) throws -> ImageRowReader? {
    var message = CMessage()
    var header = fx_jpeg_header()
    var handle: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_jpeg_reader_open_fd(fd, JPEGCodec.memoryLimit(options.maxPixels), &handle, &header, msg, cap)
    }
    guard opened == FX_JPEG_OK, let handle else { throw JPEGCodec.failure(opened, message) }
    var info = ImageFileInfo(
      format: .jpeg, layout: header.components == 1 ? .gray : .rgb, bitDepth: 8, width: Int(header.width),
      height: Int(header.height))
    try checkSize(info, options) { fx_jpeg_reader_close(handle) }
    let icc = copy { fx_jpeg_reader_icc(handle, &$0, &$1) }
    let metadata = ImageMetadata(exif: copy { fx_jpeg_reader_exif(handle, &$0, &$1) }, xmp: copy { fx_jpeg_reader_xmp(handle, &$0, &$1) })
    info.resolution = ImageResolution.jfif(unit: header.density_unit, x: header.x_density, y: header.y_density)
    guard header.cmyk == 0, try finishInfo(&info, icc: icc, metadata: metadata, options: options) else {
      fx_jpeg_reader_close(handle)
      return nil
    }
    return ImageRowReader(path: path, fd: fd, codec: .jpeg(handle), info: info, pixelFormat: .rgba8)
  }

  private static func openTIFF(_ path: String, _ fd: Int32, _ options: ImageReadOptions) throws -> ImageRowReader? {
    var message = CMessage()
    var header = fx_tiff_header()
    var handle: OpaquePointer?
    let opened = message.withBuffer { msg, cap in
      fx_tiff_reader_open_fd(
        fd, TIFFCodec.allocationLimit(options.maxPixels), Int32(clamping: options.page), &handle, &header, msg, cap)
    }
    guard opened == FX_TIFF_OK, let handle else { throw TIFFCodec.failure(opened, message) }
    var info = TIFFCodec.info(header)
    try checkSize(info, options) { fx_tiff_reader_close(handle) }
    let icc = copy { fx_tiff_reader_icc(handle, &$0, &$1) }
    guard header.direct != 0, try finishInfo(&info, icc: icc, metadata: ImageMetadata(), options: options) else {
      fx_tiff_reader_close(handle)
      return nil
    }
    return ImageRowReader(path: path, fd: fd, codec: .tiff(handle), info: info, pixelFormat: info.bitDepth == 16 ? .rgba16 : .rgba8)
  }

  /// ``checkImageSize(width:height:maxPixels:)``, calling `close` before it throws.
  private static func checkSize(_ info: ImageFileInfo, _ options: ImageReadOptions, close: () -> Void) throws {
    do {
      try checkImageSize(width: info.width, height: info.height, maxPixels: options.maxPixels)
    } catch {
      close()
      throw error
    }
  }

  /// Sets the profile and orientation as ``ImageFile`` does; false when the
  /// profile is to be converted (the file is then read whole).
  private static func finishInfo(_ info: inout ImageFileInfo, icc: [UInt8]?, metadata: ImageMetadata, options: ImageReadOptions)
    throws -> Bool
  {
    let parsed = ImageFile.parsedProfile(icc, warnings: &info.warnings)
    let profile = ImageFile.fittingProfile(parsed, layout: info.layout, warnings: &info.warnings)
    if profile != nil && options.convertToSRGB { return false }
    info.iccProfile = profile
    if let orientation = ImageFile.orientation(exif: metadata.exif) { info.orientation = orientation }
    info.metadata = metadata
    return true
  }

  /// Reads the next `count` rows into `count` rows `rowBytes` apart at
  /// `pixels`, each ``ImageFileInfo/width`` pixels of ``pixelFormat``.
  /// - Throws: ``ImageFileError`` when the file is corrupt or ends before
  ///   these rows do, or `count` goes past the last row.
  public func read(into pixels: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    guard count > 0 else { return }
    try ImageFile.attributing(to: path) {
      guard count <= info.height - rowsRead, rowBytes >= info.width * pixelFormat.bytesPerPixel else {
        throw ImageFileFailure("rows \(rowsRead)..<\(rowsRead + count) asked for, of \(info.height)")
      }
      var message = CMessage()
      switch codec {
      case .png(let r):
        let s = message.withBuffer { fx_png_reader_rows(r, pixels, rowBytes, UInt32(count), $0, $1) }
        guard s == FX_PNG_OK else { throw PNGCodec.failure(s, message) }
        if pixelFormat == .rgba16 {
          Alpha.nativeEndianRGBA16(fromBigEndian: pixels, rowBytes: rowBytes, width: info.width, rows: count)
        }
      case .jpeg(let r):
        if !started {
          let s = message.withBuffer { fx_jpeg_reader_start(r, $0, $1) }
          guard s == FX_JPEG_OK else { throw JPEGCodec.failure(s, message) }
          started = true
        }
        let s = message.withBuffer { fx_jpeg_reader_rows(r, pixels, rowBytes, UInt32(count), $0, $1) }
        guard s == FX_JPEG_OK else { throw JPEGCodec.failure(s, message) }
      case .tiff(let r):
        let s = message.withBuffer { fx_tiff_reader_rows(r, pixels, rowBytes, UInt32(count), $0, $1) }
        guard s == FX_TIFF_OK else { throw TIFFCodec.failure(s, message) }
      }
      rowsRead += count
    }
  }

  /// Decodes reduced by `factor` (2, 4 or 8), before the first row is read:
  /// libjpeg's DCT scaling, each side ⌈side / factor⌉, a little sharper
  /// than a box reduction (shrink-on-load, as libvips' and sharp's
  /// thumbnails use it; docs/design.md §4: "the decoder's reduced image").
  /// ``info`` then gives the reduced size.
  /// - Returns: false, changing nothing, for a PNG or TIFF (read at full size).
  /// - Throws: ``ImageFileError`` when rows were read already or libjpeg refuses.
  public func shrinkOnLoad(by factor: Int) throws -> Bool {
    guard case .jpeg(let r) = codec, [2, 4, 8].contains(factor) else { return false }
    try ImageFile.attributing(to: path) {
      guard rowsRead == 0 else { throw ImageFileFailure("shrink-on-load after \(rowsRead) rows were read") }
      var message = CMessage()
      var w: UInt32 = 0, h: UInt32 = 0
      let s = message.withBuffer { fx_jpeg_reader_scale(r, UInt32(factor), &w, &h, $0, $1) }
      guard s == FX_JPEG_OK else { throw JPEGCodec.failure(s, message) }
      (info.width, info.height, shrink) = (Int(w), Int(h), factor)
    }
    return true
  }

  /// After the last row: checks what follows the pixels (a PNG's chunks
  /// through IEND; libjpeg's end of image), as ``ImageFile/read(_:options:)`` does.
  /// - Throws: ``ImageFileError`` when that part is missing or corrupt, or rows remain unread.
  public func finish() throws {
    try ImageFile.attributing(to: path) {
      guard rowsRead == info.height else { throw ImageFileFailure("\(info.height - rowsRead) rows were not read") }
      var message = CMessage()
      switch codec {
      case .png(let r):
        let s = message.withBuffer { fx_png_reader_finish(r, $0, $1) }
        guard s == FX_PNG_OK else { throw PNGCodec.failure(s, message) }
      case .jpeg(let r):
        let s = message.withBuffer { fx_jpeg_reader_finish(r, $0, $1) }
        guard s == FX_JPEG_OK else { throw JPEGCodec.failure(s, message) }
      case .tiff: break
      }
    }
  }

  deinit {
    switch codec {
    case .png(let r): fx_png_reader_close(r)
    case .jpeg(let r): fx_jpeg_reader_close(r)
    case .tiff(let r): fx_tiff_reader_close(r)
    }
    close(fd)
  }
}
