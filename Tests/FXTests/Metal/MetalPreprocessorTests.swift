import FX
import Foundation
import Testing

@testable import FXMetal

/// The preprocessor against the C standard's own macro examples (C11
/// 6.10.3.5, examples 3, 4, 5 and 7; the same in C99 and C++'s
/// [cpp.scope]): each source's tokens after preprocessing must be the
/// tokens of the standard's stated result. Plus Apple's predefined macros.
struct MetalPreprocessorTests {
  /// The spellings of `source`'s tokens after preprocessing; `#include "…"`
  /// reads `files` by name.
  static func preprocessed(_ source: String, files: [String: String] = [:]) throws -> [String] {
    var p = Preprocessor(files: SourceFiles())
    p.read = { url in
      guard let text = files[url.lastPathComponent] else { throw CocoaError(.fileNoSuchFile) }
      return text
    }
    return try p.run(source, path: "example.metal", url: nil).dropLast().map(Preprocessor.spelling)
  }

  /// The spellings of `text`'s tokens, unpreprocessed.
  static func lexed(_ text: String) throws -> [String] {
    var lexer = Lexer(text, file: 0)
    return try lexer.tokens().dropLast().map(Preprocessor.spelling)
  }

  @Test func example3Rescanning() throws {
    let source = """
      #define x 3
      #define f(a) f(x * (a))
      #undef x
      #define x 2
      #define g f
      #define z z[0]
      #define h g(~
      #define m(a) a(w)
      #define w 0,1
      #define t(a) a
      #define p() int
      #define q(x) x
      #define r(x,y) x ## y
      #define str(x) # x
      f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
      g(x+(3,4)-w) | h 5) & m
      (f)^m(m);
      p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
      char c[2][6] = { str(hello), str() };
      """
    let result = """
      f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
      f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
      int i[] = { 1, 23, 4, 5, };
      char c[2][6] = { "hello", "" };
      """
    #expect(try Self.preprocessed(source) == Self.lexed(result))
  }

  @Test func example4StringizingAndPasting() throws {
    let source = #"""
      #define str(s) # s
      #define xstr(s) str(s)
      #define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
       x ## s, x ## t)
      #define INCFILE(n) vers ## n
      #define glue(a, b) a ## b
      #define xglue(a, b) glue(a, b)
      #define HIGHLOW "hello"
      #define LOW LOW ", world"
      debug(1, 2);
      fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
       == 0) str(: @\n), s);
      #include xstr(INCFILE(2).h)
      glue(HIGH, LOW);
      xglue(HIGH, LOW)
      """#
    let result = #"""
      printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
      fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);
      included from vers2.h;
      "hello";
      "hello" ", world"
      """#
    #expect(try Self.preprocessed(source, files: ["vers2.h": "included from vers2.h;"]) == Self.lexed(result))
  }

  @Test func example5Placemarkers() throws {
    let source = """
      #define t(x,y,z) x ## y ## z
      int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
       t(10,,), t(,11,), t(,,12), t(,,) };
      """
    #expect(try Self.preprocessed(source) == Self.lexed("int j[] = { 123, 45, 67, 89, 10, 11, 12, };"))
  }

  @Test func example7VariableArguments() throws {
    let source = #"""
      #define debug(...) fprintf(stderr, __VA_ARGS__)
      #define showlist(...) puts(#__VA_ARGS__)
      #define report(test, ...) ((test)?puts(#test):\
       printf(__VA_ARGS__))
      debug("Flag");
      debug("X = %d\n", x);
      showlist(The first, second, and third items.);
      report(x>y, "x is %d but y is %d", x, y);
      """#
    let result = #"""
      fprintf(stderr, "Flag" );
      fprintf(stderr, "X = %d\n", x );
      puts( "The first, second, and third items." );
      ((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));
      """#
    #expect(try Self.preprocessed(source) == Self.lexed(result))
  }

  /// Example 6: redefinitions that differ are errors; identical ones are not.
  @Test func example6Redefinitions() throws {
    let valid = """
      #define OBJ_LIKE (1-1)
      #define OBJ_LIKE /* white space */ (1-1) /* other */
      #define FUNC_LIKE(a) ( a )
      #define FUNC_LIKE( a )( /* note the white space */ \\
       a /* other stuff on this line
       */ )
      ok
      """
    #expect(try Self.preprocessed(valid) == ["ok"])
    for invalid in ["#define OBJ_LIKE (0)", "#define OBJ_LIKE (1 - 1)", "#define FUNC_LIKE(b) ( a )", "#define FUNC_LIKE(b) ( b )"] {
      let source = "#define OBJ_LIKE (1-1)\n#define FUNC_LIKE(a) ( a )\n" + invalid + "\n"
      #expect(throws: MetalError.self, "\(invalid)") { try Self.preprocessed(source) }
    }
  }

  /// `#if __METAL_VERSION__ >= …` takes Apple's branch (a shader that tested it
  /// silently took the other one); `#if` arithmetic is C's.
  @Test func metalVersionAndConditionArithmetic() throws {
    let source = """
      #if __METAL_VERSION__ >= 300 && defined(__METAL_MACOS__)
      apple
      #else
      other
      #endif
      #if (7 / 2 == 3) && (-7 % 3 == -1) && (1 << 4 == 16) && (3 > 2 ? 1 : 0) && !defined(UNDEFINED) && __LINE__ == 6
      arithmetic
      #endif
      """
    #expect(try Self.preprocessed(source) == ["apple", "arithmetic"])
    #expect(throws: MetalError.self) { try Self.preprocessed("#if 1 / 0\n#endif\n") }
  }

  /// A macro pasting identifiers, as public shaders build names (`SAMPLE_##n`).
  @Test func pastedNamesInAShader() throws {
    let source = """
      #define WEIGHT(n) constant float weight_##n = 0.1 * n;
      WEIGHT(1) WEIGHT(2)
      #define PICK(n) weight_##n
      [[ stitchable ]] half4 tint(float2 position, half4 color) { return color * (PICK(1) + PICK(2)); }
      """
    let library = try ShaderLibrary(source: source, path: "paste.metal")
    let shader = try library.function(named: "tint").bind([])
    let pixel = try MetalSupport.pixel(shader.effect, color: SIMD4(1, 1, 1, 1))
    #expect(abs(pixel.x - 0.3) < 1e-6, "\(pixel)")
  }
}
