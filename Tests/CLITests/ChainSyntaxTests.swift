import FX
import Testing

private typealias Call = ChainSyntax.Call
private typealias Argument = ChainSyntax.Argument

private func calls(_ source: String) throws -> [Call] { try ChainSyntax.parse(source).calls }

/// The error a chain fails with, or `nil` when it parses.
private func failure(_ source: String) -> ChainSyntaxError? {
  do throws(ChainSyntaxError) {
    _ = try ChainSyntax.parse(source)
    return nil
  } catch {
    return error
  }
}

@Suite("Chain syntax: what parses")
struct ChainParsingTests {
  @Test func twoEffects() throws {
    #expect(
      try calls("sepia | vignette(intensity: 0.8)") == [
        Call(name: "sepia", column: 1),
        Call(
          name: "vignette", column: 9,
          arguments: [Argument(label: "intensity", value: .number(0.8), column: 18)]),
      ])
  }

  @Test func pathsAndLists() throws {
    let parsed = try calls(#"warp(noise: "my dir/n\"1\".png", w: [0.1, -2, 3e1], c: [#ff0000, #00ff0080], e: [])"#)
    #expect(
      parsed[0].arguments == [
        Argument(label: "noise", value: .string(#"my dir/n"1".png"#), column: 6),
        Argument(label: "w", value: .list([.number(0.1), .number(-2), .number(30)]), column: 34),
        Argument(label: "c", value: .list([.color(SIMD4(1, 0, 0, 1)), .color(SIMD4(0, 1, 0, 128.0 / 255))]), column: 53),
        Argument(label: "e", value: .list([]), column: 78),
      ])
    #expect(parsed[0].description == #"warp(noise: "my dir/n\"1\".png", w: [0.1, -2, 30], c: [#ff0000, #00ff0080], e: [])"#)
    #expect(try calls(#"warp("a\\b")"#)[0].arguments[0].value == .string(#"a\b"#))
  }

  @Test func noSpaces() throws {
    #expect(
      try calls("sepia|vignette") == [
        Call(name: "sepia", column: 1), Call(name: "vignette", column: 7),
      ])
  }

  @Test func whitespaceEverywhere() throws {
    #expect(
      try calls("  wave( amplitude : 10 , wavelength:40 ) ") == [
        Call(
          name: "wave", column: 3,
          arguments: [
            Argument(label: "amplitude", value: .number(10), column: 9),
            Argument(label: "wavelength", value: .number(40), column: 26),
          ])
      ])
    #expect(
      try calls("\tsepia\t|\nblur") == [
        Call(name: "sepia", column: 2), Call(name: "blur", column: 10),
      ])
  }

  @Test func positionalArguments() throws {
    #expect(
      try calls("blur(3)") == [
        Call(name: "blur", column: 1, arguments: [Argument(value: .number(3), column: 6)])
      ])
    #expect(
      try calls("mix(2, amount: 1)")[0].arguments == [
        Argument(value: .number(2), column: 5),
        Argument(label: "amount", value: .number(1), column: 8),
      ])
  }

  @Test func colors() throws {
    let arguments = try calls("tint(#ff8000, color: #FF800080)")[0].arguments
    #expect(arguments.map(\.column) == [6, 15])
    #expect(arguments[0].value == .color(SIMD4(1, 128 / 255, 0, 1)))
    #expect(arguments[1].value == .color(SIMD4(1, 128 / 255, 0, 128 / 255)))
    #expect(try calls("tint(#000000ff)")[0].arguments[0].value == .color(SIMD4(0, 0, 0, 1)))
  }

  @Test func signsFractionsAndExponents() throws {
    let values = try calls("shift(-3, +.5, 1e3, -2.5E-2, .25, 0.125e+1, -0)")[0].arguments.map(
      \.value)
    #expect(values == [-3, 0.5, 1000, -0.025, 0.25, 1.25, 0].map(ChainSyntax.Value.number))
  }

  @Test func identifierValues() throws {
    #expect(
      try calls("gradient(direction: topToBottom, _edge2)")[0].arguments.map(\.value) == [
        .identifier("topToBottom"), .identifier("_edge2"),
      ])
  }

  @Test func nonFiniteWordsAreNumbers() throws {
    let values = try calls("blur(nan, inf, -infinity, NaN, +Inf)")[0].arguments.map(\.value)
    #expect(values == [.nan, .infinity, -.infinity, .nan, .infinity].map(ChainSyntax.Value.number))
    if case .number(let x) = values[0] {
      #expect(x.isNaN)
    } else {
      Issue.record("nan is not a number")
    }
    // An effect may still be called `inf`; only values turn into numbers.
    #expect(try calls("inf")[0].name == "inf")
  }

  @Test func trailingCommaAndEmptyParentheses() throws {
    #expect(try calls("blur(3,)")[0].arguments == [Argument(value: .number(3), column: 6)])
    #expect(try calls("blur(3 , )")[0].arguments.count == 1)
    #expect(try calls("blur()") == [Call(name: "blur", column: 1)])
    #expect(try calls("blur( )") == [Call(name: "blur", column: 1)])
  }

  @Test func sourceIsKept() throws {
    #expect(try ChainSyntax.parse(" sepia ").source == " sepia ")
  }

  @Test func canonicalPrinting() throws {
    let chain = try ChainSyntax.parse(
      "sepia|vignette( intensity:0.80,radius:7e-1 ,)|blur(3.0)|tint(#FF8000,#ff800080)")
    #expect(
      chain.description
        == "sepia | vignette(intensity: 0.8, radius: 0.7) | blur(3) | tint(#ff8000, #ff800080)")
    let odd = try ChainSyntax.parse("f(1e-5, -inf, nan, 1e20, -0, dir: up)")
    #expect(odd.description == "f(1e-05, -inf, nan, 1e+20, 0, dir: up)")
  }
}

