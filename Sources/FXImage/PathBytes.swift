/// File names as the file system holds them — byte strings, not necessarily
/// UTF-8 — carried in a `String` without loss, as Python's `surrogateescape`
/// does.
///
/// POSIX names are any bytes but `/` and NUL; `lat\xE9n.png` (a Latin-1 `é`)
/// is as good a name as `latén.png`. Swift's `String` holds Unicode only, and
/// its decoders replace bytes that are not UTF-8 with U+FFFD, so two such
/// names become one and neither can be opened again. Here every byte that is
/// not part of valid UTF-8 becomes a reserved code point instead:
///
/// - byte `b` (always 0x80…0xFF: ASCII is valid) ↦ U+10FE00 + `b`, so the
///   reserved code points are U+10FE80…U+10FEFF, in Supplementary Private
///   Use Area-B;
/// - a reserved code point that really occurs in a valid name is escaped the
///   same way, byte by byte (its UTF-8 is four bytes 0x80…0xFF).
///
/// - in names read from a directory or a manifest
///   (``string(fromBytes:escapingControls:)``), also the control bytes
///   0x01…0x1F and 0x7F and the backslash 0x5C, so that a message can never
///   show them raw: a name holding a newline cannot start a line of its own
///   (forging an `error:` line), and in ``display(_:)`` every `\` of such a
///   name begins an escape (`\x5C` is a backslash, `\xE9` a byte).
///
/// So ``bytes(of:)`` of ``string(fromBytes:)`` is the identity for every byte
/// string, and a name that is valid UTF-8 without reserved code points is
/// decoded to the very `String` Swift would make of it. A `String` that
/// holds a reserved code point is read as the escape: ``bytes(of:)`` turns
/// each one back into its byte.
///
/// Every POSIX call that takes a path goes through ``withCString(_:_:)``
/// (never Swift's implicit `String` → C string bridging, which would write
/// the reserved code points' UTF-8), and every name read from the system
/// (`readdir`, `realpath`, `argv`, a manifest) through
/// ``string(fromBytes:)``. ``display(_:)`` is the form for messages.
public enum PathBytes {
  /// The escape of byte `b` is the code point `offset + b`.
  static let offset: UInt32 = 0x10FE00

  /// The reserved code points: the escapes of the bytes 0x80…0xFF, and of
  /// the control bytes and the backslash that listed names escape.
  static func isReserved(_ v: UInt32) -> Bool {
    guard v >= offset + 1, v <= offset + 0xFF else { return false }
    return isEscapedInNames(UInt8(v - offset))
  }

  /// The bytes a name from a listing holds escaped: all but printable ASCII and `/`.
  static func isEscapedInNames(_ b: UInt8) -> Bool { b >= 0x80 || b < 0x20 || b == 0x7F || b == 0x5C }

  /// The first byte of the UTF-8 of every reserved code point (`F4 8F BA 80`
  /// … `F4 8F BB BF`): a `String` whose UTF-8 lacks it holds none.
  private static let reservedLead: UInt8 = 0xF4

  private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

  /// The `String` for a byte string from the file system (a name, a path, an
  /// argument): valid UTF-8 is decoded, every other byte is escaped to its
  /// reserved code point. ``bytes(of:)`` gives the same bytes back.
  public static func string(fromBytes bytes: some Sequence<UInt8>) -> String {
    string(fromBytes: bytes, escapingControls: false)
  }

  /// ``string(fromBytes:)``, escaping also control bytes and backslashes when
  /// `escapingControls` (names from `readdir` or a manifest, which anyone
  /// who can make a file chooses).
  public static func string(fromBytes bytes: some Sequence<UInt8>, escapingControls: Bool) -> String {
    let bytes = Array(bytes)
    let plain = { (b: UInt8) -> Bool in escapingControls ? !isEscapedInNames(b) : b < 0x80 }
    if bytes.allSatisfy(plain) { return String(decoding: bytes, as: UTF8.self) }
    var scalars = String.UnicodeScalarView()
    var parser = Unicode.UTF8.ForwardParser()
    var input = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &input) {
      case .valid(let encoded):
        let scalar = Unicode.UTF8.decode(encoded)
        if isReserved(scalar.value) || (encoded.count == 1 && !plain(encoded.first!)) {
          scalars.append(contentsOf: encoded.map(escape))
        } else {
          scalars.append(scalar)
        }
        offset += encoded.count
      case .error(let length):
        scalars.append(contentsOf: bytes[offset..<offset + length].map(escape))
        offset += length
      case .emptyInput:
        return String(scalars)
      }
    }
  }

  /// The `String` for a NUL-terminated C string from the system (`realpath`,
  /// `mkstemp`, `argv`), decoded as ``string(fromBytes:)`` does.
  public static func string(fromCString cString: UnsafePointer<CChar>) -> String {
    var count = 0
    while cString[count] != 0 { count += 1 }
    return cString.withMemoryRebound(to: UInt8.self, capacity: count) {
      string(fromBytes: UnsafeBufferPointer(start: $0, count: count))
    }
  }

  /// The bytes `path` stands for: each reserved code point is its byte, every
  /// other code point its UTF-8.
  public static func bytes(of path: String) -> [UInt8] {
    guard hasEscapes(path) else { return Array(path.utf8) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(path.utf8.count)
    for scalar in path.unicodeScalars {
      if isReserved(scalar.value) {
        bytes.append(UInt8(scalar.value - offset))
      } else {
        bytes.append(contentsOf: UTF8.encode(scalar)!)
      }
    }
    return bytes
  }

  /// Calls `body` with the NUL-terminated bytes of `path` (``bytes(of:)``):
  /// what every POSIX call that takes a path is given.
  public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
    guard hasEscapes(path) else { return try path.withCString(body) }
    let terminated = bytes(of: path).map { CChar(bitPattern: $0) } + [0]
    return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }

  /// Whether `text` holds an escaped byte, that is whether its bytes are not
  /// the UTF-8 of its characters (a name that is not valid UTF-8, or one
  /// with a reserved code point in it).
  public static func hasEscapes(_ text: String) -> Bool {
    text.utf8.contains(reservedLead) && text.unicodeScalars.contains { isReserved($0.value) }
  }

  /// `text` for a message: each escaped byte as `\xE9` (two upper-case hex
  /// digits), everything else as it is. Readable, valid UTF-8 and, for a
  /// name read from a directory or manifest, unambiguous (its backslashes
  /// and control bytes are escapes too: `\x5C`, `\x0A`), but not lossless
  /// for a name typed on the command line (which may hold a real `\xE9`):
  /// keep the `String` itself, or its ``bytes(of:)``, to name the file again.
  public static func display(_ text: String) -> String {
    guard hasEscapes(text) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if isReserved(scalar.value) {
        let byte = UInt8(scalar.value - offset)
        out.append(contentsOf: "\\x".unicodeScalars)
        out.append(contentsOf: [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  /// The reserved code point that stands for `byte` (0x80…0xFF).
  private static func escape(_ byte: UInt8) -> Unicode.Scalar {
    Unicode.Scalar(offset + UInt32(byte))!
  }
}
