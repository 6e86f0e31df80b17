internal import CEXIF

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading and writing image files (DESIGN §1) through Debian's libraries:
/// PNG (libpng), JPEG (libjpeg-turbo), TIFF (libtiff), WebP (libwebp), GIF
/// (giflib, read only), HEIC and AVIF (libheif); ICC profiles through
/// LittleCMS, EXIF through libexif. Files are decoded from memory and
/// written atomically.
///
/// ``PixelFormat/rgba8`` and ``PixelFormat/rgba16`` buffers hold straight
/// alpha, as files do, so a read and a write of the same layout and depth
/// give back the file's numbers exactly. Values are the file's own encoding:
/// no gamma or EXIF orientation is applied, and an ICC profile is applied
/// only when asked (``ImageReadOptions/convertToSRGB``), else reported and
/// embedded again on write.
///
/// Every failure is an ``ImageFileError`` naming the file; nothing is printed.
public enum ImageFile {
  /// Reads an image file. The format is sniffed from the file's first
  /// bytes (``ImageFileFormat/init(sniffing:)``), not from its extension.
  ///
  /// - 16-bit PNGs and TIFFs, and HEIC/AVIF files of more than 8 bits, become
  ///   ``PixelFormat/rgba16``; everything else ``PixelFormat/rgba8``.
  /// - Gray, gray+alpha, RGB and palette images are expanded to RGBA (gray is
  ///   copied to R, G and B; a missing alpha is opaque; a tRNS chunk or a
  ///   GIF's transparent colour becomes alpha); alpha is straight, as most
  ///   files store it (a TIFF's or HEIF's associated alpha is divided out).
  /// - Interlaced PNGs and GIFs, progressive JPEGs, tiled TIFFs are read;
  ///   of a multi-page TIFF the page ``ImageReadOptions/page`` names (the
  ///   first by default; ``ImageFileInfo/pageCount`` says how many there
  ///   are); of an animated GIF or WebP, and a HEIF collection, the first
  ///   frame or the primary image. CMYK and YCCK JPEGs are
  ///   converted to RGB: through their ICC profile when they carry a usable
  ///   one (LittleCMS), else with ``ICCProfile`` 's profile-less formula.
  /// - An embedded ICC profile is checked with LittleCMS and reported in
  ///   ``ImageFileInfo/iccProfile`` (the pixels stay in it), or applied when
  ///   `options.convertToSRGB`; an unusable or mismatched one is dropped with a
  ///   warning in ``ImageFileInfo/warnings``, and the pixels are taken as sRGB.
  /// - The orientation is reported, not applied (``ImageFileInfo/orientation``).
  ///
  /// - Parameters:
  ///   - path: the file to read. Its bytes are ``PathBytes/bytes(of:)``: for a
  ///     name that is not valid UTF-8 (`lat\xE9n.png`, in Latin-1), pass
  ///     ``PathBytes/string(fromBytes:)`` of its bytes, or a name read from
  ///     the system through ``PathBytes``.
  ///   - options: the pixel limit and the sRGB conversion.
  /// - Returns: the image (rows top to bottom) and what the file stores.
  /// - Throws: ``ImageFileError`` when the file is missing, unreadable, a
  ///   directory or other non-regular file, empty, of no format fxc reads,
  ///   corrupt or truncated (a file that ends before its pixels do is never
  ///   returned as a partial image), declares more than
  ///   ``ImageReadOptions/maxPixels`` or ``ImageBuffer/maxDimension`` per
  ///   side (checked from the header, before any pixel memory is allocated),
  ///   or when there is not enough memory for it (no read traps).
  ///
  /// `shrink` (shrink-on-load, ``ShrinkOnLoad``): given the stored size and
  /// EXIF orientation, the size the pipeline's first resize makes of the
  /// image, or nil to read it whole. A still WebP or a JPEG is then decoded
  /// reduced by ``ShrinkOnLoad/factor(width:height:result:)`` (libwebp's
  /// scaled decoding, each side ⌈n / factor⌉; libjpeg's DCT scaling, as a
  /// streamed JPEG: ``ImageRowReader/shrinkOnLoad(by:)``), and a HEIC or AVIF
  /// that stores a thumbnail large enough reads it instead
  /// (``ShrinkOnLoad/thumbnail(_:width:height:result:)``);
  /// ``ImageFileInfo/shrink`` and ``ImageFileInfo/fromThumbnail`` say what was
  /// done. Other formats, and animations, are read whole.
  ///
  /// `upright`: the image comes back turned by its EXIF orientation
  /// (``ImageBuffer/oriented(_:)``; ``ImageFileInfo/orientation`` still
  /// says which, and the info's size stays the stored one). A JPEG is
  /// stored turned as it is decoded, with no second copy of its pixels.
  public static func read(
    _ path: String, options: ImageReadOptions = ImageReadOptions(), shrink: ShrinkOnLoad.Result? = nil, upright: Bool = false
  ) throws -> (ImageBuffer, ImageFileInfo) {
    try attributing(to: path) {
      if let jpeg = try readJPEG(path, options: options, shrink: shrink, upright: upright) { return jpeg }
      let bytes = try FileSystem.readAll(path, maxBytes: maxFileBytes(options.maxPixels))
      let (image, info) = try bytes.withBytes { try decode($0, options: options, shrink: shrink) }
      return (upright && info.orientation != 1 ? try image.oriented(info.orientation) : image, info)
    }
  }

