import Foundation

/// JSON as fxc writes it (`--report`, `bench --json`): Foundation's
/// `JSONEncoder`, keys in snake case and sorted, no escaped slashes, one line.
enum JSONText {
  /// `value` as one line of JSON (RFC 8259). The values fxc encodes (strings,
  /// integers, finite doubles, optionals) cannot fail to encode; a failure
  /// would be a bug, so it traps with the encoder's reason.
  static func encode<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      return String(decoding: try encoder.encode(value), as: UTF8.self)
    } catch {
      preconditionFailure("JSON encoding failed: \(error)")
    }
  }

  /// `v` rounded to `digits` decimals (a timing's noise is not worth more),
  /// or nil — `null` in the JSON — when it is not finite.
  static func rounded(_ v: Double, _ digits: Int = 3) -> Double? {
    guard v.isFinite else { return nil }
    let scale = pow(10, Double(digits))
    return (v * scale).rounded() / scale
  }
}