@Suite("Chain syntax: errors point at the mistake")
struct ChainErrorTests {
  static let cases: [(source: String, message: String, column: Int)] = [
    ("", "empty chain: expected an effect, like 'sepia'", 1),
    ("   ", "empty chain: expected an effect, like 'sepia'", 1),
    ("sepia |", "expected an effect name after '|'", 8),
    ("sepia |   ", "expected an effect name after '|'", 8),
    ("sepia || blur", "expected an effect name after '|', found another '|'", 8),
    ("| sepia", "expected an effect name before '|'", 1),
    ("3 | sepia", "expected an effect name, found '3'", 1),
    ("vignette(intensity: 0.8 | sepia", "missing ')' to close the argument list of 'vignette'", 25),
    (
      "vignette(intensity: 0.8",
      "unterminated argument list of 'vignette': expected ')' to match '(' at column 9", 24
    ),
    (
      "sepia | blur(",
      "unterminated argument list of 'blur': expected ')' to match '(' at column 13", 14
    ),
    ("vignette(intensity:)", "missing value after 'intensity:'", 20),
    ("vignette(intensity:", "missing value after 'intensity:'", 20),
    ("vignette(intensity: , radius: 1)", "missing value after 'intensity:'", 21),
    ("vignette(intensity: radius: 0.7)", "missing value after 'intensity:'", 21),
    ("blur(r:: 3)", "expected a value after 'r:', found ':'", 8),
    ("vignette(intensity 0.8)", "missing ':' after label 'intensity'", 19),
    ("vignette(intensity: 0.8 radius: 0.7)", "missing ',' between arguments", 25),
    ("blur(3: 4)", "expected ',' or ')' after an argument, found ':'", 7),
    ("blur(,)", "expected an argument or ')', found ','", 6),
    ("blur(1,,2)", "expected an argument or ')', found ','", 8),
    ("blur((3))", "expected an argument or ')', found '('", 6),
    ("blur(3))", "expected '|' or the end of the chain, found ')'", 8),
    ("blur(3)4", "expected '|' or the end of the chain, found '4'", 8),
    ("sepia vignette", "missing '|' between 'sepia' and 'vignette'", 7),
    ("blur 3", "arguments go in parentheses, like 'blur(3)'", 6),
    ("blur(1.2.3)", "invalid number '1.2.3'", 6),
    ("blur(3px)", "invalid number '3px'", 6),
    ("blur(1.)", "invalid number '1.'", 6),
    ("blur(1e)", "invalid number '1e'", 6),
    ("blur(1e+)", "invalid number '1e+'", 6),
    ("blur(-x)", "invalid number '-x'", 6),
    ("blur(-)", "expected a number after '-'", 6),
    ("blur(- 3)", "expected a number after '-'", 6),
    ("blur(1e999)", "number '1e999' is out of range", 6),
    ("tint(#12)", "invalid color '#12': expected 6 or 8 hex digits, like #ff8000 or #ff800080", 6),
    (
      "tint(#ff80zz)",
      "invalid color '#ff80zz': expected 6 or 8 hex digits, like #ff8000 or #ff800080", 6
    ),
    (
      "tint(#ff8000f)",
      "invalid color '#ff8000f': expected 6 or 8 hex digits, like #ff8000 or #ff800080", 6
    ),
    ("tint(#)", "invalid color '#': expected 6 or 8 hex digits, like #ff8000 or #ff800080", 6),
    ("sepia @ blur", "unexpected character '@'", 7),
    ("blur(.)", "unexpected character '.'", 6),
    ("blur(radius = 3)", "unexpected character '=' (use ':' between a label and its value)", 13),
    ("wave(direction: 'up')", "unexpected character ''' (quote a path with double quotes, like \"noise.png\")", 17),
    ("composite(logo.png, gravity: southeast)", "unexpected character '.' (a file path is quoted: \"logo.png\")", 15),
    ("composite(art/logo-2.png)", "unexpected character '/' (a file path is quoted: \"art/logo-2.png\")", 14),
    ("sepia.amount", "unexpected character '.'", 6),
    ("warp(noise: \"a.png)", "unterminated string: expected '\"' to match the one at column 13", 20),
    ("warp(noise: \"a\\n.png\")", "invalid escape in a string: only \\\" and \\\\ are escapes", 15),
    ("mix(w: [1, 2)", "expected ',' or ']' in the list opened at column 8, found ')'", 13),
    ("mix(w: [1 2])", "missing ',' between list elements", 11),
    ("mix(w: [,])", "expected a number, a color or ']' in the list opened at column 8, found ','", 9),
    ("mix(w: [[1]])", "a list holds numbers or colors, not lists", 9),
    ("mix(w: [\"a\"])", "a list holds numbers or colors, not strings", 9),
    ("sepia; blur", "unexpected character ';' (separate effects with '|')", 6),
    ("sepia\u{7}", "unexpected character U+0007", 6),
    ("blür", "unexpected character 'ü'", 3),
  ]

