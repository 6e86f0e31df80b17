// `fxc run|effects|dump --shaders FILE.metal` end to end: the project's Metal
// re-expressions of the seed shaders give the catalogue's pixels through the
// command line (16-bit PNG output: within one 16-bit level), parameters bind
// by name, position and `auto`, uniforms animate, and broken files are
// refused with the compiler-style diagnostic.

import FX
import Foundation
import Testing

struct MetalCommandTests {
  static let seeds = BatchFXC.packageRoot + "/examples/shaders/seeds.metal"

  /// A scratch directory with two 16-bit test images, `in.png` and `to.png`.
  final class Directory {
    let path: String
    init() throws {
      path = NSTemporaryDirectory() + "/fxc-metal-cli-" + UUID().uuidString
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      for (name, seed) in [("in.png", 3), ("to.png", 9)] {
        let image = try ImageBuffer(width: 45, height: 31, format: .rgba16)
        var state = UInt32(seed)
        for y in 0..<31 {
          for x in 0..<45 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let n = Float(state >> 8) / Float(1 << 24)
            image[x, y] = SIMD4(Float(x) / 44, Float(y) / 30, n, 1)
          }
        }
        try ImageFile.write(image, to: path + "/" + name, bitDepth: 16)
      }
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func read(_ name: String) throws -> ImageBuffer { try ImageFile.read(path + "/" + name).0 }
  }

  func fxc(_ arguments: [String], in directory: Directory) throws -> BatchOutcome {
    try BatchFXC.Running(arguments, in: directory.path).wait(timeout: 120)
  }

  /// The Metal chain and the catalogue chain, each written as a 16-bit PNG, differ by at most one level.
  @Test(arguments: [
    ("pixelateBlocks(amount: 1, blockSize: 6, bounds: auto) | vignette", "pixelate(amount: 1, blockSize: 6) | vignette", false),
    ("pixelateBlocks(0.5, 9, auto)", "pixelate(0.5, 9)", false),
    ("dissolveBurn(progress: 0.4, grain: 7, edge: #ff8000)", "dissolve(progress: 0.4, grain: 7, edge: #ff8000)", true),
    ("domainWarpNoise(size: auto, strength: 30, time: 1.5)", "domainWarp(strength: 30, time: 1.5, noise: image)", true),
  ])
  func seedsMatchTheCatalogue(metal: String, catalogue: String, usesTo: Bool) throws {
    let dir = try Directory()
    let to = usesTo ? ["--to", "to.png"] : []
    let a = try fxc(["run", "--shaders", Self.seeds, "--chain", metal, "in.png", "-o", "metal.png", "--depth", "16"] + to, in: dir)
    #expect(a.status == 0, "\(a)")
    let b = try fxc(["run", "--chain", catalogue, "in.png", "-o", "catalogue.png", "--depth", "16"] + to, in: dir)
    #expect(b.status == 0, "\(b)")
    let d = maxDifference(try dir.read("metal.png"), try dir.read("catalogue.png"))
    #expect(d <= 1.0 / 65535 + 1e-6, "\(metal): \(d)")
  }

  /// `fxc fuzz --shaders`: every function of the file, each case checked
  /// against the staged interpreter; a function that does not compile is
  /// listed with its diagnostic and fails the run.
  @Test func fuzzRunsEveryFunctionOfAFile() throws {
    let dir = try Directory()
    let ok = try fxc(["fuzz", "--shaders", Self.seeds, "-j", "2"], in: dir)
    #expect(ok.status == 0, "\(ok)")
    #expect(ok.stdout.contains("cases of 3 functions") && ok.stdout.contains(", 0 failing, 0 functions not compiling"), "\(ok)")
    let coverage = BatchFXC.packageRoot + "/Tests/FXTests/Fixtures/metal/coverage.metal"
    let failing = try fxc(["fuzz", "--shaders", coverage, "-j", "2", "--no-jit"], in: dir)
    #expect(failing.status == 1, "\(failing)")
    #expect(failing.stdout.contains("rotation: does not compile: "), "\(failing)")
    #expect(failing.stdout.contains(", 0 failing, 2 functions not compiling"), "\(failing)")
    // --float reaches the shaders' JIT; the catalogue runs strict only, and says so rather than ignore it.
    let relaxed = try fxc(["fuzz", "--shaders", Self.seeds, "-j", "2", "--float", "relaxed"], in: dir)
    #expect(relaxed.status == 0 && relaxed.stdout.contains("relaxed floats"), "\(relaxed)")
    let catalogue = try fxc(["fuzz", "--catalogue", "--float", "relaxed"], in: dir)
    #expect(catalogue.status != 0 && catalogue.stderr.contains("--catalogue checks strict floats"), "\(catalogue)")
  }

