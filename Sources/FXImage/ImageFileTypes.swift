/// The container formats ``ImageFile`` reads and writes.
public enum ImageFileFormat: String, Sendable, CaseIterable {
  /// Portable Network Graphics: lossless, 8 or 16 bits per channel, optional alpha.
  case png
  /// JPEG (JFIF): lossy, 8 bits per channel, gray or color, no alpha.
  case jpeg
  /// TIFF (libtiff): 8 or 16 bits per channel, gray or RGB, optional alpha;
  /// the first page is read unless ``ImageReadOptions/page`` names another.
  /// Written Deflate-compressed, unassociated alpha.
  case tiff
  /// WebP (libwebp): lossy or lossless, 8 bits per channel, optional alpha;
  /// an animation's first frame is read. Gray is written as RGB.
  case webp
  /// GIF (giflib), read only: the first frame on its canvas, its transparent
  /// colour as alpha. Written as nothing: ``ImageFile`` refuses to write it.
  case gif
  /// HEIC (libheif, HEVC): 8 bits written, more read as 16; optional
  /// alpha; the primary image, upright. Gray is written as RGB.
  case heic
  /// AVIF (libheif, AV1): as ``heic``, with AV1 instead of HEVC.
  case avif

  /// The format a file name extension stands for: `png` → ``png``;
  /// `jpg` or `jpeg` → ``jpeg``; `tif` or `tiff` → ``tiff``; `webp` → ``webp``;
  /// `gif` → ``gif``; `heic` or `heif` → ``heic``; `avif` → ``avif``.
  /// Case-insensitive, without the dot. Returns `nil` for any other extension.
  public init?(pathExtension: String) {
    switch pathExtension.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    case "tif", "tiff": self = .tiff
    case "webp": self = .webp
    case "gif": self = .gif
    case "heic", "heif": self = .heic
    case "avif": self = .avif
    default: return nil
    }
  }

  /// The extensions of the formats, for messages.
  static let extensionList = ".png, .jpg, .jpeg, .tif, .tiff, .webp, .heic or .avif"
  /// What the reader says about a file of no format it knows.
  static let unsupported = "unsupported format: not a PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF file"

  /// Whether ``ImageFile`` writes the format (all but GIF).
  public var isWritable: Bool { self != .gif }

  /// The format's name in messages: PNG, JPEG, TIFF, WebP, GIF, HEIC, AVIF.
  public var name: String {
    switch self {
    case .webp: "WebP"
    default: rawValue.uppercased()
    }
  }

  /// The usual file name extension: `png`, `jpg`, `tif`, `webp`, `gif`, `heic`, `avif`.
  public var preferredExtension: String {
    switch self {
    case .png: "png"
    case .jpeg: "jpg"
    case .tiff: "tif"
    case .webp: "webp"
    case .gif: "gif"
    case .heic: "heic"
    case .avif: "avif"
    }
  }

  /// The format announced by the first bytes of a file (the PNG signature;
  /// the JPEG start-of-image marker followed by another marker; a TIFF or
  /// BigTIFF byte-order mark and version; `RIFF` … `WEBP`; `GIF87a` or
  /// `GIF89a`; a HEIF `ftyp` box, ``HEIFCodec/sniff(_:)``), or `nil`.
  init?(sniffing bytes: UnsafeRawBufferPointer) {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    func starts(_ prefix: [UInt8]) -> Bool { bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0 == $1 } }
    if starts(png) {
      self = .png
    } else if starts([0xFF, 0xD8, 0xFF]) {
      self = .jpeg
    } else if starts([0x49, 0x49, 0x2A, 0]) || starts([0x4D, 0x4D, 0, 0x2A]) || starts([0x49, 0x49, 0x2B, 0])
      || starts([0x4D, 0x4D, 0, 0x2B])
    {
      self = .tiff
    } else if starts(Array("RIFF".utf8)) && bytes.count >= 12 && Array(bytes[8..<12]) == Array("WEBP".utf8) {
      self = .webp
    } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
      self = .gif
    } else if let heif = HEIFCodec.sniff(bytes) {
      self = heif
    } else {
      return nil
    }
  }
}

