import FX
import Foundation
import Testing

/// Reductions (docs/design.md §4, "Reductions") against Pillow's own
/// results (Tests/FXTests/Fixtures/reductions, made by
/// scripts/pillow-reduction-fixtures.py): autoLevels and normalize within one
/// level of `ImageOps.autocontrast` (fxc's map is continuous where Pillow
/// truncates its table), equalize exactly `ImageOps.equalize`; the executor
/// gives the reference's bits, whole and streamed.
@Suite struct ReductionTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "../Fixtures/reductions")

  static func read(_ name: String) throws -> ImageBuffer {
    try ImageFile.read(fixtures.appendingPathComponent(name).path).0
  }

  /// The largest difference and the mean signed difference (ours − Pillow's) in 8-bit levels.
  static func compare(_ ours: ImageBuffer, _ pillow: ImageBuffer) -> (largest: Double, mean: Double) {
    var largest = 0.0, total = 0.0
    for y in 0..<ours.height {
      for x in 0..<ours.width {
        for c in 0..<3 {
          let d = Double(ours[x, y][c] - pillow[x, y][c]) * 255
          largest = max(largest, Swift.abs(d))
          total += d
        }
      }
    }
    return (largest, total / Double(ours.width * ours.height * 3))
  }

  @Test func theyMatchPillow() throws {
    let input = try Self.read("input.png")
    let cases: [(Effect, String, Double)] = [
      (autoLevels(), "autocontrast.png", 1), (normalize(black: 2, white: 1), "autocontrast-2-1.png", 1),
      (equalize(), "equalize.png", 0),
    ]
    for (effect, file, tolerance) in cases {
      let pipeline = try Pipeline(effect)
      #expect(pipeline.steps.count == 1, "\(effect.name) is one reduction")
      let ours = try pipeline.apply(to: input)
      let (largest, mean) = Self.compare(ours, try Self.read(file))
      #expect(largest <= tolerance + 1e-4, "\(effect.name): \(largest) levels from Pillow's \(file)")
      // Pillow truncates its table: ours is never below it.
      #expect(mean >= -1e-9, "\(effect.name): mean difference \(mean)")
    }
  }

  /// CLAHE against OpenCV's (scripts/opencv-clahe-fixtures.py): the same
  /// levels, on a 31×19 image whose sides divide by neither 8 nor 4 (OpenCV's
  /// reflected border), with and without a clip limit, and one tile.
  @Test(arguments: [(8, 2), (4, 0), (3, 4), (1, 2)])
  func claheMatchesOpenCV(tiles: Int, clip: Int) throws {
    let input = try Self.read("input.png")
    let pipeline = try Pipeline(clahe(tiles: tiles, clipLimit: Float(clip)))
    #expect(pipeline.steps.count == 1, "one reduction")
    let (largest, _) = Self.compare(try pipeline.apply(to: input), try Self.read("clahe-\(tiles)-\(clip).png"))
    #expect(largest == 0, "CLAHE \(tiles)×\(tiles), clip \(clip): \(largest) levels from OpenCV's")
  }

  /// A worked example: one channel with levels 10, 20 and 30 (a third each)
  /// stretches to 0, 127.5 and 255; equalize maps them to Pillow's table
  /// (step = ⌊(2n/3)/255⌋).
  @Test func levelsStretchAndEqualizeSpreadAWorkedExample() throws {
    let input = try ImageBuffer(width: 3, height: 255, format: .rgba32f)
    for y in 0..<255 { for x in 0..<3 { input[x, y] = SIMD4(Float(10 + 10 * x) / 255, 0.5, 0.5, 1) } }
    let stretched = try Interpreter.apply(Reduction.levels(low: 0, high: 0), to: input)
    #expect(stretched[0, 0].x == 0 && stretched[2, 0].x == 1 && Swift.abs(stretched[1, 0].x - 0.5) < 1e-6)
    #expect(stretched[1, 0].y == 0.5, "a channel of one level is kept")
    let n = 255, step = (2 * n) / 255  // 2
    let equalized = try Interpreter.apply(Reduction.equalize, to: input)
    let expected = [step / 2 / step, (step / 2 + n) / step, (step / 2 + 2 * n) / step].map { Float(min($0, 255)) / 255 }
    #expect((0..<3).map { equalized[$0, 0].x } == expected)
  }

  /// The executor gives the reference's bits on transparent pixels too, and
  /// a chain with colour work around the reduction runs whole and streamed alike.
  @Test func theExecutorGivesTheReferencesBits() throws {
    let input = randomImage(37, 23, seed: 7, format: .rgba32f)
    for reduction in [Reduction.levels(low: 0, high: 0), .levels(low: 5, high: 3), .equalize, .clahe(Clahe(tilesX: 3, tilesY: 2, clipLimit: 1.5))] {
      let reference = try Interpreter.apply(reduction, to: input)
      for threads in [1, 2] {
        let ours = try CutExecutor.apply(.reduction(reduction), to: input, threads: threads)
        #expect(maxDifference(ours, reference) == 0, "\(reduction), \(threads) threads")
      }
    }
    let pipeline = try Pipeline(sepia(amount: 0.5) | equalize() | vignette())
    let image = randomImage(41, 29, seed: 3, format: .rgba8)
    let compiled = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil)
    let staged = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: [image]).copy(as: .rgba8)
    #expect(maxDifference(try compiled.run([image], threads: 2), staged) <= 1.0 / 255 + 1e-6)
    #expect(maxDifference(try compiled.run([image], threads: 2), try compiled.runStepsWhole([image], uniforms: [:], threads: 1)) == 0)
  }
}
