// End-to-end tests of the `fxc` command line: each test runs the built `fxc`
// executable as a subprocess, in a fresh temporary directory, and checks its
// exit status, what it prints and which files it leaves behind.
//
// The executable is found next to the test binary (the build products
// directory, whatever `--scratch-path` is), or at $FXC_EXECUTABLE.
// Input images are made at test time with `ImageFile.write`, or copied from
// examples/rocket.jpg, found relative to this file.

import FX
import Foundation
import Testing

// MARK: - Running fxc

/// What one run of `fxc` did (the batch tests' runner, shared).
private typealias Outcome = BatchOutcome

private enum FXC {
  static var packageRoot: String { BatchFXC.packageRoot }
  /// The bundled photo.
  static var rocket: String { BatchFXC.rocket }
  static var executable: String? { BatchFXC.executable }
}

/// Runs `fxc arguments…` in `directory` and waits for it (at most `timeout` seconds).
private func fxc(_ arguments: [String], in directory: String, timeout: Double = 120) throws -> Outcome {
  let result = try BatchFXC.Running(arguments, in: directory).wait(timeout: timeout)
  if result.signalled {
    Issue.record("fxc \(arguments) was killed by signal \(result.status) (crash or \(timeout) s timeout)")
  }
  return result
}

// MARK: - Files

/// A fresh empty directory, removed with everything in it when released.
private final class Scratch {
  let path: String

  init() throws {
    var template = Array((NSTemporaryDirectory() + "/fxc-cli-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

  /// The names in `subdirectory` (hidden temporary files included), sorted.
  func contents(_ subdirectory: String = ".") throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: file(subdirectory)).sorted()
  }

  func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file(name))) }

  func write(_ bytes: Data, to name: String) throws { try bytes.write(to: URL(fileURLWithPath: file(name))) }

  func mkdir(_ name: String) throws { try FileManager.default.createDirectory(atPath: file(name), withIntermediateDirectories: true) }

  /// Writes a test image: `width`×`height`, colour gradients and every kind of alpha.
  @discardableResult
  func image(_ name: String, width: Int = 37, height: Int = 23, bitDepth: Int = 8, opaque: Bool = false) throws -> String {
    try ImageFile.write(testImage(width: width, height: height, opaque: opaque), to: file(name), bitDepth: bitDepth)
    return file(name)
  }

  /// Copies the bundled photo in as `name`.
  @discardableResult
  func rocket(_ name: String) throws -> String {
    try FileManager.default.copyItem(atPath: FXC.rocket, toPath: file(name))
    return file(name)
  }
}

/// A deterministic premultiplied image: gradients, a noisy channel, and alpha
/// 0, 1/255, ½ and 1 in different places (or opaque throughout).
private func testImage(width: Int, height: Int, opaque: Bool = false) -> ImageBuffer {
  let image = try! ImageBuffer(width: width, height: height, format: .rgba16)
  var state: UInt32 = 12345
  for y in 0..<height {
    for x in 0..<width {
      state = state &* 1_664_525 &+ 1_013_904_223
      let noise = Float(state >> 8) / Float(1 << 24)
      let alphas: [Float] = [1, 1, 1, 0.5, 0, 1.0 / 255]
      let a = opaque ? 1 : alphas[(x / 3 + y) % alphas.count]
      let rgb = SIMD3<Float>(Float(x) / Float(max(width - 1, 1)), Float(y) / Float(max(height - 1, 1)), noise)
      image[x, y] = SIMD4(rgb * a, a)
    }
  }
  return image
}

/// Largest channel difference between two images of the same size.
private func maxDifference(_ a: ImageBuffer, _ b: ImageBuffer) -> Float {
  var worst: Float = 0
  for y in 0..<a.height {
    for x in 0..<a.width {
      let d = a[x, y] - b[x, y]
      for c in 0..<4 { worst = max(worst, abs(d[c])) }
    }
  }
  return worst
}

/// Names of hidden files (the atomic writer's `.name.tmp-XXXXXX`) in a listing.
private func hidden(_ names: [String]) -> [String] { names.filter { $0.hasPrefix(".") } }