  @Test func uniformsAnimateFrames() throws {
    let dir = try Directory()
    let r = try fxc(
      [
        "run", "--shaders", Self.seeds, "--chain", "dissolveBurn(progress: 0, grain: 7, edge: #ff8000)", "--to", "to.png",
        "--param", "dissolveBurn.progress=0...1", "--frames", "3", "in.png", "-o", "f_{frame}.png", "--depth", "16",
      ], in: dir)
    #expect(r.status == 0, "\(r)")
    let c = try fxc(
      ["run", "--chain", "dissolve(progress: 0.5, grain: 7, edge: #ff8000)", "--to", "to.png", "in.png", "-o", "half.png", "--depth", "16"], in: dir)
    #expect(c.status == 0, "\(c)")
    #expect(maxDifference(try dir.read("f_0002.png"), try dir.read("half.png")) <= 1.0 / 65535 + 1e-6)
  }

  @Test func effectsListsTheFunctions() throws {
    let dir = try Directory()
    let r = try fxc(["effects", "--shaders", Self.seeds], in: dir)
    #expect(r.status == 0, "\(r)")
    #expect(r.stdout.contains("pixelateBlocks   layer  Metal layer pixelateBlocks(float amount, float blockSize, float2 bounds)"))
    #expect(r.stdout.contains("values|auto"))
    #expect(r.stdout.contains(#"  destination    default input 1  "path""#), "\(r.stdout)")
  }

  @Test func aBrokenFileIsADiagnostic() throws {
    let dir = try Directory()
    let source = "#include <metal_stdlib>\nusing namespace metal;\n[[ stitchable ]] half4 f(float2 position, half4 color) {\n  return colr;\n}\n"
    try source.write(toFile: dir.path + "/bad.metal", atomically: true, encoding: .utf8)
    let r = try fxc(["run", "--shaders", "bad.metal", "--chain", "f", "in.png", "-o", "out.png"], in: dir)
    #expect(r.status == 1)
    #expect(r.stderr == "bad.metal:4:10: error: use of undeclared identifier 'colr'; did you mean 'color'?\n  return colr;\n         ^\n")
    let unknown = try fxc(["run", "--shaders", Self.seeds, "--chain", "pixelateBlock", "in.png", "-o", "out.png"], in: dir)
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("did you mean 'pixelateBlocks'?"))
  }
}

extension MetalCommandTests {
  /// A file with one function that compiles and one that does not: effects lists
  /// the first and prints the second's diagnostic; run fails only when the chain calls it.
  @Test func aFunctionThatDoesNotCompileIsListedApart() throws {
    let dir = try Directory()
    let source = """
      #include <metal_stdlib>
      using namespace metal;
      [[ stitchable ]] half4 good(float2 position, half4 color) { return color.bgra; }
      [[ stitchable ]] half4 bad(float2 position, half4 color) {
        goto done;
      }

      """
    try source.write(toFile: dir.path + "/mixed.metal", atomically: true, encoding: .utf8)
    let diagnostic = "mixed.metal:5:3: error: unsupported: 'goto' statements\n"
    let effects = try fxc(["effects", "--shaders", "mixed.metal"], in: dir)
    #expect(effects.status == 0, "\(effects)")
    #expect(effects.stdout.contains("good  color  Metal color good()"))
    #expect(effects.stdout.contains("mixed.metal: 1 of 2 stitchable functions compile; not bad (errors above)"))
    #expect(effects.stderr.hasPrefix(diagnostic), "\(effects.stderr)")
    let good = try fxc(["run", "--shaders", "mixed.metal", "--chain", "good", "in.png", "-o", "out.png"], in: dir)
    #expect(good.status == 0, "\(good)")
    #expect(good.stderr.contains("warning: 'bad' of mixed.metal does not compile (this chain does not use it): " + diagnostic), "\(good.stderr)")
    let bad = try fxc(["run", "--shaders", "mixed.metal", "--chain", "good | bad", "in.png", "-o", "out.png"], in: dir)
    #expect(bad.status == 1)
    #expect(bad.stderr.hasPrefix(diagnostic), "\(bad.stderr)")
  }

  /// The largest channel difference between two images of one size.
  func maxDifference(_ a: ImageBuffer, _ b: ImageBuffer) -> Float {
    guard a.width == b.width, a.height == b.height else { return .infinity }
    var d: Float = 0
    for y in 0..<a.height {
      for x in 0..<a.width {
        let e = a[x, y] - b[x, y]
        d = Swift.max(d, Swift.max(-e.min(), e.max()))
      }
    }
    return d
  }
}
