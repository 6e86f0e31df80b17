import FX
import Foundation
import Testing

/// Stages of another size (docs/design.md §4): exact maps against pixels
/// worked out by hand, resampling against a float64 reference written here
/// from the filters' published formulas and against Pillow's own output, and
/// the compiled pipeline against the staged interpreter at every target level.
@Suite struct GeometryTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/resize")

  /// A `w × h` rgba32f image whose pixel (x, y) holds (x, y, x·y, 1) / 100: every pixel tells where it came from.
  static func labelled(_ w: Int, _ h: Int) -> ImageBuffer {
    let img = try! ImageBuffer(width: w, height: h, format: .rgba32f)
    for y in 0..<h { for x in 0..<w { img[x, y] = SIMD4(Float(x), Float(y), Float(x * y), 100) / 100 } }
    return img
  }

  /// The pixels of `img` as (x, y) labels of ``labelled(_:_:)``, row by row.
  static func labels(_ img: ImageBuffer) -> [[String]] {
    (0..<img.height).map { y in
      (0..<img.width).map { x in
        let p = img[x, y] * 100
        return "\(Int(p.x.rounded()))\(Int(p.y.rounded()))"
      }
    }
  }

  static func run(_ effect: Effect, _ input: ImageBuffer, target: Target = .host) throws -> ImageBuffer {
    let pipeline = try Pipeline(effect)
    return try pipeline.compile(inputFormats: [input.format], outputFormat: .rgba32f, cache: nil, target: target).run([input])
  }

  /// The eight maps, on a 3 × 2 image whose pixels are a b c / d e f
  /// (labels "xy"), as a viewer shows each: worked out by hand.
  @Test func orientationsMoveEveryPixelWhereTheDefinitionSays() throws {
    let input = Self.labelled(3, 2)  // a=00 b=10 c=20 / d=01 e=11 f=21
    let expected: [(Effect, [[String]])] = [
      (rotate(degrees: 90), [["01", "00"], ["11", "10"], ["21", "20"]]),  // d a / e b / f c
      (rotate(degrees: 180), [["21", "11", "01"], ["20", "10", "00"]]),
      (rotate(degrees: -90), [["20", "21"], ["10", "11"], ["00", "01"]]),  // c f / b e / a d
      (flip(), [["01", "11", "21"], ["00", "10", "20"]]),
      (flop(), [["20", "10", "00"], ["21", "11", "01"]]),
      (transpose(), [["00", "01"], ["10", "11"], ["20", "21"]]),
      (transverse(), [["21", "20"], ["11", "10"], ["01", "00"]]),
      (rotate(degrees: 360), [["00", "10", "20"], ["01", "11", "21"]]),
    ]
    for (effect, rows) in expected {
      #expect(Self.labels(try Self.run(effect, input)) == rows, "\(effect)")
      let staged = try Interpreter.runStaged(try Pipeline(effect).pipelineGraph, inputs: [input])
      #expect(Self.labels(staged) == rows, "\(effect), interpreter")
    }
  }

  /// A quarter turn through the affine map (nearest) reads the same pixels
  /// as the exact index map: two mechanisms, one answer.
  @Test func affineQuarterTurnIsTheIndexMap() throws {
    let input = randomImage(7, 4, seed: 3, format: .rgba32f)
    let exact = try Self.run(rotate(degrees: 90), input)
    let mapped = try Self.run(affine(a: 0, b: -1, c: 1, d: 0, interpolation: .nearest), input)
    #expect(mapped.width == 4 && mapped.height == 7)
    #expect(maxDifference(exact, mapped) == 0)
    // 30°: the bounding box of the turned rectangle, rounded outward.
    let turned = try Self.run(rotate(degrees: 30), input)
    let (c, s) = (cos(Double.pi / 6), sin(Double.pi / 6))
    #expect(turned.width == Int((7 * c + 4 * s - 2e-6).rounded(.up)) && turned.height == Int((7 * s + 4 * c - 2e-6).rounded(.up)))
  }

  /// ±θ give one size (the box of the turned extent, centred), as libvips' rotate.
  @Test func oppositeAnglesGiveOneSize() throws {
    let input = randomImage(64, 43, seed: 2, format: .rgba32f)
    let (a, b) = (try Self.run(rotate(degrees: 12), input), try Self.run(rotate(degrees: -12), input))
    #expect(a.width == b.width && a.height == b.height && a.width == 72 && a.height == 56)
  }

  @Test func cropTakesTheRectangleAndRefusesOneOutside() throws {
    let input = Self.labelled(6, 5)
    #expect(Self.labels(try Self.run(crop(x: 2, y: 1, width: 3, height: 2), input)) == [["21", "31", "41"], ["22", "32", "42"]])
    // Widths ≤ 0 reach to that many pixels before the far edge: 1 px off every side.
    #expect(
      Self.labels(try Self.run(crop(x: 1, y: 1, width: -1, height: -1), input)) == [
        ["11", "21", "31", "41"], ["12", "22", "32", "42"], ["13", "23", "33", "43"],
      ])
    #expect(Self.labels(try Self.run(crop(width: 2, height: 1, gravity: .bottomRight), input)) == [["44", "54"]])
    #expect(Self.labels(try Self.run(crop(aspect: 1, gravity: .center), input)) == (0..<5).map { y in (0..<5).map { "\($0)\(y)" } })
    #expect {
      try Self.run(crop(x: 4, y: 0, width: 3, height: 2), input)
    } throws: { "\($0)".contains("does not fit a 6×5 image") }
  }

  @Test func extendFillsTheMarginsAsAsked() throws {
    let input = Self.labelled(3, 1)
    let edge = try Self.run(extend(left: 2, with: .edge), input)
    #expect(Self.labels(edge) == [["00", "00", "00", "10", "20"]])
    let mirror = try Self.run(extend(right: 4, with: .mirror), input)
    #expect(Self.labels(mirror) == [["00", "10", "20", "20", "10", "00", "00"]])
    let colour = try Self.run(extend(top: 1, with: .color, color: Color(1, 0, 0, 0.5)), input)
    #expect(colour.height == 2 && colour[1, 0] == SIMD4(0.5, 0, 0, 0.5) && colour[1, 1] == input[1, 0])
  }

  @Test func sizesFollowTheFitModes() throws {
    let input = try ImageBuffer(width: 400, height: 300, format: .rgba8)
    func size(_ e: Effect) throws -> String {
      let out = try Pipeline(e).apply(to: input, threads: 1)
      return "\(out.width)×\(out.height)"
    }
    #expect(try size(resize(width: 200)) == "200×150")
    #expect(try size(resize(height: 100)) == "133×100")
    #expect(try size(resize(width: 200, height: 200, fit: .cover)) == "200×200")
    #expect(try size(resize(width: 200, height: 200, fit: .contain)) == "200×200")
    #expect(try size(resize(width: 200, height: 200, fit: .inside)) == "200×150")
    #expect(try size(resize(width: 200, height: 200, fit: .outside)) == "267×200")
    #expect(try size(resize(width: 200, height: 200, fit: .fill)) == "200×200")
    #expect(try size(resize(scale: 0.25)) == "100×75")
    #expect(try size(thumbnail(size: 100)) == "100×75")
    #expect(try size(thumbnail(size: 1000)) == "400×300")  // never enlarged
    #expect(throws: GraphError.self) { try Pipeline(resize(width: 0)) }
  }

  /// contain's margins are the background; cover keeps the middle.
  @Test func containPadsAndCoverCrops() throws {
    let input = opaqueImage(8, 4, seed: 5, format: .rgba32f)
    let contained = try Self.run(resize(width: 4, height: 4, fit: .contain, filter: .box, background: Color(0, 0, 1, 1)), input)
    #expect(contained[0, 0] == SIMD4(0, 0, 1, 1) && contained[3, 3] == SIMD4(0, 0, 1, 1))
    #expect(contained[0, 1].w == 1 && contained[0, 1] != SIMD4(0, 0, 1, 1))
    let covered = try Self.run(resize(width: 4, height: 4, fit: .cover, filter: .nearest), input)
    // 8×4 → outside 8×4 (no change), then the middle 4×4.
    for y in 0..<4 { for x in 0..<4 { #expect(covered[x, y] == input[x + 2, y]) } }
  }

  /// Every filter, shrinking and growing, against the float64 reference below
  /// (within 1e-5), and bit for bit against the staged interpreter.
  @Test(arguments: ResampleFilter.allCases)
  func resampleMatchesTheFloat64Reference(filter: ResampleFilter) throws {
    let input = randomImage(23, 17, seed: 9, format: .rgba32f)
    for (w, h) in [(9, 7), (41, 29), (23, 5), (3, 40)] {
      let effect = resize(width: w, height: h, fit: .fill, filter: filter)
      let expected = ResampleReference.resize(input, width: w, height: h, filter: filter)
      let fast = try Self.run(effect, input)
      let staged = try Interpreter.runStaged(try Pipeline(effect).pipelineGraph, inputs: [input])
      #expect(maxDifference(fast, expected) <= 1e-5, "\(filter) \(w)×\(h)")
      // The definition's fp32 evaluation: the fast path's bits exactly.
      #expect(maxDifference(fast, staged) == 0, "\(filter) \(w)×\(h), interpreter")
    }
  }

  /// Pillow's resize of the same 8-bit image, within 1 level: every filter
  /// Pillow has on mid-range colours (its clamp between passes never acts),
  /// and on black-and-white blocks the filters that cannot overshoot.
  @Test func resampleAgreesWithPillow() throws {
    let filters: [(String, ResampleFilter)] = [
      ("nearest", .nearest), ("box", .box), ("linear", .linear), ("cubic", .cubic), ("lanczos3", .lanczos3),
    ]
    for pattern in ["smooth", "hard"] {
      let (input, _) = try ImageFile.read(Self.fixtures.appendingPathComponent("\(pattern).png").path)
      for (name, filter) in filters where pattern == "smooth" || [.nearest, .box, .linear].contains(filter) {
        for (w, h) in [(9, 7), (41, 29), (23, 6)] {
          let (pillow, _) = try ImageFile.read(Self.fixtures.appendingPathComponent("\(pattern)-\(name)-\(w)x\(h).png").path)
          let ours = try Pipeline(resize(width: w, height: h, fit: .fill, filter: filter)).apply(to: input, threads: 1)
          #expect(maxDifference(ours, pillow) <= 1.0 / 255 + 1e-6, "\(pattern) \(name) \(w)×\(h)")
        }
      }
    }
  }

  /// Colour work on both sides of a resize and a crop, compiled at every
  /// level this machine runs, against the staged interpreter.
  @Test(arguments: Target.runnableLevels.map(\.name))
  func compiledChainsAgreeWithTheInterpreter(level: String) throws {
    let target = try Target.named(level)
    let input = randomImage(61, 37, seed: 4, format: .rgba8)
    let chains: [Effect] = [
      sepia() | resize(width: 29, height: 50, fit: .fill, filter: .lanczos3) | sharpen(amount: 2) | vignette(),
      crop(x: 3, y: 2, width: -5, height: -1) | gaussianBlur(sigma: 2) | rotate(degrees: 90) | saturation(amount: 2),
      extend(top: 3, left: 5, with: .mirror) | resize(scale: 0.37, filter: .mitchell) | flop() | contrast(amount: 1.5),
      rotate(degrees: 33) | resize(width: 20, height: 20, fit: .contain, filter: .cubic),
    ]
    for chain in chains {
      let pipeline = try Pipeline(chain)
      let compiled = try pipeline.compile(inputFormats: [.rgba8], outputFormat: .rgba8, cache: nil, target: target)
      let ours = try compiled.run([input], threads: 2)
      let staged = try Interpreter.runStaged(pipeline.pipelineGraph, inputs: [input]).copy(as: .rgba8)
      #expect(ours.width == staged.width && ours.height == staged.height, "\(chain)")
      #expect(maxDifference(ours, staged) <= 1.0 / 255 + 1e-6, "\(level): \(chain)")
    }
  }

  /// Shrink-on-load: the largest JPEG factor whose reduced image still
  /// covers the thumbnail, only for a chain that starts with one.
  @Test func shrinkOnLoadTakesTheLargestFactorThatStillCoversTheResult() throws {
    let thumb = try Pipeline(thumbnail(size: 100))
    #expect(thumb.shrinkOnLoad(width: 800, height: 600) == 8)  // 100×75 from 100×75
    #expect(thumb.shrinkOnLoad(width: 799, height: 600) == 8)  // ⌈799/8⌉ = 100: still covers 100×75
    #expect(thumb.shrinkOnLoad(width: 790, height: 600) == 4)  // ⌈790/8⌉ = 99 < 100
    #expect(thumb.shrinkOnLoad(width: 300, height: 200) == 2)
    #expect(thumb.shrinkOnLoad(width: 150, height: 100) == 1)
    #expect(try Pipeline(sepia() | thumbnail(size: 100)).shrinkOnLoad(width: 800, height: 600) == 1)
    #expect(try Pipeline(resize(width: 100)).shrinkOnLoad(width: 800, height: 600) == 1)
    #expect(try Pipeline(resize(width: 100, shrinkOnLoad: true)).shrinkOnLoad(width: 800, height: 600) == 8)
  }

  /// A JPEG thumbnailed from its file (decoded at 1/4, streamed) has the
  /// thumbnail's size and stays within a few levels of the same thumbnail of
  /// the whole decoded image: DCT scaling is a different input, not a different effect.
  @Test func aThumbnailShrinksOnLoadAndLooksTheSame() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fxc-thumb-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let photo = try ImageBuffer(width: 640, height: 480, format: .rgba8)
    for y in 0..<480 {
      for x in 0..<640 {
        photo[x, y] = SIMD4(0.5 + 0.4 * sin(Float(x) / 40), 0.5 + 0.4 * cos(Float(y) / 30), Float(x + y) / 1120, 1)
      }
    }
    let input = dir.appendingPathComponent("in.jpg"), output = dir.appendingPathComponent("out.png")
    try ImageFile.write(photo, to: input.path, jpegQuality: 95)
    let pipeline = try Pipeline(thumbnail(size: 160))
    #expect(pipeline.shrinkOnLoad(width: 640, height: 480) == 4)
    let applied = try pipeline.apply(from: input, to: output)
    #expect(applied.streamed)
    let (small, _) = try ImageFile.read(output.path)
    #expect(small.width == 160 && small.height == 120)
    let (decoded, _) = try ImageFile.read(input.path)
    let whole = try pipeline.apply(to: decoded, threads: 1)
    #expect(maxDifference(small, whole) <= 6.0 / 255, "\(maxDifference(small, whole) * 255) levels")
  }

  /// What the cut cannot express is an error naming it, never a wrong graph.
  @Test func aGraphReadingBothSidesOfAResizeIsRefused() throws {
    let both = Effect("both") { input in
      let small = resize(width: 10)(input)
      return Image.combine("mix", [small, input]) { p, l in l[0].sample(p) + l[1].sample(p) }
    }
    #expect {
      try Pipeline(both)
    } throws: { "\($0)".contains("also reads the image before it") }
  }
}