/// The 1-based column of the caret printed under `source` in a chain error,
/// or `nil` when the error does not quote the chain with a caret under it.
private func caretColumn(in stderr: String, under source: String) -> Int? {
  let lines = stderr.components(separatedBy: "\n")
  guard let i = lines.firstIndex(of: "  " + source), i + 1 < lines.count else { return nil }
  let caretLine = lines[i + 1]
  guard caretLine.hasPrefix("  "), caretLine.hasSuffix("^"),
    caretLine.dropFirst(2).dropLast().allSatisfy({ $0 == " " })
  else { return nil }
  return caretLine.count - 2
}

// MARK: - Tests

@Suite("fxc command line")
struct CommandLineTests {
  @Test func executableIsFound() throws {
    let executable = try #require(FXC.executable)
    #expect(FileManager.default.isExecutableFile(atPath: executable))
    #expect(FileManager.default.fileExists(atPath: FXC.rocket), "bundled photo not found at \(FXC.rocket)")
  }

  // MARK: fxc run

  @Suite("fxc run: applying a chain")
  struct Run {
    @Test func appliesAChainToThePhoto() throws {
      let dir = try Scratch()
      try dir.rocket("in.jpg")
      let result = try fxc(["run", "--chain", "sepia | vignette", "in.jpg", "-o", "out.png", "--threads", "2"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr.isEmpty, "\(result)")
      #expect(result.stdout.contains("chain: sepia(amount: 1) | vignette(intensity: 1, radius: 0.75)"), "\(result)")
      let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Mpixel/s") }, "\(result)")
      #expect(line.hasPrefix("in.jpg → out.png: 640×427, jit "), "\(line)")
      #expect(line.contains(" on 2 threads"), "\(line)")
      // A number precedes "Mpixel/s".
      let rate = line.components(separatedBy: " Mpixel/s")[0].split(separator: " ").last.flatMap { Double($0) }
      #expect(rate.map { $0 > 0 } == true, "\(line)")

      let (input, _) = try ImageFile.read(dir.file("in.jpg"))
      let (output, info) = try ImageFile.read(dir.file("out.png"))
      #expect(info.format == .png)
      #expect(output.width == input.width && output.height == input.height)
      #expect(maxDifference(input, output) > 0.1, "the output should be sepia-toned and vignetted, not a copy")
      // Nothing else in the directory: no temporary file left behind.
      #expect(try dir.contents() == ["in.jpg", "out.png"])
    }

    @Test func checkReportsOk() throws {
      let dir = try Scratch()
      try dir.image("in.png")
      let result = try fxc(
        ["run", "--chain", "sepia | vignette(intensity: 0.8)", "in.png", "-o", "out.png", "--check", "-j", "2"],
        in: dir.path)
      #expect(result.status == 0, "\(result)")
      let check = try #require(result.stdout.split(separator: "\n").first { $0.contains("check:") }, "\(result)")
      #expect(check.hasSuffix(": ok"), "\(check)")
      #expect(dir.exists("out.png"))
    }

    /// One batch of an opaque and a translucent image through a blur: each
    /// gets its own kernel (the opaque one with alpha folded), and both agree
    /// with the staged interpreter.
    @Test func opaqueAndTranslucentInputsInOneBatch() throws {
      let dir = try Scratch()
      try dir.image("opaque.png", opaque: true)
      try dir.image("translucent.png")
      let result = try fxc(
        ["run", "--chain", "gaussianBlur(sigma: 2) | sepia", "opaque.png", "translucent.png", "--out-dir", "out", "--check", "-j", "2"],
        in: dir.path)
      #expect(result.status == 0, "\(result)")
      let checks = result.stdout.split(separator: "\n").filter { $0.contains("check:") }
      #expect(checks.count == 2 && checks.allSatisfy { $0.hasSuffix(": ok") }, "\(result)")
    }

    static let chains = [
      "sepia | vignette",
      "wave(amplitude: 3, wavelength: 17) | pixelate(blockSize: 5) | gaussianBlur(sigma: 1.5)"
        + " | unsharpMask(sigma: 1, amount: 0.8) | contrast(1.3) | saturation(1.5) | brightness(0.05)",
    ]

    @Test(arguments: chains)
    func interpreterBackendMatchesJIT(chain: String) throws {
      let dir = try Scratch()
      try dir.image("in.png")
      let jit = try fxc(["run", "-c", chain, "in.png", "-o", "jit.png", "-j", "2"], in: dir.path)
      let interp = try fxc(["run", "-c", chain, "in.png", "-o", "interp.png", "--backend", "interp", "-j", "2"], in: dir.path)
      #expect(jit.status == 0, "\(jit)")
      #expect(interp.status == 0, "\(interp)")
      #expect(jit.stdout.contains(", jit "), "\(jit)")
      #expect(interp.stdout.contains(", interp "), "\(interp)")
      let (a, _) = try ImageFile.read(dir.file("jit.png"))
      let (b, _) = try ImageFile.read(dir.file("interp.png"))
      #expect(a.width == b.width && a.height == b.height)
      #expect(maxDifference(a, b) <= 1.0 / 255 + 1e-6)
    }

    @Test func threadCountDoesNotChangeTheOutput() throws {
      let dir = try Scratch()
      try dir.image("in.png", width: 61, height: 29)
      let chain = "wave(amplitude: 4) | gaussianBlur(sigma: 2) | vignette"
      let one = try fxc(["run", "-c", chain, "in.png", "-o", "one.png", "--threads", "1"], in: dir.path)
      let many = try fxc(["run", "-c", chain, "in.png", "-o", "many.png", "--threads", "5"], in: dir.path)
      #expect(one.status == 0 && many.status == 0, "\(one)\n\(many)")
      #expect(try dir.bytes("one.png") == dir.bytes("many.png"))
    }

    @Test func keepsSixteenBitPNGsAndWritesJPEGByExtension() throws {
      let dir = try Scratch()
      try dir.image("deep.png", bitDepth: 16)
      let png = try fxc(["run", "-c", "sepia", "deep.png", "-o", "deep-out.png"], in: dir.path)
      #expect(png.status == 0, "\(png)")
      #expect(try ImageFile.read(dir.file("deep-out.png")).1.bitDepth == 16)
      let jpeg = try fxc(["run", "-c", "sepia", "deep.png", "-o", "out.jpg"], in: dir.path)
      #expect(jpeg.status == 0, "\(jpeg)")
      let (image, info) = try ImageFile.read(dir.file("out.jpg"))
      #expect(info.format == .jpeg)
      #expect(image.width == 37 && image.height == 23)
    }
  }

