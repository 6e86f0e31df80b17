/// An image file's pixels, upright, with what the file said about them: the
/// simplest way to read a photo, change it and write it back without losing
/// its colour, layout or depth.
///
///     var photo = try Picture(contentsOf: "photo.jpg")  // upright, profile kept
///     photo.image = try pipeline.apply(to: photo.image)
///     try photo.write(to: "out.png")                     // RGB 8-bit, the same profile
///
/// ``ImageFile/read(_:options:)`` is the lower level: the pixels as stored
/// (an EXIF orientation is reported, not applied) and no choice of output.
public struct Picture: Sendable {
  /// The pixels, upright (the file's EXIF orientation applied).
  public var image: ImageBuffer
  /// What the file held: format, channel layout, bit depth, ICC profile and
  /// warnings. Its `width`, `height` are the upright ones and its
  /// `orientation` is 1, since the pixels are upright.
  public var info: ImageFileInfo

  /// Creates a picture of `image` described by `info`.
  public init(image: ImageBuffer, info: ImageFileInfo) {
    self.image = image
    self.info = info
  }

  /// Reads the file at `path` (any format ``ImageFile`` reads) and turns its
  /// pixels upright.
  /// - Throws: ``ImageFileError`` as ``ImageFile/read(_:options:)`` does.
  public init(contentsOf path: String, options: ImageReadOptions = ImageReadOptions()) throws {
    var (image, info) = try ImageFile.read(path, options: options)
    if info.orientation != 1 {
      image = try ImageFile.attributing(to: path) { try image.oriented(info.orientation) }
      (info.width, info.height, info.orientation) = (image.width, image.height, 1)
    }
    self.init(image: image, info: info)
  }

  /// The options that write this picture as it was read: its layout (RGB or
  /// RGBA), its bit depth where `format` holds 16 bits (PNG, TIFF), its ICC
  /// profile where `format` can carry it (``ICCProfile/embeddingRefusal(in:layout:)``),
  /// and its EXIF and XMP where `format` carries them (``ImageMetadata``; the
  /// EXIF orientation set to 1, for the pixels are upright).
  public func writeOptions(format: ImageFileFormat?) -> ImageWriteOptions { Self.writeOptions(for: info, format: format) }

  /// The options that write an image read with `info` as it was read (``writeOptions(format:)``).
  public static func writeOptions(for info: ImageFileInfo, format: ImageFileFormat?) -> ImageWriteOptions {
    let layout: ChannelLayout = info.layout.hasAlpha ? .rgba : .rgb
    let sixteen = format == .png || format == .tiff
    var profile = info.iccProfile
    if let p = profile, let format, p.embeddingRefusal(in: format, layout: layout) != nil { profile = nil }
    var options = ImageWriteOptions(format: format, layout: layout, bitDepth: sixteen ? info.bitDepth : 8, iccProfile: profile)
    options.metadata = info.metadata
    options.resolution = info.resolution
    return options
  }

  /// Writes the picture to `path` (atomically) in the format its extension
  /// names, or `format`, keeping what it was read with (``writeOptions(format:)``).
  /// - Parameters:
  ///   - quality: JPEG, WebP, HEIC and AVIF quality, 1…100.
  /// - Throws: ``ImageFileError`` as ``ImageFile/write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:replacing:)``.
  public func write(to path: String, format: ImageFileFormat? = nil, quality: Int = 90) throws {
    let resolved = try format ?? ImageFile.attributing(to: path) { try ImageFile.formatFromExtension(of: path) }
    let options = writeOptions(format: resolved)
    try ImageFile.write(
      image, to: path, format: resolved, layout: options.layout, bitDepth: options.bitDepth, jpegQuality: quality,
      iccProfile: options.iccProfile, metadata: options.metadata, resolution: options.resolution)
  }

  /// The picture as the bytes of a `format` file, in memory, keeping what it
  /// was read with (``writeOptions(format:)``): ``write(to:format:quality:)`` without the file.
  ///
  ///     let jpeg = try photo.encoded(as: .jpeg, quality: 85)
  ///
  /// - Throws: ``ImageFileError`` as ``ImageFile/encode(_:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:orientation:)``.
  public func encoded(as format: ImageFileFormat, quality: Int = 90) throws -> [UInt8] {
    let options = writeOptions(format: format)
    return try ImageFile.encode(
      image, format: format, layout: options.layout, bitDepth: options.bitDepth, jpegQuality: quality,
      iccProfile: options.iccProfile, metadata: options.metadata, resolution: options.resolution)
  }
}
