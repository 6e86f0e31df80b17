/// The container formats ``ImageFile`` reads and writes.
public enum ImageFileFormat: String, Sendable, CaseIterable {
  /// Portable Network Graphics: lossless, 8 or 16 bits per channel, optional alpha.
  case png
  /// JPEG (JFIF): lossy, 8 bits per channel, gray or color, no alpha.
  case jpeg

  /// The format a file name extension stands for: `png` → ``png``;
  /// `jpg` or `jpeg` → ``jpeg``. Case-insensitive, without the dot.
  /// Returns `nil` for any other extension.
  public init?(pathExtension: String) {
    switch pathExtension.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    default: return nil
    }
  }

  /// The format announced by the first bytes of a file (the PNG signature,
  /// or the JPEG start-of-image marker followed by another marker), or `nil`.
  init?(sniffing bytes: UnsafeRawBufferPointer) {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    if bytes.count >= png.count && zip(bytes, png).allSatisfy({ $0 == $1 }) {
      self = .png
    } else if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF {
      self = .jpeg
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
  /// Bits per channel after decoding: 16 for 16-bit PNGs, otherwise 8
  /// (1-, 2- and 4-bit PNGs and palettes are expanded to 8).
  public var bitDepth: Int
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int

  /// Creates a description of an image file.
  public init(
    format: ImageFileFormat, layout: ChannelLayout, bitDepth: Int, width: Int, height: Int
  ) {
    self.format = format
    self.layout = layout
    self.bitDepth = bitDepth
    self.width = width
    self.height = height
  }
}

/// The one error ``ImageFile`` throws: which file, and what went wrong with
/// it in plain words (for example `"photo.png: truncated PNG file: …"`).
public struct ImageFileError: Error, CustomStringConvertible, Equatable {
  /// The path as the caller passed it (a ``PathBytes`` string: a name that is
  /// not UTF-8 keeps its bytes, escaped).
  public var path: String
  /// Why the operation failed, without the path.
  public var reason: String

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
  init(_ reason: String) { self.reason = reason }
}