  // MARK: Malformed chains

  @Suite("fxc run: malformed chains")
  struct ChainErrors {
    struct Case: CustomTestStringConvertible, Sendable {
      var chain: String
      var column: Int
      var fragments: [String]
      var testDescription: String { chain }
    }

    static let cases = [
      Case(chain: "sepia |", column: 8, fragments: ["expected an effect name after '|'"]),
      Case(chain: "sepai", column: 1, fragments: ["unknown effect 'sepai'", "did you mean 'sepia'?"]),
      Case(
        chain: "vignette(intensty: 1)", column: 10,
        fragments: ["'vignette' has no parameter 'intensty'", "did you mean 'intensity'?", "intensity, radius"]),
      Case(chain: "sepia(amount: 2)", column: 7, fragments: ["parameter 'amount' of 'sepia'", "0…1", "got 2"]),
      Case(chain: "sepia(amount: nan)", column: 7, fragments: ["parameter 'amount' of 'sepia'", "finite", "0…1", "got nan"]),
      Case(chain: "sepia | vignette(radius: 2)", column: 18, fragments: ["'radius' of 'vignette'", "0…1.5", "got 2"]),
    ]

    @Test(arguments: cases)
    func isRejectedWithACaret(_ c: Case) throws {
      let dir = try Scratch()
      try dir.image("in.png")
      let result = try fxc(["run", "--chain", c.chain, "in.png", "-o", "out.png"], in: dir.path)
      #expect(result.status == 2, "\(result)")
      #expect(result.stderr.hasPrefix("error: "), "\(result)")
      for fragment in c.fragments {
        #expect(result.stderr.contains(fragment), "missing '\(fragment)' in \(result)")
      }
      #expect(caretColumn(in: result.stderr, under: c.chain) == c.column, "\(result)")
      #expect(!result.stdout.contains("Mpixel/s"), "\(result)")
      #expect(try dir.contents() == ["in.png"], "nothing may be written")
    }

