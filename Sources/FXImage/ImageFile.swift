/// Reading and writing PNG and JPEG files (DESIGN §1), through libpng and
/// libjpeg-turbo.
///
/// In memory every image is RGBA with **premultiplied** alpha; files store
/// straight alpha. ``read(_:)`` premultiplies on load and ``write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:)``
/// un-premultiplies on store, with these integer rules (`max` = 255 or 65535):
///
/// - premultiply: `c' = (c·a + max/2) / max`, rounded to nearest;
/// - un-premultiply: `c = a == 0 ? 0 : min(max, (c'·max + a/2) / a)`.
///
/// Opaque pixels pass through both unchanged, and every valid premultiplied
/// pixel (color ≤ alpha) survives a write and a read exactly at the same bit
/// depth. Values are the file's own encoding: no gamma, ICC profile or EXIF
/// orientation is applied.
///
/// Every failure is an ``ImageFileError`` naming the file; nothing is printed.
public enum ImageFile {
  /// Reads a PNG or JPEG file. The format is sniffed from the file's first
  /// bytes, not from its extension.
  ///
  /// - 8-bit and lower-depth files (and all JPEGs) become ``PixelFormat/rgba8``;
  ///   16-bit PNGs become ``PixelFormat/rgba16``.
  /// - Gray, gray+alpha, RGB and palette images are expanded to RGBA (gray is
  ///   copied to R, G and B; a missing alpha is opaque; a tRNS chunk becomes
  ///   alpha), and straight alpha is premultiplied.
  /// - Interlaced PNGs and progressive JPEGs are supported; CMYK JPEGs are not.
  ///
  /// - Parameter path: the file to read.
  /// - Returns: the image (rows top to bottom) and what the file stores.
  /// - Throws: ``ImageFileError`` when the file is missing, unreadable, a
  ///   directory, empty, neither PNG nor JPEG, corrupt or truncated (a file
  ///   that ends early is never returned as a partial image), or larger than
  ///   ``ImageBuffer/maxDimension`` per side or ``ImageBuffer/maxPixels`` in
  ///   all (checked before any pixel memory is allocated).
  public static func read(_ path: String) throws -> (ImageBuffer, ImageFileInfo) {
    try attributing(to: path) { try decode(FileSystem.readAll(path)) }
  }

  /// Decodes a PNG or JPEG file held in memory: ``read(_:)`` for bytes that
  /// did not come from a path (a download, an archive member, a fuzzer).
  ///
  /// - Parameters:
  ///   - bytes: the whole file. The format is sniffed from its first bytes.
  ///   - name: how errors name the data (``ImageFileError/path``).
  /// - Returns: as ``read(_:)``.
  /// - Throws: ``ImageFileError`` as ``read(_:)`` does, for every reason but
  ///   the file system's.
  public static func read(bytes: [UInt8], name: String = "(memory)") throws -> (ImageBuffer, ImageFileInfo) {
    try attributing(to: name) { try decode(bytes) }
  }

  /// Decodes the contents of a PNG or JPEG file; throws ``ImageFileFailure``.
  static func decode(_ bytes: [UInt8]) throws -> (ImageBuffer, ImageFileInfo) {
    guard !bytes.isEmpty else { throw ImageFileFailure("empty file (0 bytes)") }
    return try bytes.withUnsafeBytes { bytes in
      switch ImageFileFormat(sniffing: bytes) {
      case .png: try PNGCodec.decode(bytes)
      case .jpeg: try JPEGCodec.decode(bytes)
      case nil: throw ImageFileFailure("unsupported format: not a PNG or JPEG file")
      }
    }
  }

