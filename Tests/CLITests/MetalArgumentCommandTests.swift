// `fxc run --shaders` with the arguments SwiftUI passes as `.image`,
// `.floatArray` and `.colorArray`: a quoted path in the chain is another
// input of the graph (its own size, sampled in its own coordinates), a
// bracketed list fills an array and its count; errors name the parameter
// and the file; a loop that may be cut off is a warning on standard error.

import FX
import Foundation
import Testing

extension MetalCommandTests {
  static let argumentShaders = """
    #include <metal_stdlib>
    #include <SwiftUI/SwiftUI_Metal.h>
    using namespace metal;

    // Adds a quarter of the texture, read at the same normalized place (nearest texel).
    [[ stitchable ]] half4 overlay(float2 position, half4 color, texture2d<half> tex, float2 size, float amount) {
      constexpr sampler s(filter::nearest, address::clamp_to_edge);
      half4 t = tex.sample(s, position / size);
      return half4(color.rgb + t.rgb * half(amount), color.a);
    }

    // Scales the color by the sum of the weights.
    [[ stitchable ]] half4 weigh(float2 position, half4 color, device const float *weights, int count) {
      float sum = 0.0;
      for (int i = 0; i < count; i++) { sum += weights[i]; }
      return half4(color.rgb * half(sum), color.a);
    }

    // Column x takes palette[x % count]; an empty palette leaves the color.
    [[ stitchable ]] half4 stripes(float2 position, half4 color, device const half4 *palette, int count) {
      if (count == 0) { return color; }
      return palette[int(position.x) % count];
    }

    // Doubles until past the bound: no counted form.
    [[ stitchable ]] half4 doublings(float2 position, half4 color, float bound) {
      float x = 1.0;
      int n = 0;
      while (x < bound) { x *= 2.0; n++; }
      return half4(half(n) / 64.0h, color.g, color.b, color.a);
    }

    // A counted loop over an argument: exact for a constant, a cut-off for a uniform.
    [[ stitchable ]] half4 repeated(float2 position, half4 color, float n) {
      float s = 0.0;
      for (int i = 0; i < int(n); i++) { s += 0.125; }
      return half4(half(s), color.g, color.b, color.a);
    }

    // Reads past a short list: the index clamps to the last element.
    [[ stitchable ]] half4 firstTwo(float2 position, half4 color, device const float *w, int count) {
      return half4(w[0], w[1], 0.0h, 1.0h);
    }

    // Compiles with a = 0 (the library's check) but not with a = 1: two 'case 1'.
    [[ stitchable ]] half4 cases(float2 position, half4 color, float a) {
      switch (int(position.x)) {
        case 1: return color.bgra;
        case int(a): return color.gbra;
        default: return color;
      }
    }

    """

  /// The scratch directory with the shaders above and a 3×2 texture `tex.png`.
  func argumentDirectory() throws -> Directory {
    let dir = try Directory()
    try Self.argumentShaders.write(toFile: dir.path + "/args.metal", atomically: true, encoding: .utf8)
    let texture = try ImageBuffer(width: 3, height: 2, format: .rgba16)
    for j in 0..<2 { for i in 0..<3 { texture[i, j] = SIMD4(Float(i) / 2, Float(j), 0.5, 1) } }
    try ImageFile.write(texture, to: dir.path + "/tex.png", bitDepth: 16)
    return dir
  }