    @Test func dumpRejectsThemToo() throws {
      let dir = try Scratch()
      let result = try fxc(["dump", "--chain", "sepia | vignete"], in: dir.path)
      #expect(result.status == 2, "\(result)")
      #expect(result.stderr.contains("did you mean 'vignette'?"), "\(result)")
      #expect(caretColumn(in: result.stderr, under: "sepia | vignete") == 9, "\(result)")
    }

    /// A typo in any chain is found before any chain is timed: no partial results.
    @Test func benchRejectsABadChainBeforeTimingAnything() throws {
      let dir = try Scratch()
      try dir.image("in.png", width: 16, height: 8)
      let result = try fxc(
        ["bench", "--chain", "sepia", "--chain", "sepai", "--image", "in.png", "--json", "--seconds", "0.01"], in: dir.path)
      #expect(result.status == 2, "\(result)")
      #expect(result.stderr.contains("did you mean 'sepia'?"), "\(result)")
      #expect(result.stdout.isEmpty, "a usage error should stop bench before it prints results: \(result)")
    }
  }

  // MARK: Bad files

  @Suite("fxc run: bad input files")
  struct Files {
    enum Bad: String, CaseIterable, Sendable {
      case missing, empty, randomBytes, pngSignatureThenGarbage, truncatedPNG, truncatedJPEG

      var name: String {
        switch self {
        case .truncatedJPEG: "bad.jpg"
        default: "bad.png"
        }
      }
      /// What the message must say about the file.
      var reason: String {
        switch self {
        case .missing: "no such file"
        case .empty: "empty"
        case .randomBytes: "unsupported format: not a PNG, JPEG"
        case .pngSignatureThenGarbage: "PNG"
        case .truncatedPNG, .truncatedJPEG: "truncated"
        }
      }

      /// Creates the bad file in `dir` (a missing one is simply not created).
      fileprivate func make(in dir: Scratch) throws {
        var state: UInt64 = 0x5EED_F00D  // fixed noise, so a failure reproduces
        func noise(_ count: Int) -> [UInt8] {
          (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
          }
        }
        switch self {
        case .missing: break
        case .empty: try dir.write(Data(), to: name)
        case .randomBytes:
          var bytes = noise(3000)
          bytes[0] = 0x42  // never a PNG or JPEG signature by chance
          try dir.write(Data(bytes), to: name)
        case .pngSignatureThenGarbage:
          let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
          try dir.write(Data(signature + noise(2000)), to: name)
        case .truncatedPNG, .truncatedJPEG:
          let whole = dir.file("whole." + (self == .truncatedPNG ? "png" : "jpg"))
          try ImageFile.write(testImage(width: 64, height: 48, opaque: true), to: whole)
          let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
          try FileManager.default.removeItem(atPath: whole)
          try dir.write(bytes.prefix(bytes.count * 3 / 5), to: name)
        }
      }
    }

    @Test(arguments: Bad.allCases)
    func isReportedByName(_ bad: Bad) throws {
      let dir = try Scratch()
      try bad.make(in: dir)
      let before = try dir.contents()
      let result = try fxc(["run", "-c", "sepia", bad.name, "-o", "out.png"], in: dir.path)
      #expect(result.status == 1, "\(result)")
      #expect(result.stderr.contains("error: \(bad.name): "), "\(result)")
      #expect(result.stderr.contains(bad.reason), "\(result)")
      #expect(!dir.exists("out.png"))
      #expect(try dir.contents() == before, "no output and no temporary file may be left")
    }

    /// The message names the file once: `error: bad.png: empty file (0 bytes)`,
    /// not `error: bad.png: bad.png: empty file (0 bytes)`.
    @Test func readErrorNamesTheFileOnce() throws {
      let dir = try Scratch()
      try dir.write(Data(), to: "bad.png")
      let result = try fxc(["run", "-c", "sepia", "bad.png", "-o", "out.png"], in: dir.path)
      #expect(result.status == 1, "\(result)")
      #expect(result.stderr.contains("bad.png: empty file"), "\(result)")
      #expect(!result.stderr.contains("bad.png: bad.png"), "\(result)")
    }

