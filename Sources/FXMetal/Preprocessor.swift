import Foundation

/// The C preprocessor, as much of it as shaders use: `#include` (the Metal and
/// SwiftUI system headers are known and add nothing; `"local.h"` is read
/// relative to the including file), object- and function-like `#define`,
/// `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with
/// `defined`, `#pragma once` (other pragmas are ignored) and `#error`.
/// Macros expand as the C standard says (`#`, `##`, variadic macros,
/// Preprocessor+Macros.swift), with Apple's predefined `__METAL_VERSION__`.
struct Preprocessor {
  /// Headers that `#include <…>` may name; their declarations are built in.
  static let systemHeaders: Set<String> = [
    "metal_stdlib", "SwiftUI/SwiftUI.h", "SwiftUI/SwiftUI_Metal.h", "metal_math", "metal_common", "metal_geometric",
    "metal_relational", "metal_texture", "simd/simd.h", "metal_integer",
  ]

  struct Macro {
    /// Nil for an object-like macro; a variadic macro's last is `__VA_ARGS__`.
    var parameters: [String]?
    var isVariadic = false
    var body: [Token]

    /// C11 6.10.3p2: a macro may be defined again only with the same
    /// parameters and the same replacement list (the same spellings, white space alike).
    func isSameDefinition(as other: Macro) -> Bool {
      parameters == other.parameters && isVariadic == other.isVariadic && body.count == other.body.count
        && zip(body, other.body).enumerated().allSatisfy { k, pair in
          Preprocessor.spelling(pair.0) == Preprocessor.spelling(pair.1) && (k == 0 || pair.0.spaceBefore == pair.1.spaceBefore)
        }
    }
  }

  /// The Metal Shading Language version fxc follows, as Apple's compiler
  /// predefines it: `__METAL_VERSION__` is 320 for MSL 3.2 (macOS 15, iOS 18).
  static let metalVersion = 320

  /// The macros Apple's Metal compiler predefines that shaders test:
  /// `__METAL_VERSION__`, and `__METAL_MACOS__` (fxc reads shaders as the
  /// macOS compiler does). `__LINE__` is expanded where it is used.
  static let predefined: [String: Macro] = [
    "__METAL_VERSION__": integerMacro(metalVersion),
    "__METAL_MACOS__": integerMacro(1),
  ]

  private static func integerMacro(_ value: Int) -> Macro {
    let nowhere = SourceLocation(file: 0, line: 0, column: 0)
    return Macro(body: [Token(kind: .integer(UInt64(value), unsigned: false), text: "\(value)", location: nowhere)])
  }

  let files: SourceFiles
  /// Reads an included file; the default reads from disk.
  var read: (URL) throws -> String = { try String(contentsOf: $0, encoding: .utf8) }
  private(set) var macros: [String: Macro] = Preprocessor.predefined
  private var onceFiles: Set<String> = []
  private var depth = 0

  init(files: SourceFiles) { self.files = files }

  /// The tokens of `text` (the file at `url`, if any) after preprocessing, ending with `.end`.
  mutating func run(_ text: String, path: String, url: URL?) throws -> [Token] {
    let file = files.add(path: path, text: text)
    var lexer = Lexer(text, file: file)
    var out = try process(lexer.tokens(), url: url)
    // What only a macro may use (stringize, paste) must not reach the parser.
    if let stray = out.first(where: { $0.kind == .punct && ["@", "$", "\\"].contains($0.text) }) {
      throw MetalError("unexpected character '\(stray.text)'", at: stray.location)
    }
    if let literal = out.first(where: { $0.kind == .character }) {
      throw MetalError("unsupported: a character literal ('\(literal.text)')", at: literal.location)
    }
    out.append(Token(kind: .end, text: "", location: SourceLocation(file: file, line: 1, column: 1)))
    return out
  }

  private mutating func process(_ tokens: [Token], url: URL?) throws -> [Token] {
    var out: [Token] = []
    // For each open #if: whether its current branch is live, whether some branch was taken, whether the enclosing one is live.
    var conditions: [(live: Bool, taken: Bool, outer: Bool, at: SourceLocation)] = []
    var live: Bool { conditions.last.map { $0.live && $0.outer } ?? true }
    var i = 0
    var text: [Token] = []
    while i < tokens.count, tokens[i].kind != .end {
      let t = tokens[i]
      guard t.startsLine, t.isPunct("#") else {
        if live { text.append(t) }
        i += 1
        continue
      }
      if live {
        out += try expand(text)
        text = []
      }
      var j = i + 1
      while j < tokens.count, !tokens[j].startsLine { j += 1 }
      let line = Array(tokens[(i + 1)..<j])
      i = j
      guard let name = line.first else { continue }
      switch name.text {
      case "if", "ifdef", "ifndef":
        let value = live ? try condition(name, Array(line.dropFirst())) : false
        conditions.append((value, value, live, name.location))
      case "elif", "else":
        guard let top = conditions.popLast() else { throw MetalError("#\(name.text) without #if", at: name.location) }
        let value = try !top.taken && top.outer && (name.text == "else" || condition(name, Array(line.dropFirst())))
        conditions.append((value, top.taken || value, top.outer, top.at))
      case "endif":
        guard conditions.popLast() != nil else { throw MetalError("#endif without #if", at: name.location) }
      default:
        if live { out += try directive(name, Array(line.dropFirst()), url: url) }
      }
    }
    if let open = conditions.last { throw MetalError("unterminated #if: no #endif", at: open.at) }
    return out + (try expand(text))
  }