  @Test(arguments: cases)
  func error(source: String, message: String, column: Int) {
    let error = failure(source)
    #expect(error?.message == message)
    #expect(error?.column == column)
    #expect(error?.source == source)
  }

  @Test func rendersLikeACompiler() {
    #expect(
      failure("vignette(intensity:)")?.description == """
        error: missing value after 'intensity:'
          vignette(intensity:)
                             ^
        """)
    // The caret line copies tabs and the source line flattens newlines.
    #expect(
      failure("\tsepia @")?.description
        == "error: unexpected character '@'\n  \tsepia @\n  \t      ^")
    #expect(
      failure("sepia |\n")?.description
        == "error: expected an effect name after '|'\n  sepia | \n         ^")
  }
}

@Suite("Suggestions for misspelt names")
struct SuggestionTests {
  let effects = ["blur", "bloom", "sepia", "vignette", "wave"]

  @Test func closeWords() {
    // Swapping two letters is one edit.
    #expect(ChainSyntax.suggestion(for: "sepai", among: effects) == "sepia")
    #expect(ChainSyntax.suggestion(for: "vignete", among: effects) == "vignette")
    #expect(ChainSyntax.suggestion(for: "blr", among: effects) == "blur")
    #expect(ChainSyntax.suggestion(for: "Sepia", among: effects) == "sepia")
    // "vinyet" is four edits from "vignette": too far.
    #expect(ChainSyntax.suggestion(for: "vinyet", among: effects) == nil)
  }

  @Test func farWords() {
    #expect(ChainSyntax.suggestion(for: "xyz", among: effects) == nil)
    // Replacing every letter is no suggestion.
    #expect(ChainSyntax.suggestion(for: "ab", among: ["xy"]) == nil)
    #expect(ChainSyntax.suggestion(for: "sepia", among: []) == nil)
  }

  @Test func tiesGoToTheFirstCandidate() {
    #expect(ChainSyntax.suggestion(for: "blom", among: ["bloom", "blob"]) == "bloom")
    #expect(ChainSyntax.suggestion(for: "blom", among: ["blob", "bloom"]) == "blob")
  }
}

// MARK: - Fuzzing

/// SplitMix64, so every run sees the same strings.
private struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The chain without columns or source, to compare a chain with its reprint.
private func shape(_ chain: ChainSyntax) -> [Call] {
  chain.calls.map { call in
    Call(
      name: call.name, column: 0,
      arguments: call.arguments.map { Argument(label: $0.label, value: $0.value, column: 0) })
  }
}

