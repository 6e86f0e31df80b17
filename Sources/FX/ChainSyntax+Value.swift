// The values a chain's arguments take, and how they print.

extension ChainSyntax {
  /// An argument's value. Which values an effect accepts is the validator's business.
  public enum Value: Equatable, Sendable, CustomStringConvertible {
    /// A number; `nan`, `inf` and `infinity` parse too, so the validator can reject them by name.
    case number(Double)
    /// A bare word, such as `topToBottom`.
    case identifier(String)
    /// A color in straight (not premultiplied) RGBA, each channel in 0…1; alpha is 1 for `#rrggbb`.
    case color(SIMD4<Float>)
    /// A quoted string, such as a file path `"noise.png"`, without its quotes and escapes.
    case string(String)
    /// A bracketed list `[0.1, 0.2]` or `[#ff0000, #0000ff]`; its elements are numbers, identifiers or colors.
    case list([Value])

    /// Values are equal when they spell the same thing, so `nan` equals `nan`.
    public static func == (a: Value, b: Value) -> Bool {
      switch (a, b) {
      case (.number(let x), .number(let y)): return x == y || (x.isNaN && y.isNaN)
      case (.identifier(let x), .identifier(let y)): return x == y
      case (.color(let x), .color(let y)): return x == y
      case (.string(let x), .string(let y)): return x == y
      case (.list(let x), .list(let y)): return x == y
      default: return false
      }
    }

    /// The canonical spelling: `3`, `0.8`, `1e-05`, `-inf`, `topToBottom`, `#ff8000`, `#ff800080`,
    /// `"noise.png"` (with `\"` and `\\` escaped), `[0.1, 0.2]`.
    public var description: String {
      switch self {
      case .number(let x):
        if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return x.description
      case .identifier(let word):
        return word
      case .color(let rgba):
        let channels = rgba.w == 1 ? [rgba.x, rgba.y, rgba.z] : [rgba.x, rgba.y, rgba.z, rgba.w]
        return "#" + channels.map(Self.hexByte).joined()
      case .string(let text):
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
      case .list(let elements):
        return "[" + elements.map(\.description).joined(separator: ", ") + "]"
      }
    }

    private static func hexByte(_ channel: Float) -> String {
      let byte = Int((min(max(channel, 0), 1) * 255).rounded())
      let digits = String(byte, radix: 16)
      return byte < 16 ? "0" + digits : digits
    }
  }
}