  /// Runs `#define`, `#undef`, `#include`, `#pragma`, `#error`; returns an included file's tokens.
  private mutating func directive(_ name: Token, _ rest: [Token], url: URL?) throws -> [Token] {
    switch name.text {
    case "define":
      guard let id = rest.first, id.kind == .identifier else {
        throw MetalError("macro name must be an identifier", at: rest.first?.location ?? name.location)
      }
      var macro = Macro(parameters: nil, body: Array(rest.dropFirst()))
      if rest.count > 1, rest[1].isPunct("("), !rest[1].spaceBefore {
        guard let close = rest.firstIndex(where: { $0.isPunct(")") }) else {
          throw MetalError("missing ')' in macro parameter list", at: rest[1].location)
        }
        var parameters: [String] = []
        for (k, p) in rest[2..<close].enumerated() {
          if k % 2 == 1 {
            guard p.isPunct(",") else { throw MetalError("expected ',' between macro parameters", at: p.location) }
          } else if p.isPunct("...") {
            guard k + 3 == close else { throw MetalError("'...' must be the last macro parameter", at: p.location) }
            macro.isVariadic = true
            parameters.append("__VA_ARGS__")
          } else {
            guard p.kind == .identifier, !parameters.contains(p.text) else {
              throw MetalError("invalid or repeated macro parameter \(p)", at: p.location)
            }
            parameters.append(p.text)
          }
        }
        macro.parameters = parameters
        macro.body = Array(rest[(close + 1)...])
      }
      if let hash = macro.body.first(where: { $0.isPunct("##") }), macro.body.first?.isPunct("##") == true || macro.body.last?.isPunct("##") == true {
        throw MetalError("'##' cannot be at either end of a macro's replacement list", at: hash.location)
      }
      if let old = macros[id.text], !old.isSameDefinition(as: macro) {
        throw MetalError("macro '\(id.text)' redefined differently (#undef it first)", at: id.location)
      }
      macros[id.text] = macro
      return []
    case "undef":
      if let id = rest.first { macros[id.text] = nil }
      return []
    case "include": return try include(name, rest, url: url)
    case "pragma":
      if rest.first?.text == "once", let url { onceFiles.insert(url.standardizedFileURL.path) }
      return []
    case "error":
      throw MetalError("#error " + rest.map(\.text).joined(separator: " "), at: name.location)
    case "warning", "line": return []
    default:
      throw MetalError("unknown preprocessor directive '#\(name.text)'", at: name.location)
    }
  }

  private mutating func include(_ name: Token, _ rest: [Token], url: URL?) throws -> [Token] {
    if rest.first?.kind == .identifier {
      // `#include MACRO`: the line macro-expanded, then read as either form (C11 6.10.2p4).
      let expanded = try expand(rest)
      guard expanded.first?.kind != .identifier else {
        throw MetalError("#include expects \"file\" or <header>", at: rest[0].location)
      }
      return try include(name, expanded, url: url)
    }
    if let first = rest.first, first.kind == .string {
      let base = url?.deletingLastPathComponent() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      let target = base.appendingPathComponent(first.text).standardizedFileURL
      if onceFiles.contains(target.path) { return [] }
      guard depth < 32 else { throw MetalError("#include nested too deeply", at: first.location) }
      let text: String
      do { text = try read(target) } catch {
        throw MetalError("cannot read included file '\(first.text)' (looked next to the including file)", at: first.location)
      }
      depth += 1
      defer { depth -= 1 }
      let file = files.add(path: target.path, text: text)
      var lexer = Lexer(text, file: file)
      return try process(lexer.tokens(), url: target)
    }
    guard rest.first?.isPunct("<") == true, let close = rest.firstIndex(where: { $0.isPunct(">") }) else {
      throw MetalError("#include expects \"file\" or <header>", at: rest.first?.location ?? name.location)
    }
    let header = rest[1..<close].map(\.text).joined()
    // Compared without case, as on macOS's file system, where Xcode finds <swiftui/swiftui_metal.h>.
    guard Self.systemHeaders.contains(where: { $0.lowercased() == header.lowercased() }) else {
      throw MetalError("unknown header <\(header)>; known: <metal_stdlib>, <SwiftUI/SwiftUI.h>", at: rest[0].location)
    }
    return []
  }

  /// The value of an `#if`/`#ifdef`/`#ifndef`/`#elif` line.
  private func condition(_ name: Token, _ rest: [Token]) throws -> Bool {
    if name.text == "ifdef" || name.text == "ifndef" {
      guard let id = rest.first else { throw MetalError("#\(name.text) needs a macro name", at: name.location) }
      return (macros[id.text] != nil) == (name.text == "ifdef")
    }
    var resolved: [Token] = []
    var k = 0
    while k < rest.count {
      if rest[k].isIdentifier("defined") {
        let parenthesised = k + 1 < rest.count && rest[k + 1].isPunct("(")
        let idIndex = parenthesised ? k + 2 : k + 1
        guard idIndex < rest.count else { throw MetalError("'defined' needs a macro name", at: rest[k].location) }
        let value: UInt64 = macros[rest[idIndex].text] != nil ? 1 : 0
        resolved.append(Token(kind: .integer(value, unsigned: false), text: "\(value)", location: rest[k].location))
        k = idIndex + (parenthesised ? 2 : 1)
      } else {
        resolved.append(rest[k])
        k += 1
      }
    }
    var evaluator = ConditionEvaluator(tokens: try expand(resolved), at: name.location)
    return try evaluator.evaluate() != 0
  }
}