/// Which channels a file stores. In memory every image is RGBA; this is the
/// layout on disk.
public enum ChannelLayout: String, Sendable, CaseIterable {
  /// One channel: gray (luma), no alpha.
  case gray
  /// Two channels: gray and alpha.
  case grayAlpha
  /// Three channels: red, green, blue; no alpha.
  case rgb
  /// Four channels: red, green, blue, alpha.
  case rgba

  /// Whether the layout stores an alpha channel.
  public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }

  /// Number of channels stored per pixel: 1, 2, 3 or 4.
  public var channelCount: Int {
    switch self {
    case .gray: 1
    case .grayAlpha: 2
    case .rgb: 3
    case .rgba: 4
    }
  }
}

/// What ``ImageFile/read(_:)`` learned about a file besides its pixels.
public struct ImageFileInfo: Sendable, Equatable {
  /// The container format, as sniffed from the file's first bytes.
  public var format: ImageFileFormat
  /// The channels the file carries. A tRNS chunk counts as alpha: a palette
  /// or RGB PNG with tRNS reports ``ChannelLayout/rgba``, a gray PNG with
  /// tRNS reports ``ChannelLayout/grayAlpha``. A JPEG is gray or rgb.
  public var layout: ChannelLayout
  /// Bits per channel after decoding: 16 for 16-bit PNGs and TIFFs and for
  /// HEIC/AVIF files of more than 8 bits, otherwise 8 (1-, 2- and 4-bit
  /// images and palettes are expanded to 8).
  public var bitDepth: Int
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// The embedded ICC profile the pixels are in, or nil: none, dropped as
  /// unusable (see ``warnings``), or converted away
  /// (``ImageReadOptions/convertToSRGB``, and always for CMYK files).
  public var iccProfile: ICCProfile?
  /// The orientation (1…8, as TIFF/EXIF number them; 1 is upright): EXIF's,
  /// read with libexif from a JPEG's APP1 segment, a PNG's eXIf chunk or a
  /// WebP's EXIF chunk wherever the tag is, SHORT or LONG; a TIFF's
  /// Orientation tag; 1 for HEIC/AVIF (libheif turns them upright) and when
  /// there is none. The pixels are as
  /// stored: ``ImageBuffer/oriented(_:)`` turns them upright.
  public var orientation: Int
  /// What was wrong but did not stop the read, in plain words (an unusable
  /// ICC profile, a file that ends after its image data), for the caller to show.
  public var warnings: [String]
  /// Pages (TIFF directories) in the file: 1 for the other formats, which
  /// ``ImageFile`` reads one image of.
  public var pageCount = 1
  /// The file's EXIF block and XMP packet, as stored (JPEG, PNG and WebP;
  /// ``ImageMetadata``); written again only when asked (``ImageWriteOptions/metadata``).
  public var metadata = ImageMetadata()
  /// The pixel density the file records (JPEG's JFIF, PNG's pHYs), or nil.
  public var resolution: ImageResolution? = nil
  /// The factor the decoder reduced each side by (shrink-on-load: 2, 4 or 8;
  /// ``ImageFile/read(_:options:shrink:)``); 1 when read whole. ``width`` and
  /// ``height`` are the decoded size.
  public var shrink = 1
  /// Whether the image read is the file's stored thumbnail rather than its
  /// image (a HEIF's, shrink-on-load: ``ShrinkOnLoad/thumbnail(_:width:height:result:)``);
  /// ``width`` and ``height`` are then the thumbnail's.
  public var fromThumbnail = false

  /// Creates a description of an image file.
  public init(
    format: ImageFileFormat, layout: ChannelLayout, bitDepth: Int, width: Int, height: Int,
    iccProfile: ICCProfile? = nil, orientation: Int = 1, warnings: [String] = []
  ) {
    self.format = format
    self.layout = layout
    self.bitDepth = bitDepth
    self.width = width
    self.height = height
    self.iccProfile = iccProfile
    self.orientation = orientation
    self.warnings = warnings
  }
}