  /// Writes `image` as a PNG or JPEG file, atomically: the file is written
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
  ///   - path: where to write. Its directory must exist.
  ///   - format: the file format; `nil` takes it from the extension of `path`
  ///     (`png`, `jpg`, `jpeg`, any case).
  ///   - layout: the channels stored. ``ChannelLayout/gray`` and the gray of
  ///     ``ChannelLayout/grayAlpha`` are Rec. 601 luma,
  ///     `(299 R + 587 G + 114 B) / 1000` rounded (exactly the input for gray
  ///     pixels). Layouts without alpha drop it by storing the premultiplied
  ///     color, i.e. the image composited over black. A JPEG stores gray or RGB
  ///     only: ``ChannelLayout/grayAlpha`` writes gray, ``ChannelLayout/rgba``
  ///     (the default) writes RGB, both composited over black.
  ///   - bitDepth: bits per channel in the file, 8 or 16 (16 for PNG only).
  ///     16-bit samples are stored big-endian, as PNG requires.
  ///   - jpegQuality: 1…100 (libjpeg's scale, 4:2:0 chroma subsampling);
  ///     used for JPEG only.
  ///   - pngCompressionLevel: zlib level 0 (none) … 9 (smallest); used for
  ///     PNG only.
  /// - Throws: ``ImageFileError`` when the format is unknown (no `format` and
  ///   an extension other than png/jpg/jpeg), an argument is out of range,
  ///   the directory is missing, not writable or read-only, a directory
  ///   exists at `path`, or writing fails (e.g. the disk is full).
  public static func write(
    _ image: ImageBuffer, to path: String, format: ImageFileFormat? = nil,
    layout: ChannelLayout = .rgba, bitDepth: Int = 8, jpegQuality: Int = 90,
    pngCompressionLevel: Int = 6
  ) throws {
    try write(
      image, to: path, format: format, layout: layout, bitDepth: bitDepth, jpegQuality: jpegQuality,
      pngCompressionLevel: pngCompressionLevel, beforeRename: {})
  }

  /// ``write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:)``
  /// with a hook that runs just before the rename (for tests).
  static func write(
    _ image: ImageBuffer, to path: String, format: ImageFileFormat?, layout: ChannelLayout,
    bitDepth: Int, jpegQuality: Int, pngCompressionLevel: Int, beforeRename: () throws -> Void
  ) throws {
    try attributing(to: path) {
      let format = try format ?? formatFromExtension(of: path)
      guard bitDepth == 8 || bitDepth == 16 else {
        throw ImageFileFailure("unsupported bit depth \(bitDepth): use 8 or 16")
      }
      let encoded: MallocBytes
      switch format {
      case .png:
        guard (0...9).contains(pngCompressionLevel) else {
          throw ImageFileFailure("PNG compression level \(pngCompressionLevel) is out of range 0…9")
        }
        encoded = try PNGCodec.encode(
          image, layout: layout, bitDepth: bitDepth, compressionLevel: pngCompressionLevel)
      case .jpeg:
        guard bitDepth == 8 else {
          throw ImageFileFailure("JPEG files are 8-bit only (bit depth \(bitDepth) was asked for)")
        }
        guard (1...100).contains(jpegQuality) else {
          throw ImageFileFailure("JPEG quality \(jpegQuality) is out of range 1…100")
        }
        encoded = try JPEGCodec.encode(image, layout: layout, quality: jpegQuality)
      }
      try FileSystem.writeAtomically(encoded.bytes, to: path, beforeRename: beforeRename)
    }
  }

  private static func formatFromExtension(of path: String) throws -> ImageFileFormat {
    let name = FileSystem.split(path).name
    let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
    guard let format = ImageFileFormat(pathExtension: ext) else {
      throw ImageFileFailure(
        ext.isEmpty
          ? "no file extension to choose the format by: use .png, .jpg or .jpeg, or pass a format"
          : "unknown file extension \".\(ext)\": use .png, .jpg or .jpeg, or pass a format")
    }
    return format
  }

  /// Runs `body`, turning failures into ``ImageFileError``s about `path`.
  private static func attributing<T>(to path: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let failure as ImageFileFailure {
      throw ImageFileError(path: path, reason: failure.reason)
    } catch let error as ImageBufferError {
      throw ImageFileError(path: path, reason: error.description)
    } catch let error as ImageFileError {
      throw error
    } catch {
      throw ImageFileError(path: path, reason: String(describing: error))
    }
  }
}