    @Test func batchGoesOnPastABadFile() throws {
      let dir = try Scratch()
      try dir.image("first.png")
      try dir.write(Data("not an image".utf8), to: "broken.png")
      try dir.image("third.jpg", opaque: true)
      try dir.mkdir("out")
      // -v: a batch prints a line per file only when asked (its summary always).
      let result = try fxc(
        ["run", "-c", "sepia | vignette", "first.png", "broken.png", "third.jpg", "--out-dir", "out", "-j", "2", "-v"],
        in: dir.path)
      #expect(result.status == 1, "\(result)")
      #expect(result.stderr.contains("broken.png"), "\(result)")
      #expect(result.stderr.contains("1 of 3"), "\(result)")
      #expect(!result.stderr.contains("first.png") && !result.stderr.contains("third.jpg"), "\(result)")
      #expect(result.stdout.contains("first.png → ") && result.stdout.contains("third.jpg → "), "\(result)")
      #expect(try dir.contents("out") == ["first.png", "third.jpg"])
      #expect(try ImageFile.read(dir.file("out/first.png")).1.format == .png)
      #expect(try ImageFile.read(dir.file("out/third.jpg")).1.format == .jpeg)
    }
  }

  // MARK: Never overwrite

  @Suite("fxc run: never overwrites")
  struct NeverOverwrite {
    @Test(arguments: ["same.png", "./same.png", "sub/../same.png", "@absolute", "link.png"])
    func refusesToWriteOverTheInput(output: String) throws {
      let dir = try Scratch()
      try dir.image("same.png")
      try dir.mkdir("sub")
      try FileManager.default.createSymbolicLink(atPath: dir.file("link.png"), withDestinationPath: "same.png")
      let original = try dir.bytes("same.png")
      let target = output == "@absolute" ? dir.file("same.png") : output
      for extra in [[], ["--overwrite"]] {
        let result = try fxc(["run", "-c", "sepia", "same.png", "-o", target] + extra, in: dir.path)
        #expect(result.status == 1, "\(extra): \(result)")
        #expect(result.stderr.contains("refusing to overwrite the input"), "\(result)")
        #expect(try dir.bytes("same.png") == original)
        #expect(hidden(try dir.contents()).isEmpty)
      }
    }

    @Test func outDirHoldingTheInputIsRefused() throws {
      let dir = try Scratch()
      try dir.image("in.png")
      let original = try dir.bytes("in.png")
      let result = try fxc(["run", "-c", "sepia", "in.png", "--out-dir", ".", "--overwrite"], in: dir.path)
      #expect(result.status == 1, "\(result)")
      #expect(try dir.bytes("in.png") == original)
    }

    /// `--overwrite` replaces old outputs, never a file the same batch reads:
    /// here the first input's output is the second input.
    @Test func overwriteNeverReplacesAnotherInputOfTheBatch() throws {
      let dir = try Scratch()
      try dir.image("a.png")
      try dir.mkdir("out")
      try dir.image("out/a.png", width: 20, height: 10)
      let original = try dir.bytes("out/a.png")
      let result = try fxc(["run", "-c", "sepia", "a.png", "out/a.png", "--out-dir", "out", "--overwrite"], in: dir.path)
      #expect(result.status != 0, "\(result)")
      #expect(try dir.bytes("out/a.png") == original, "the input out/a.png was overwritten: \(result)")
    }

    /// Two inputs with the same name in different directories map to the same
    /// output; `--overwrite` must not let the second silently replace the first.
    @Test func overwriteNeverReplacesAnOutputOfTheSameBatch() throws {
      let dir = try Scratch()
      try dir.mkdir("d1")
      try dir.mkdir("d2")
      try dir.mkdir("out")
      try dir.image("d1/x.png", width: 30, height: 20)
      try dir.image("d2/x.png", width: 20, height: 30)
      let result = try fxc(["run", "-c", "sepia", "d1/x.png", "d2/x.png", "--out-dir", "out", "--overwrite"], in: dir.path)
      // The clash is found before any work: a usage error naming both inputs, nothing written.
      #expect(result.status == 2, "one of two outputs would be lost: \(result)")
      #expect(result.stderr.contains("d1/x.png") && result.stderr.contains("d2/x.png"), "\(result)")
      #expect(!FileManager.default.fileExists(atPath: dir.file("out/x.png")))
    }