/// How ``ImageFile/read(_:options:)`` reads a file.
public struct ImageReadOptions: Sendable, Equatable {
  /// The most pixels (width × height) a file may declare; a larger one is
  /// refused from its header, before any pixel memory is allocated (a
  /// 68-byte PNG can declare 46340×46340 px, 8.6 GB of RGBA8). At most
  /// ``ImageBuffer/maxPixels``.
  public var maxPixels: Int
  /// Convert the pixels from the file's ICC profile to sRGB (LittleCMS) and
  /// report no profile; without a profile the pixels are taken as sRGB.
  public var convertToSRGB: Bool
  /// Which page of a multi-page TIFF to read, from 0 (the first, the
  /// default); any other format has one page, and a page other than 0 is
  /// an error for it, as is a page past a TIFF's last.
  public var page: Int

  /// The default pixel limit, 268,402,689 = 16383² px (sharp's
  /// `limitInputPixels` default; Pillow warns from 89 MP and refuses from
  /// 179 MP): 1 GiB of RGBA8. Photos up to ~250 MP pass.
  public static let defaultMaxPixels = 16383 * 16383

  /// Options; by default a limit of ``defaultMaxPixels``, no conversion, the first page.
  public init(maxPixels: Int = ImageReadOptions.defaultMaxPixels, convertToSRGB: Bool = false, page: Int = 0) {
    self.maxPixels = maxPixels
    self.convertToSRGB = convertToSRGB
    self.page = page
  }
}

/// The one error ``ImageFile`` throws: which file, and what went wrong with
/// it in plain words (for example `"photo.png: truncated PNG file: …"`).
extension ImageFileInfo: CustomStringConvertible {
  /// One line: "jpeg 1024×768 rgb 8-bit, ICC "Adobe RGB (1998)" (rgb, 560
  /// bytes), orientation 6", then the warnings, if any.
  public var description: String {
    var parts = ["\(format.rawValue) \(width)×\(height) \(layout.rawValue) \(bitDepth)-bit"]
    if let iccProfile { parts.append("\(iccProfile)") }
    if orientation != 1 { parts.append("orientation \(orientation)") }
    if pageCount != 1 { parts.append("\(pageCount) pages") }
    if shrink != 1 { parts.append("decoded at 1/\(shrink)") }
    if fromThumbnail { parts.append("read from its stored thumbnail") }
    if let resolution { parts.append("\(resolution)") }
    if !metadata.isEmpty { parts.append("\(metadata)") }
    parts += warnings.map { "warning: \($0)" }
    return parts.joined(separator: ", ")
  }
}

public struct ImageFileError: Error, CustomStringConvertible, Equatable {
  /// The path as the caller passed it (a ``PathBytes`` string: a name that is
  /// not UTF-8 keeps its bytes, escaped).
  public var path: String
  /// Why the operation failed, without the path.
  public var reason: String
  /// Set when a write that must not replace a file (``ImageFile/write(_:to:format:layout:bitDepth:jpegQuality:pngCompressionLevel:iccProfile:lossless:replacing:)``
  /// with `replacing: false`) found one at the path: nothing was written.
  public var destinationExists = false

  /// Creates an error about the file at `path`.
  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  /// `"<path>: <reason>"`, in the ``PathBytes/display(_:)`` form: a byte of
  /// a name that is not UTF-8 shows as `\xE9`.
  public var description: String { PathBytes.display("\(path): \(reason)") }
}

/// A failure inside the image-file code before the path is attached; the
/// public entry points turn it into an ``ImageFileError``.
struct ImageFileFailure: Error {
  var reason: String
  var destinationExists = false
  init(_ reason: String, destinationExists: Bool = false) {
    self.reason = reason
    self.destinationExists = destinationExists
  }
}