  /// A JPEG file decoded by libjpeg reading it through its descriptor, so
  /// that its bytes are never all in memory (``JPEGCodec/decode(fd:maxPixels:shrink:)``);
  /// nil for another format (or none), to be read whole.
  static func readJPEG(_ path: String, options: ImageReadOptions, shrink: ShrinkOnLoad.Result?, upright: Bool) throws -> (
    ImageBuffer, ImageFileInfo
  )? {
    let (fd, _) = try FileSystem.openRegularFile(path)
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: 16)
    let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0, head.prefix(n).withUnsafeBytes({ ImageFileFormat(sniffing: $0) }) == .jpeg else { return nil }
    try checkPage(options.page, format: .jpeg)
    var decoded = try JPEGCodec.decode(fd: fd, maxPixels: options.maxPixels, shrink: shrink, upright: upright)
    return try finish(&decoded, options: options)
  }

  /// The largest file an image within `maxPixels` can need: an uncompressed
  /// 16-bit RGBA PNG (8 bytes a pixel, a filter byte a row, zlib's stored
  /// blocks) and 64 MiB of other chunks.
  static func maxFileBytes(_ maxPixels: Int) -> Int { min(maxPixels, ImageBuffer.maxPixels) * 9 + (64 << 20) }

  /// Decodes an image file held in memory: ``read(_:options:)`` for bytes
  /// that did not come from a path (a download, an archive member, a fuzzer).
  ///
  /// - Parameters:
  ///   - bytes: the whole file. The format is sniffed from its first bytes.
  ///   - name: how errors name the data (``ImageFileError/path``).
  ///   - options: the pixel limit and the sRGB conversion.
  /// - Returns: as ``read(_:options:)``.
  /// - Throws: ``ImageFileError`` as ``read(_:options:)`` does, for every
  ///   reason but the file system's.
  public static func read(bytes: [UInt8], name: String = "(memory)", options: ImageReadOptions = ImageReadOptions())
    throws -> (ImageBuffer, ImageFileInfo)
  {
    try attributing(to: name) { try decode(bytes, options: options) }
  }

  /// Decodes the contents of an image file; throws ``ImageFileFailure``.
  static func decode(_ bytes: [UInt8], options: ImageReadOptions = ImageReadOptions()) throws -> (
    ImageBuffer, ImageFileInfo
  ) {
    try bytes.withUnsafeBytes { try decode($0, options: options) }
  }

  static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageReadOptions, shrink: ShrinkOnLoad.Result? = nil) throws -> (
    ImageBuffer, ImageFileInfo
  ) {
    guard !bytes.isEmpty else { throw ImageFileFailure("empty file (0 bytes)") }
    var decoded: Decoded
    let format = ImageFileFormat(sniffing: bytes)
    if let format { try checkPage(options.page, format: format) }
    switch format {
    case .png: decoded = try PNGCodec.decode(bytes, maxPixels: options.maxPixels)
    case .jpeg: decoded = try JPEGCodec.decode(bytes, maxPixels: options.maxPixels, shrink: shrink)
    case .tiff: decoded = try TIFFCodec.decode(bytes, maxPixels: options.maxPixels, page: options.page)
    case .webp: decoded = try WebPCodec.decode(bytes, maxPixels: options.maxPixels, shrink: shrink)
    case .gif: decoded = try GIFCodec.decode(bytes, maxPixels: options.maxPixels)
    case .heic?, .avif?: decoded = try HEIFCodec.decode(bytes, format: format!, maxPixels: options.maxPixels, shrink: shrink)
    case nil: throw ImageFileFailure(ImageFileFormat.unsupported)
    }
    return try finish(&decoded, options: options)
  }

  /// What every decoded file gets: its colour profile applied as `options`
  /// say, its EXIF orientation and metadata in its info.
  static func finish(_ decoded: inout Decoded, options: ImageReadOptions) throws -> (ImageBuffer, ImageFileInfo) {
    try applyProfile(&decoded, options: options)
    if let orientation = orientation(exif: decoded.exif) { decoded.info.orientation = orientation }
    decoded.info.metadata = ImageMetadata(exif: decoded.exif, xmp: decoded.xmp)
    return (decoded.image, decoded.info)
  }

  /// Throws when `page` is not 0 for a format of one page.
  static func checkPage(_ page: Int, format: ImageFileFormat) throws {
    guard page != 0 && format != .tiff else { return }
    throw ImageFileFailure("page \(page) was asked for, but a \(format.name) file has one page (0)")
  }

  /// The orientation an EXIF block (a TIFF structure) gives, if any (libexif).
  static func orientation(exif: [UInt8]?) -> Int? {
    guard let exif else { return nil }
    let orientation = exif.withUnsafeBytes { fx_exif_orientation($0.baseAddress, $0.count) }
    return orientation != 0 ? Int(orientation) : nil
  }

  /// The embedded profile `icc` if LittleCMS reads it; else nil, with a
  /// warning appended saying it is ignored.
  static func parsedProfile(_ icc: [UInt8]?, warnings: inout [String]) -> ICCProfile? {
    guard let icc else { return nil }
    guard let profile = try? ICCProfile(data: icc) else {
      warnings.append(ICCProfile.unreadable + "; it is ignored and the pixels are taken as sRGB")
      return nil
    }
    return profile
  }

  /// `profile` if it fits `layout`; else nil, with a warning appended saying it is ignored.
  static func fittingProfile(_ profile: ICCProfile?, layout: ChannelLayout, warnings: inout [String]) -> ICCProfile? {
    guard let profile, !profile.fits(layout) else { return profile }
    warnings.append(mismatch(profile, layout.channelCount >= 3 ? "an RGB" : "a gray"))
    return nil
  }

  /// Checks the embedded profile against the image, converts to sRGB where
  /// asked (and always for CMYK), and records what was done.
  private static func applyProfile(_ decoded: inout Decoded, options: ImageReadOptions) throws {
    let profile = parsedProfile(decoded.icc, warnings: &decoded.info.warnings)
    if let cmyk = decoded.cmyk {
      if let profile, profile.colorSpace == .cmyk {
        try profile.convertToSRGB(decoded.image, cmykInverted: cmyk.inverted)
      } else {
        if let profile { decoded.info.warnings.append(mismatch(profile, "a CMYK")) }
        ICCProfile.convertCMYKWithoutProfile(decoded.image, inverted: cmyk.inverted)
      }
      return
    }
    guard let profile = fittingProfile(profile, layout: decoded.info.layout, warnings: &decoded.info.warnings) else { return }
    if options.convertToSRGB {
      try profile.convertToSRGB(decoded.image)
    } else {
      decoded.info.iccProfile = profile
    }
  }

  private static func mismatch(_ profile: ICCProfile, _ image: String) -> String {
    "the embedded ICC profile is a \(profile.colorSpace.rawValue) profile, which cannot describe \(image) image; "
      + "it is ignored and the pixels are taken as sRGB"
  }

  /// Writes `image` as an image file (any format but GIF), atomically: the file is written
  /// to a temporary file in the same directory, flushed, then renamed into
  /// place. On any failure the temporary file is removed, and `path` is as it
  /// was (an existing file keeps its old contents; nothing new appears).
  /// A new file gets mode 0644; a replaced file keeps its mode.
  ///
  /// - Parameters:
  ///   - image: any ``PixelFormat``. Premultiplied values are un-premultiplied
  ///     for layouts with alpha. ``PixelFormat/rgba32f`` is quantised per
  ///     DESIGN §1 (NaN → 0, clamp to 0…1, round to nearest), after
  ///     un-premultiplying in float. 8-bit sources written at 16 bits are
  ///     scaled by 257 (exact); 16-bit sources written at 8 bits are rounded.
  ///   - path: where to write. Its directory must exist. As for ``read(_:)``,
  ///     its bytes are ``PathBytes/bytes(of:)``: a name that is not valid
  ///     UTF-8 is ``PathBytes/string(fromBytes:)`` of its bytes.
  ///   - format: the file format; `nil` takes it from the extension of `path`
  ///     (`png`, `jpg`, `jpeg`, any case).
  ///   - layout: the channels stored. ``ChannelLayout/gray`` and the gray of
  ///     ``ChannelLayout/grayAlpha`` are Rec. 601 luma,
  ///     `(299 R + 587 G + 114 B) / 1000` rounded (exactly the input for gray
  ///     pixels). Layouts without alpha drop it by storing the premultiplied
  ///     color, i.e. the image composited over black. A JPEG stores gray or RGB
  ///     only: ``ChannelLayout/grayAlpha`` writes gray, ``ChannelLayout/rgba``
  ///     (the default) writes RGB, both composited over black.
  ///   - bitDepth: bits per channel in the file, 8 or 16 (16 for PNG and
  ///     TIFF; PNG stores them big-endian, TIFF in this machine's order).
  ///   - jpegQuality: 1…100: JPEG's quality (libjpeg's scale, 4:2:0 chroma
  ///     subsampling; Huffman tables optimised for images up to 50 MP, the
  ///     standard tables above, so that encoding needs no whole-image
  ///     buffer) and lossy WebP's (libwebp's scale).
  ///   - pngCompressionLevel: zlib level 0 (none) … 9 (smallest); used for
  ///     PNG and TIFF (Deflate with the horizontal predictor; 0 writes an
  ///     uncompressed TIFF).
  ///   - iccProfile: a profile to embed (PNG `iCCP`, JPEG APP2 segments, TIFF ICCProfile tag),
  ///     usually the input's ``ImageFileInfo/iccProfile``; nil embeds none
  ///     (the pixels are then read as sRGB).
  ///   - lossless: WebP only: lossless (exact, colour under transparent
  ///     pixels kept) instead of lossy at `jpegQuality`. PNG and TIFF are
  ///     always lossless, JPEG never.
  /// - Throws: ``ImageFileError`` when the format is unknown (no `format` and
  ///   an extension other than png/jpg/jpeg/tif/tiff/webp), the format is
  ///   GIF (read only), an argument is out of range,
  ///   the profile does not fit the stored layout (``ICCProfile/fits(_:)``;
  ///   a JPEG's ``ChannelLayout/rgba`` stores RGB),
  ///   the directory is missing, not writable or read-only, a directory
  ///   exists at `path`, or writing fails (e.g. the disk is full); with
  ///   `replacing: false`, when a file exists at `path` (the error's
  ///   ``ImageFileError/destinationExists`` is set, and nothing is written).
  ///   - replacing: whether an existing file at `path` is replaced (the
  ///     default). False puts the new file in place only if none exists
  ///     there at that moment, atomically (a hard link, which fails if the
  ///     name is taken), so that two processes writing one path write it once.
  ///   - orientation: the EXIF orientation (1…8) to record for the pixels as
  ///     given (JPEG, PNG and TIFF: ``recordsOrientation(_:)``), so a viewer
  ///     turns them; 1, the default, records none. Other formats ignore it.
  ///   - metadata: EXIF and XMP to carry into the file (JPEG, PNG, WebP:
  ///     ``ImageMetadata/carried(by:)``; the others write none); the EXIF's
  ///     Orientation tag is set to `orientation`. None by default.
  ///   - resolution: the pixel density to record (JPEG's JFIF header, PNG's
  ///     pHYs, TIFF's XResolution/YResolution; ``ImageResolution``); none by
  ///     default. Other formats ignore it.
  public static func write(
    _ image: ImageBuffer, to path: String, format: ImageFileFormat? = nil,
    layout: ChannelLayout = .rgba, bitDepth: Int = 8, jpegQuality: Int = 90,
    pngCompressionLevel: Int = 6, iccProfile: ICCProfile? = nil, lossless: Bool = false, replacing: Bool = true,
    orientation: Int = 1, metadata: ImageMetadata = ImageMetadata(), resolution: ImageResolution? = nil
  ) throws {
    try write(
      image, to: path, format: format, layout: layout, bitDepth: bitDepth, jpegQuality: jpegQuality,
      pngCompressionLevel: pngCompressionLevel, iccProfile: iccProfile, lossless: lossless, replacing: replacing,
      orientation: orientation, metadata: metadata, resolution: resolution, beforeRename: {})
  }

  /// ``write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:)``
  /// with a hook that runs just before the rename (for tests).
  static func write(
    _ image: ImageBuffer, to path: String, format: ImageFileFormat?, layout: ChannelLayout,
    bitDepth: Int, jpegQuality: Int, pngCompressionLevel: Int, iccProfile: ICCProfile? = nil, lossless: Bool = false,
    replacing: Bool = true, orientation: Int = 1, metadata: ImageMetadata = ImageMetadata(), resolution: ImageResolution? = nil,
    beforeRename: () throws -> Void
  ) throws {
    try attributing(to: path) {
      let format = try format ?? formatFromExtension(of: path)
      let encoded = try encode(
        image, format: format, layout: layout, bitDepth: bitDepth, quality: jpegQuality, level: pngCompressionLevel,
        lossless: lossless, iccProfile: iccProfile, orientation: orientation, metadata: metadata, resolution: resolution)
      try encoded.withBytes {
        try FileSystem.writeAtomically($0, to: path, replacing: replacing, beforeRename: beforeRename)
      }
    }
  }

  /// The bytes of the file that ``write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:replacing:orientation:)``
  /// would write, in memory: for a web response, a database, an upload.
  ///
  ///     let png = try ImageFile.encode(image, format: .png, layout: .rgb)
  ///
  /// - Parameters: as for `write`; the format is given, there is no path to take it from.
  /// - Throws: ``ImageFileError`` (its path "(memory)") for an option the
  ///   format cannot take or an encoder failure, as `write` does.
  public static func encode(
    _ image: ImageBuffer, format: ImageFileFormat, layout: ChannelLayout = .rgba, bitDepth: Int = 8, jpegQuality: Int = 90,
    pngCompressionLevel: Int = 6, iccProfile: ICCProfile? = nil, lossless: Bool = false, orientation: Int = 1,
    metadata: ImageMetadata = ImageMetadata(), resolution: ImageResolution? = nil
  ) throws -> [UInt8] {
    try attributing(to: "(memory)") {
      let encoded = try encode(
        image, format: format, layout: layout, bitDepth: bitDepth, quality: jpegQuality, level: pngCompressionLevel,
        lossless: lossless, iccProfile: iccProfile, orientation: orientation, metadata: metadata, resolution: resolution)
      return encoded.array
    }
  }

  /// Whether files of `format` record an EXIF orientation when written
  /// (``ImageWriteOptions/orientation``): JPEG, PNG and TIFF.
  public static func recordsOrientation(_ format: ImageFileFormat) -> Bool { format == .jpeg || format == .png || format == .tiff }

  /// The file's bytes in `format`, its options checked.
  private static func encode(
    _ image: ImageBuffer, format: ImageFileFormat, layout: ChannelLayout, bitDepth: Int, quality: Int, level: Int,
    lossless: Bool, iccProfile: ICCProfile?, orientation: Int = 1, metadata: ImageMetadata = ImageMetadata(),
    resolution: ImageResolution? = nil
  ) throws -> MallocBytes {
    let blocks = metadata.blocks(orientation: orientation, format: format, resolution: resolution)
    try checkOptions(format: format, layout: layout, bitDepth: bitDepth, quality: quality, level: level, iccProfile: iccProfile)
    switch format {
    case .png:
      return try PNGCodec.encode(
        image, layout: layout, bitDepth: bitDepth, compressionLevel: level, iccProfile: iccProfile?.data, metadata: blocks)
    case .tiff:
      return try TIFFCodec.encode(
        image, layout: layout, bitDepth: bitDepth, level: level, iccProfile: iccProfile?.data, orientation: orientation,
        resolution: resolution)
    case .jpeg:
      return try JPEGCodec.encode(image, layout: layout, quality: quality, iccProfile: iccProfile?.data, metadata: blocks)
    case .heic, .avif:
      return try HEIFCodec.encode(
        image, format: format, layout: layout, lossless: lossless, quality: quality, iccProfile: iccProfile?.data)
    case .webp:
      return try WebPCodec.encode(
        image, layout: layout, lossless: lossless, quality: quality, iccProfile: iccProfile?.data, metadata: blocks)
    case .gif:
      throw ImageFileFailure("GIF files are read, not written: write PNG or WebP instead")
    }
  }

  /// Throws ``ImageFileFailure`` naming the first option `format` cannot take.
  static func checkOptions(
    format: ImageFileFormat, layout: ChannelLayout, bitDepth: Int, quality: Int, level: Int, iccProfile: ICCProfile?
  ) throws {
    guard bitDepth == 8 || bitDepth == 16 else {
      throw ImageFileFailure("unsupported bit depth \(bitDepth): use 8 or 16")
    }
    switch format {
    case .png, .tiff:
      guard (0...9).contains(level) else {
        throw ImageFileFailure("\(format == .png ? "PNG" : "TIFF") compression level \(level) is out of range 0…9")
      }
      try checkProfile(iccProfile, fits: layout)
    case .jpeg:
      guard bitDepth == 8 else {
        throw ImageFileFailure("JPEG files are 8-bit only (bit depth \(bitDepth) was asked for)")
      }
      guard (1...100).contains(quality) else {
        throw ImageFileFailure("JPEG quality \(quality) is out of range 1…100")
      }
      try checkProfile(iccProfile, fits: layout.channelCount >= 3 ? .rgb : .gray)
    case .webp, .heic, .avif:
      let name = format.name
      guard bitDepth == 8 else {
        throw ImageFileFailure("\(name) files are written 8-bit (bit depth \(bitDepth) was asked for)")
      }
      guard (1...100).contains(quality) else {
        throw ImageFileFailure("\(name) quality \(quality) is out of range 1…100")
      }
      try checkProfile(iccProfile, fits: layout.hasAlpha ? .rgba : .rgb)
    case .gif:
      throw ImageFileFailure("GIF files are read, not written: write PNG or WebP instead")
    }
  }

  private static func checkProfile(_ profile: ICCProfile?, fits layout: ChannelLayout) throws {
    guard let profile, !profile.fits(layout) else { return }
    throw ImageFileFailure(
      "a \(profile.colorSpace.rawValue) ICC profile cannot be embedded in a file stored as \(layout.rawValue)")
  }

  /// The format `path`'s extension names, as ``write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:)`` chooses it.
  /// - Throws: ``ImageFileError`` when there is no extension or one of no format fxc writes.
  public static func format(ofPath path: String) throws -> ImageFileFormat {
    try attributing(to: path) { try formatFromExtension(of: path) }
  }

  static func formatFromExtension(of path: String) throws -> ImageFileFormat {
    let name = FileSystem.split(path).name
    let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
    guard let format = ImageFileFormat(pathExtension: ext) else {
      throw ImageFileFailure(
        ext.isEmpty
          ? "no file extension to choose the format by: use \(ImageFileFormat.extensionList), or pass a format"
          : "unknown file extension \".\(ext)\": use \(ImageFileFormat.extensionList), or pass a format")
    }
    return format
  }

  /// Runs `body`, turning failures into ``ImageFileError``s about `path`.
  static func attributing<T>(to path: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let failure as ImageFileFailure {
      var error = ImageFileError(path: path, reason: failure.reason)
      error.destinationExists = failure.destinationExists
      throw error
    } catch let error as ImageBufferError {
      throw ImageFileError(path: path, reason: error.description)
    } catch let error as ImageFileError {
      throw error
    } catch {
      throw ImageFileError(path: path, reason: String(describing: error))
    }
  }
}