/// Parse → print → parse gives the same calls, and every column points at what it claims to.
private func checkParsed(_ chain: ChainSyntax, sourceLocation: SourceLocation = #_sourceLocation) {
  let characters = Array(chain.source)
  func text(at column: Int) -> String { String(characters[(column - 1)...]) }
  for call in chain.calls {
    #expect(text(at: call.column).hasPrefix(call.name), sourceLocation: sourceLocation)
    for argument in call.arguments {
      switch (argument.label, argument.value) {
      case (let label?, _):
        #expect(text(at: argument.column).hasPrefix(label), sourceLocation: sourceLocation)
      case (nil, .identifier(let word)):
        #expect(text(at: argument.column).hasPrefix(word), sourceLocation: sourceLocation)
      case (nil, .color):
        #expect(text(at: argument.column).hasPrefix("#"), sourceLocation: sourceLocation)
      case (nil, .number):
        #expect(text(at: argument.column).first.map { "+-.0123456789nNiI".contains($0) } == true)
      case (nil, .string):
        #expect(text(at: argument.column).hasPrefix("\""), sourceLocation: sourceLocation)
      case (nil, .list):
        #expect(text(at: argument.column).hasPrefix("["), sourceLocation: sourceLocation)
      }
    }
  }
  do throws(ChainSyntaxError) {
    let reprinted = try ChainSyntax.parse(chain.description)
    #expect(shape(reprinted) == shape(chain), "\(chain.source)", sourceLocation: sourceLocation)
    #expect(reprinted.description == chain.description, sourceLocation: sourceLocation)
  } catch {
    Issue.record("reprint of '\(chain.source)' failed:\n\(error)", sourceLocation: sourceLocation)
  }
}

@Suite("Chain syntax: fuzzing")
struct ChainFuzzTests {
  /// Single characters of the grammar and a few of its words, so some strings parse.
  static let pieces =
    Array("abexyzE019_ .,:|()#+-@\t\"=[]\\").map(String.init)
    + [
      "sepia", "blur", "(", ")", "(r: ", ", ", " | ", "1.5", ".5", "-2e3", "#ff8000", "#12", "nan",
      "inf", "[1, 2]", "\"a b.png\"", "[#ff8000]",
    ]

  @Test func randomStringsParseOrThrow() {
    var random = SeededGenerator(state: 0xF00D)
    var parsed = 0
    for _ in 0..<2_000 {
      let source = (0..<Int.random(in: 0...24, using: &random))
        .map { _ in Self.pieces.randomElement(using: &random)! }.joined()
      do throws(ChainSyntaxError) {
        checkParsed(try ChainSyntax.parse(source))
        parsed += 1
      } catch {
        #expect(error.source == source)
        #expect((1...source.count + 1).contains(error.column), "\(error)")
        #expect(!error.message.isEmpty)
      }
    }
    #expect(parsed > 20, "the fuzzer should reach successful parses too")
  }

  @Test func randomPrintableBytesParseOrThrow() {
    var random = SeededGenerator(state: 42)
    for _ in 0..<2_000 {
      let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
        UInt8.random(in: 32...126, using: &random)
      }
      let source = String(decoding: bytes, as: UTF8.self)
      do throws(ChainSyntaxError) {
        checkParsed(try ChainSyntax.parse(source))
      } catch {
        #expect((1...source.count + 1).contains(error.column), "\(error)")
      }
    }
  }

  @Test func generatedChainsRoundTrip() throws {
    var random = SeededGenerator(state: 7)
    let names = ["sepia", "blur", "vignette", "wave", "_x9"]
    func value() -> String {
      switch Int.random(in: 0..<6, using: &random) {
      case 0: return String(Int.random(in: -1000...1000, using: &random))
      case 1: return String(Double.random(in: -1e6...1e6, using: &random))
      case 2:
        return ["nan", "-inf", "Infinity", ".5", "-2.5E-3", "1e20"].randomElement(using: &random)!
      case 3:
        return "#"
          + (0..<[3, 4].randomElement(using: &random)!).map { _ in
            let byte = String(
              UInt8.random(in: 0...255, using: &random), radix: 16,
              uppercase: Bool.random(using: &random))
            return byte.count == 1 ? "0" + byte : byte
          }.joined()
      default: return ["topToBottom", "left", "edge_2"].randomElement(using: &random)!
      }
    }
    func space() -> String { ["", " ", "  ", "\t"].randomElement(using: &random)! }
    for _ in 0..<500 {
      let source = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        var call = space() + names.randomElement(using: &random)! + space()
        if Bool.random(using: &random) {
          let arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            (Bool.random(using: &random)
              ? "\(names.randomElement(using: &random)!)\(space()):\(space())" : "")
              + value()
          }
          call +=
            "(" + space() + arguments.joined(separator: space() + "," + space()) + space() + ")"
        }
        return call + space()
      }.joined(separator: "|")
      checkParsed(try ChainSyntax.parse(source))
    }
  }
}