  @Test func aQuotedPathIsAnImageOfItsOwnSize() throws {
    let dir = try argumentDirectory()
    let chain = #"overlay(tex: "tex.png", size: auto, amount: 0.25)"#
    let r = try fxc(["run", "--shaders", "args.metal", "--chain", chain, "in.png", "-o", "out.png", "--depth", "16"], in: dir)
    #expect(r.status == 0, "\(r)")
    let input = try dir.read("in.png"), out = try dir.read("out.png")
    var worst: Float = 0
    for y in 0..<31 {
      for x in 0..<45 {
        // Normalized position × the texture's 3×2 size, nearest texel.
        let i = Int((Float(x) + 0.5) / 45 * 3), j = Int((Float(y) + 0.5) / 31 * 2)
        let t = SIMD3<Float>(Float(i) / 2, Float(j), 0.5)
        let a = input[x, y], b = out[x, y]
        let expected = SIMD3(a.x, a.y, a.z) + t * 0.25
        for c in 0..<3 { worst = max(worst, abs(min(expected[c], 1) - b[c])) }
      }
    }
    #expect(worst <= 1.5 / 65535, "largest difference \(worst)")
  }

  @Test func aMissingOrBrokenImageNamesTheParameter() throws {
    let dir = try argumentDirectory()
    let missing = try fxc(
      ["run", "--shaders", "args.metal", "--chain", #"overlay(tex: "nope.png", size: auto)"#, "in.png", "-o", "out.png"], in: dir)
    #expect(missing.status == 1)
    #expect(missing.stderr == "error: cannot read the image for overlay.tex: nope.png: cannot open the file: no such file or directory\n")
    try "not an image".write(toFile: dir.path + "/bad.png", atomically: true, encoding: .utf8)
    let broken = try fxc(
      ["run", "--shaders", "args.metal", "--chain", #"overlay(tex: "bad.png", size: auto)"#, "in.png", "-o", "out.png"], in: dir)
    #expect(broken.status == 1)
    #expect(broken.stderr.hasPrefix("error: cannot read the image for overlay.tex: bad.png: "), "\(broken)")
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/out.png"))
  }

  @Test func listsFillArraysAndTheirCounts() throws {
    let dir = try argumentDirectory()
    let weigh = try fxc(
      ["run", "--shaders", "args.metal", "--chain", "weigh(weights: [0.125, 0.125, 0.25])", "in.png", "-o", "w.png", "--depth", "16"],
      in: dir)
    #expect(weigh.status == 0, "\(weigh)")
    let stripes = try fxc(
      ["run", "--shaders", "args.metal", "--chain", "stripes([#ff0000, #0000ff80])", "in.png", "-o", "s.png", "--depth", "16"], in: dir)
    #expect(stripes.status == 0, "\(stripes)")
    let input = try dir.read("in.png"), w = try dir.read("w.png"), s = try dir.read("s.png")
    for (x, y) in [(0, 0), (7, 3), (44, 30)] {
      let a = input[x, y]
      #expect(abs(w[x, y].x - a.x * 0.5) <= 1.0 / 65535 && abs(w[x, y].z - a.z * 0.5) <= 1.0 / 65535, "\(x),\(y)")
      // Odd columns: #0000ff at alpha 128/255, passed premultiplied, written straight, read back premultiplied.
      let expected: SIMD4<Float> = x % 2 == 0 ? SIMD4(1, 0, 0, 1) : SIMD4(0, 0, 128.0 / 255, 128.0 / 255)
      let e = s[x, y] - expected
      #expect(Swift.max(-e.min(), e.max()) <= 1.0 / 65535, "\(x),\(y): \(s[x, y])")
    }
  }

  @Test func malformedListsAreRefused() throws {
    let dir = try argumentDirectory()
    let cases = [
      (
        "weigh(weights: [0.1, x])",
        "parameter 'weights' of 'weigh' must be a list of finite numbers, like [0.1, 0.2, 0.7], got identifier 'x' in the list"
      ),
      ("weigh(weights: 0.5)", "parameter 'weights' of 'weigh' must be a list of finite numbers, like [0.1, 0.2, 0.7], got 0.5"),
      ("weigh(weights: [1, 2)", "expected ',' or ']' in the list opened at column 16, found ')'"),
      (
        "stripes(palette: [#ff0000, 3])",
        "parameter 'palette' of 'stripes' must be colors like #ff8000 or #ff800080, or a list like [#ff8000, #0000ff], got 3 in the list"
      ),
      (#"overlay(tex: tex.png)"#, #"unexpected character '.' (a file path is quoted: "tex.png")"#),
      (#"overlay(tex: 3)"#, #"parameter 'tex' of 'overlay' must be an image file's path in double quotes, like "noise.png", got 3"#),
    ]
    for (chain, message) in cases {
      let r = try fxc(["run", "--shaders", "args.metal", "--chain", chain, "in.png", "-o", "out.png"], in: dir)
      #expect(r.status == 2, "\(chain): \(r)")
      #expect(r.stderr.hasPrefix("error: \(message)\n"), "\(chain): \(r.stderr)")
    }
  }

  @Test func aLoopThatMayBeCutOffIsAWarning() throws {
    let dir = try argumentDirectory()
    let r = try fxc(["run", "--shaders", "args.metal", "--chain", "doublings(bound: 100)", "in.png", "-o", "out.png"], in: dir)
    #expect(r.status == 0, "\(r)")
    #expect(
      r.stderr == """
        args.metal:29:3: warning: this 'while' loop runs at most 1,024 iterations: it has no constant trip count \
        and is not a counted loop (for (int i = a; i < n; i++)); later iterations are cut off
          while (x < bound) { x *= 2.0; n++; }
          ^

        """)
    // 2^7 = 128 ≥ 100: seven doublings, well inside the limit.
    #expect(abs(try dir.read("out.png")[3, 3].x - 7.0 / 64) <= 1.0 / 255)
    let counted = try fxc(["run", "--shaders", "args.metal", "--chain", "weigh([1])", "in.png", "-o", "w.png"], in: dir)
    #expect(counted.status == 0 && counted.stderr.isEmpty, "\(counted)")
    let constant = try fxc(["run", "--shaders", "args.metal", "--chain", "repeated(n: 3)", "in.png", "-o", "c.png"], in: dir)
    #expect(constant.status == 0 && constant.stderr.isEmpty, "\(constant)")
    // A uniform bound is not known when the kernel is compiled: at most 65,536 iterations.
    let uniform = try fxc(
      ["run", "--shaders", "args.metal", "--chain", "repeated(n: 3)", "--param", "repeated.n=3", "in.png", "-o", "u.png"], in: dir)
    #expect(uniform.status == 0, "\(uniform)")
    #expect(uniform.stderr.hasPrefix("args.metal:36:3: warning: this 'for' loop runs at most 65,536 iterations"), "\(uniform)")
    let effects = try fxc(["effects", "--shaders", "args.metal"], in: dir)
    #expect(effects.status == 0 && effects.stderr.hasPrefix("args.metal:29:3: warning: this 'while' loop"), "\(effects)")
  }
}

extension MetalCommandTests {
  @Test func aShortListClampsAndArgumentsThatDoNotCompileFail() throws {
    let dir = try argumentDirectory()
    let short = try fxc(
      ["run", "--shaders", "args.metal", "--chain", "firstTwo([0.25])", "in.png", "-o", "s.png", "--depth", "16"], in: dir)
    #expect(short.status == 0, "\(short)")
    let p = try dir.read("s.png")[2, 2]
    #expect(abs(p.x - 0.25) <= 1.0 / 65535 && abs(p.y - 0.25) <= 1.0 / 65535, "\(p)")
    let fine = try fxc(["run", "--shaders", "args.metal", "--chain", "cases(a: 2)", "in.png", "-o", "c.png"], in: dir)
    #expect(fine.status == 0, "\(fine)")
    // Never the identity in its place: the diagnostic, and nothing written.
    let clash = try fxc(["run", "--shaders", "args.metal", "--chain", "cases(a: 1)", "in.png", "-o", "d.png"], in: dir)
    #expect(clash.status == 1, "\(clash)")
    #expect(clash.stderr.hasPrefix("args.metal:49:10: error: duplicate case value '1'\n"), "\(clash.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/d.png"))
  }
}