    @Test func existingOutputNeedsOverwrite() throws {
      let dir = try Scratch()
      try dir.image("in.png")
      let sentinel = Data("precious".utf8)
      try dir.write(sentinel, to: "out.png")
      let refused = try fxc(["run", "-c", "sepia", "in.png", "-o", "out.png"], in: dir.path)
      #expect(refused.status == 1, "\(refused)")
      #expect(refused.stderr.contains("out.png exists"), "\(refused)")
      #expect(refused.stderr.contains("--overwrite"), "\(refused)")
      #expect(try dir.bytes("out.png") == sentinel)

      let replaced = try fxc(["run", "-c", "sepia", "in.png", "-o", "out.png", "--overwrite"], in: dir.path)
      #expect(replaced.status == 0, "\(replaced)")
      let (image, _) = try ImageFile.read(dir.file("out.png"))
      #expect(image.width == 37 && image.height == 23)
      #expect(try dir.contents() == ["in.png", "out.png"])
    }
  }

  // MARK: Usage errors

  @Suite("fxc: usage errors")
  struct Usage {
    struct Case: CustomTestStringConvertible, Sendable {
      var arguments: [String]
      var fragments: [String]
      var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases = [
      Case(arguments: ["rnu"], fragments: ["unknown command 'rnu'", "did you mean 'run'?"]),
      Case(arguments: ["frobnicate"], fragments: ["unknown command 'frobnicate'", "commands: run, effects"]),
      Case(
        arguments: ["run", "-c", "sepia", "--thread", "2", "in.png", "-o", "out.png"],
        fragments: [
          "unknown option '--thread'", "did you mean '--threads'?", "valid:", "--chain", "--out-dir", "--backend",
          "--overwrite", "--check",
        ]),
      Case(arguments: ["run", "-c", "sepia", "in.png", "in2.png", "-o", "out.png"], fragments: ["-o takes one input", "--out-dir"]),
      Case(arguments: ["run", "in.png", "-o", "out.png"], fragments: ["needs --chain"]),
      Case(arguments: ["run", "-c", "sepia", "in.png"], fragments: ["-o", "--out-dir"]),
      Case(arguments: ["run", "-c", "sepia", "-o", "out.png"], fragments: ["at least one input"]),
      Case(arguments: ["run", "-c", "sepia", "in.png", "-o", "out.png", "--backend", "llvm"], fragments: ["unknown backend 'llvm'", "jit, interp"]),
      Case(arguments: ["run", "-c", "sepia", "in.png", "-o", "out.png", "--threads", "0"], fragments: ["'--threads'", "got '0'"]),
      Case(arguments: ["dump"], fragments: ["needs --chain"]),
      Case(arguments: ["effects", "--json"], fragments: ["unknown option '--json'"]),
      Case(arguments: ["bench", "--seconds", "0"], fragments: ["'--seconds'", "got '0'"]),
    ]

    @Test(arguments: cases)
    func exitsWithStatus2(_ c: Case) throws {
      let dir = try Scratch()
      try dir.image("in.png")
      try dir.image("in2.png")
      let result = try fxc(c.arguments, in: dir.path)
      #expect(result.status == 2, "\(result)")
      #expect(result.stderr.hasPrefix("error: "), "\(result)")
      for fragment in c.fragments {
        #expect(result.stderr.contains(fragment), "missing '\(fragment)' in \(result)")
      }
      #expect(try dir.contents() == ["in.png", "in2.png"], "nothing may be written")
    }