/// Resampling as docs/design.md §4 defines it, written anew from the
/// kernels' formulas (Keys 1981 with a = −½; Mitchell–Netravali 1988 with
/// B = C = ⅓; Lanczos; Pillow's window `[⌊c − aσ + ½⌋, ⌊c + aσ + ½⌋)`), in
/// Double, one axis then the other, with no clamp between.
enum ResampleReference {
  static func kernel(_ f: ResampleFilter, _ x: Double) -> Double {
    let t = abs(x)
    func sinc(_ v: Double) -> Double { v == 0 ? 1 : sin(.pi * v) / (.pi * v) }
    switch f {
    case .nearest, .box: return (x > -0.5 && x <= 0.5) ? 1 : 0
    case .linear: return max(0, 1 - t)
    case .cubic: return t < 1 ? 1.5 * t * t * t - 2.5 * t * t + 1 : t < 2 ? -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2 : 0
    case .mitchell:
      return t < 1 ? (7 * t * t * t - 12 * t * t + 16.0 / 3) / 6 : t < 2 ? (-7.0 / 3 * t * t * t + 12 * t * t - 20 * t + 32.0 / 3) / 6 : 0
    case .lanczos2: return t < 2 ? sinc(x) * sinc(x / 2) : 0
    case .lanczos3: return t < 3 ? sinc(x) * sinc(x / 3) : 0
    }
  }

  static let support: [ResampleFilter: Double] = [.box: 0.5, .linear: 1, .cubic: 2, .mitchell: 2, .lanczos2: 2, .lanczos3: 3]

  /// Weights of output `i` over input indices.
  static func weights(_ f: ResampleFilter, _ i: Int, _ n: Int, _ m: Int) -> [(Int, Double)] {
    let s = Double(n) / Double(m), c = (Double(i) + 0.5) * s
    if f == .nearest { return [(min(Int(c), n - 1), 1)] }
    let sigma = max(s, 1), reach = support[f]! * sigma
    let taps = (max(0, Int(floor(c - reach + 0.5)))..<min(n, Int(floor(c + reach + 0.5)))).map { ($0, kernel(f, (Double($0) + 0.5 - c) / sigma)) }
    let sum = taps.reduce(0) { $0 + $1.1 }
    return taps.map { ($0.0, $0.1 / sum) }
  }

  static func resize(_ image: ImageBuffer, width: Int, height: Int, filter: ResampleFilter) -> ImageBuffer {
    var rows = [[SIMD4<Double>]](repeating: [], count: image.height)
    for y in 0..<image.height {
      rows[y] = (0..<width).map { i in
        weights(filter, i, image.width, width).reduce(SIMD4<Double>()) { $0 + SIMD4<Double>(image[$1.0, y]) * $1.1 }
      }
    }
    let out = try! ImageBuffer(width: width, height: height, format: .rgba32f)
    for j in 0..<height {
      let w = weights(filter, j, image.height, height)
      for i in 0..<width { out[i, j] = SIMD4<Float>(w.reduce(SIMD4<Double>()) { $0 + rows[$1.0][i] * $1.1 }) }
    }
    return out
  }
}