    @Test func helpExitsZero() throws {
      let dir = try Scratch()
      let result = try fxc(["--help"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("usage: fxc <command>"))
      for command in ["run", "effects", "dump", "bench"] { #expect(result.stdout.contains("  \(command) ")) }
    }
  }

  // MARK: fxc effects

  @Suite("fxc effects")
  struct Effects {
    @Test func listsTheWholeCatalogue() throws {
      let dir = try Scratch()
      let result = try fxc(["effects"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr.isEmpty)
      let blocks = result.stdout.trimmingCharacters(in: .newlines).components(separatedBy: "\n\n")
      try #require(blocks.count == Catalogue.effects.count, "\(result.stdout)")
      for (block, effect) in zip(blocks, Catalogue.effects) {
        let lines = block.components(separatedBy: "\n")
        #expect(lines[0].hasPrefix(effect.name + " "), "\(lines[0])")
        #expect(lines[0].contains(" \(effect.kindName) "), "\(lines[0])")
        #expect(lines[0].hasSuffix(effect.summary), "\(lines[0])")
        try #require(lines.count == 1 + effect.parameters.count, "\(block)")
        for (line, parameter) in zip(lines.dropFirst(), effect.parameters) {
          #expect(line.hasPrefix("  \(parameter.name) "), "\(line)")
          #expect(line.contains("default \(parameter.defaultDescription) "), "\(line)")
          #expect(line.contains(" \(parameter.rangeDescription) "), "\(line)")
          #expect(line.contains(parameter.summary), "\(line)")
          #expect(line.hasSuffix("(constant only)") == !parameter.allowsUniform, "\(line)")
        }
      }
    }
  }

  // MARK: fxc dump

  @Suite("fxc dump")
  struct Dump {
    static let chain = "sepia | vignette"

    @Test func passesShowsEveryPass() throws {
      let dir = try Scratch()
      let result = try fxc(["dump", "--chain", Self.chain, "--passes"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("# chain: sepia(amount: 1) | vignette(intensity: 1, radius: 0.75)\n"))
      // The passes the library logs for this chain, in order, each with its own heading.
      // dump lowers for RGBA8 buffers.
      let rgba8 = KernelLayout(inputs: [.rgba8], output: .rgba8).matching(LoweringOptions())
      let (_, log) = try Pipeline(ChainSyntax.parse(Self.chain).resolve().effect).lower(rgba8)
      let headings = result.stdout.split(separator: "\n").filter { $0.hasPrefix("## pass: ") }.map(String.init)
      #expect(headings.count == log.entries.count, "\(headings)")
      for (heading, entry) in zip(headings, log.entries) {
        #expect(heading.hasPrefix("## pass: \(entry.pass) — \(entry.summary)"), "\(heading)")
      }
      #expect(log.entries.count >= 4)
      #expect(result.stdout.contains("color effect 'sepia(amount: 1)'"))
      #expect(result.stdout.contains("'vignette(intensity: 1, radius: 0.75)'"))
      #expect(!result.stdout.contains("## assembly") && !result.stdout.contains("## LLVM IR"))
    }

    /// Every segment of a pipeline cut by a resize shows its own passes, each headed with its segment.
    @Test func passesShowsEverySegmentsPasses() throws {
      let dir = try Scratch()
      let result = try fxc(["dump", "--chain", "sepia | resize(width: 50) | vignette | equalize | sepia", "--passes"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      let lines = result.stdout.split(separator: "\n")
      for segment in 1...2 {
        let headings = lines.filter { $0.hasPrefix("### segment \(segment) pass: ") }
        #expect(headings.first?.hasPrefix("### segment \(segment) pass: input") == true, "\(headings)")
        #expect(headings.contains { $0.contains("pass: lower to kernel") }, "\(headings)")
      }
      #expect(result.stdout.contains("'vignette(intensity: 1, radius: 0.75)'"))
    }

    @Test func asmShowsHostAssembly() throws {
      let dir = try Scratch()
      let result = try fxc(["dump", "--chain", Self.chain, "--asm"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      let assembly = try #require(result.stdout.components(separatedBy: "\n## assembly\n").last)
      #expect(result.stdout.contains("\n## assembly\n"))
      #expect(assembly.contains("mulps") || assembly.contains("fmul"), "no vector multiply in the assembly")
      #expect(!result.stdout.contains("## LLVM IR"))
    }

    @Test func irShowsTheLLVMModule() throws {
      let dir = try Scratch()
      let result = try fxc(["dump", "--chain", Self.chain, "--ir"], in: dir.path)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("## LLVM IR"))
      #expect(result.stdout.contains("define void @fxc_nest0"))
      #expect(!result.stdout.contains("## assembly"))
    }
  }

  // MARK: fxc bench

  @Suite("fxc bench")
  struct Bench {
    /// Parses each line of `stdout` as one JSON object.
    static func objects(_ stdout: String) throws -> [[String: Any]] {
      try stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(line)")
      }
    }

    static func checkFields(_ object: [String: Any], chain: String, width: Int, height: Int, threads: Int) {
      #expect(object["chain"] as? String == chain)
      #expect((object["width"] as? NSNumber)?.intValue == width)
      #expect((object["height"] as? NSNumber)?.intValue == height)
      #expect(((object["interp_mpix_s"] as? NSNumber)?.doubleValue ?? 0) > 0, "\(object)")
      #expect(((object["jit_mpix_s"] as? NSNumber)?.doubleValue ?? 0) > 0, "\(object)")
      #expect(((object["compile_ms"] as? NSNumber)?.doubleValue ?? -1) >= 0, "\(object)")
      #expect((object["threads"] as? NSNumber)?.intValue == threads)
    }

    /// The default image: the bundled photo, found from the repository root.
    @Test func jsonOnTheBundledPhoto() throws {
      let result = try fxc(["bench", "--chain", "sepia", "--json", "--seconds", "0.05", "--threads", "1"], in: FXC.packageRoot)
      #expect(result.status == 0, "\(result)")
      let objects = try Self.objects(result.stdout)
      try #require(objects.count == 1, "\(result)")
      let (photo, _) = try ImageFile.read(FXC.rocket)
      Self.checkFields(objects[0], chain: "sepia", width: photo.width, height: photo.height, threads: 1)
      // A JPEG is opaque: its alpha is folded, unless --no-opaque.
      #expect(objects[0]["opaque_input"] as? Bool == true, "\(objects[0])")
      let general = try fxc(["bench", "--chain", "sepia", "--json", "--seconds", "0.05", "--no-opaque", "--no-unsplit"], in: FXC.packageRoot)
      #expect(general.status == 0, "\(general)")
      #expect(try Self.objects(general.stdout).first?["opaque_input"] as? Bool == false, "\(general)")
    }

    @Test func jsonOneLinePerChain() throws {
      let dir = try Scratch()
      try dir.image("small.png", width: 24, height: 10)
      let chains = ["sepia", "wave | pixelate(amount: 1, blockSize: 4)"]
      let result = try fxc(
        ["bench", "--image", "small.png", "--json", "--seconds", "0.01", "-j", "3"] + chains.flatMap { ["--chain", $0] },
        in: dir.path)
      #expect(result.status == 0, "\(result)")
      let objects = try Self.objects(result.stdout)
      try #require(objects.count == chains.count, "\(result)")
      for (object, chain) in zip(objects, chains) {
        Self.checkFields(object, chain: chain, width: 24, height: 10, threads: 3)
      }
    }

    /// Chains may contain any whitespace, tabs and newlines included; the JSON
    /// must still be valid and one object per line.
    @Test func jsonEscapesWhitespaceInTheChain() throws {
      let dir = try Scratch()
      try dir.image("small.png", width: 8, height: 4)
      let chains = ["sepia |\tvignette", "sepia\n| vignette"]
      let result = try fxc(
        ["bench", "--image", "small.png", "--json", "--seconds", "0.01", "-j", "1"] + chains.flatMap { ["--chain", $0] },
        in: dir.path)
      #expect(result.status == 0, "\(result)")
      let lines = result.stdout.split(separator: "\n")
      #expect(lines.count == chains.count, "one JSON object per line: \(result)")
      let objects = try Self.objects(result.stdout)
      for (object, chain) in zip(objects, chains) {
        Self.checkFields(object, chain: chain, width: 8, height: 4, threads: 1)
      }
    }
  }
}
