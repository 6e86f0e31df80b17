import FX
import Foundation
import Testing

private func resolve(_ source: String, uniforms: Set<String> = []) throws -> ResolvedChain {
  try ChainSyntax.parse(source).resolve(uniforms: uniforms)
}

/// The error `source` fails to resolve with, or `nil` when it resolves. It must parse.
private func failure(_ source: String, uniforms: Set<String> = []) throws -> ChainSyntaxError? {
  let chain = try ChainSyntax.parse(source)
  do throws(ChainSyntaxError) {
    _ = try chain.resolve(uniforms: uniforms)
    return nil
  } catch {
    return error
  }
}

/// Checks that `source` fails with exactly `message` at `column`.
private func expectFailure(
  _ source: String, uniforms: Set<String> = [], _ message: String, at column: Int,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  let error = try failure(source, uniforms: uniforms)
  #expect(
    error == ChainSyntaxError(message: message, column: column, source: source), sourceLocation: sourceLocation)
}

/// Runs `body` on a thread with a 64 MiB stack. Lowering `gaussianBlur(sigma: 10)`
/// (3721 taps summed one by one) recurses deeper than a debug build's 8 MiB
/// allow, because `EffectGraph`'s lowering is recursive; the range tests need
/// that bound, and this file is not the place to test stack depth.
private func withLargeStack<T>(_ body: @escaping () throws -> T) throws -> T {
  let outcome = Outcome<T>()
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    outcome.result = Result(catching: body)
    done.signal()
  }
  thread.stackSize = 64 << 20
  thread.start()
  done.wait()
  return try outcome.result!.get()
}

/// What the large-stack thread hands back; the semaphore orders the write before the read.
private final class Outcome<T>: @unchecked Sendable {
  var result: Result<T, any Error>?
}

private let effectList = Catalogue.names.joined(separator: ", ")

@Suite("Chain resolution: what resolves")
struct ChainResolutionTests {
  @Test func twoEffects() throws {
    let chain = try resolve("sepia | vignette(intensity: 0.8)")
    #expect(chain.calls.map(\.spec.name) == ["sepia", "vignette"])
    #expect(chain.calls.map(\.column) == [1, 9])
    #expect(chain.calls.map(\.values) == [[1], [0.8, 0.75]])
    #expect(chain.calls.allSatisfy { $0.params.allSatisfy { !$0.isUniform } })
    #expect(chain.uniforms.isEmpty)
    #expect(chain.effect.name == "sepia(amount: 1) | vignette(intensity: 0.8, radius: 0.75)")
    let graph = try EffectGraph(output: chain.effect(Image.input()))
    #expect(graph.stages.map(\.name) == ["sepia(amount: 1)", "vignette(intensity: 0.8, radius: 0.75)"])
    #expect(graph.uniforms.isEmpty)
  }

  @Test func positionalArguments() throws {
    #expect(try resolve("gaussianBlur(2)").effect.name == "gaussianBlur(sigma: 2)")
    #expect(try resolve("unsharpMask(1, 3)").calls[0].values == [1, 3])
    #expect(try resolve("vignette(0.5, radius: 1)").calls[0].values == [0.5, 1])
    #expect(try resolve("pixelate(blockSize: 8)").calls[0].values == [1, 8])
    #expect(try resolve("sepia()").effect.name == sepia().name)
  }

  @Test func boundsAreAccepted() throws {
    #expect(try resolve("brightness(-1) | brightness(1)").calls.map(\.values) == [[-1], [1]])
    #expect(try resolve("vignette(radius: 1.5) | wave(wavelength: 1)").calls.map(\.values) == [[1, 1.5], [10, 1]])
  }

  /// Every number parameter's documented bounds, written as the shortest
  /// decimal (`0.1`, which as a Double lies just below Float(0.1)), resolve;
  /// the next Float beyond each bound does not.
  @Test func everyDocumentedBoundResolves() throws {
    for spec in Catalogue.effects {
      for p in spec.parameters where p.isNumber {
        for bound in [p.range.lowerBound, p.range.upperBound] {
          let text = "\(spec.name)(\(p.name): \(bound))"
          #expect(throws: Never.self, "\(text)") { try resolve(text) }
        }
        let outside = [p.range.lowerBound.nextDown, p.range.upperBound.nextUp]
        for value in outside {
          #expect(p.rejection(of: Double(value), in: spec.name) != nil, "\(spec.name).\(p.name) = \(value)")
        }
      }
    }
  }

  @Test func listedParametersBecomeUniforms() throws {
    let chain = try resolve("sepia | vignette(intensity: 0.8)", uniforms: ["vignette.intensity", "sepia.amount"])
    #expect(chain.uniforms.map(\.name) == ["sepia.amount", "vignette.intensity"])
    let intensity = try #require(chain.uniform(named: "vignette.intensity"))
    #expect(intensity.param.isUniform && intensity.param.value == 0.8)
    #expect(intensity.effect.name == "vignette" && intensity.parameter.name == "intensity")
    #expect(chain.calls[1].params[0] === intensity.param)
    #expect(!chain.calls[1].params[1].isUniform)
    #expect(chain.effect.name == "sepia(amount: uniform) | vignette(intensity: uniform, radius: 0.75)")
    let graph = try EffectGraph(output: chain.effect(Image.input()))
    #expect(Set(graph.uniforms) == Set(chain.uniforms.map(\.param)))
  }

  @Test func repeatedEffectsShareOneUniform() throws {
    let chain = try resolve("vignette | vignette(intensity: 0.3)", uniforms: ["vignette.intensity"])
    #expect(chain.uniforms.count == 1)
    #expect(chain.calls[0].params[0] === chain.calls[1].params[0])
    #expect(chain.uniforms[0].param.value == 1)
    #expect(try EffectGraph(output: chain.effect(Image.input())).uniforms.count == 1)
  }
}

@Suite("Chain resolution: what fails, with the message and column")
struct ChainResolutionErrorTests {
  @Test func unknownEffect() throws {
    try expectFailure(
      "sepai", "unknown effect 'sepai'; did you mean 'sepia'? (effects: \(effectList))", at: 1)
    try expectFailure(
      "sepia | vignete(0.5)", "unknown effect 'vignete'; did you mean 'vignette'? (effects: \(effectList))", at: 9)
    try expectFailure("sepia | smear", "unknown effect 'smear' (effects: \(effectList))", at: 9)
  }

  @Test func unknownLabel() throws {
    try expectFailure(
      "vignette(intensty: 0.5)",
      "'vignette' has no parameter 'intensty'; did you mean 'intensity'? (parameters: intensity, radius)", at: 10)
    try expectFailure(
      "sepia | wave(10, speed: 2)", "'wave' has no parameter 'speed' (parameters: amplitude, wavelength)", at: 18)
  }

  @Test func duplicateArgument() throws {
    try expectFailure(
      "vignette(intensity: 0.5, intensity: 0.6)",
      "parameter 'intensity' of 'vignette' is given twice (first at column 10)", at: 26)
    try expectFailure(
      "gaussianBlur(2, sigma: 3)", "parameter 'sigma' of 'gaussianBlur' is given twice (first at column 14)",
      at: 17)
  }

  @Test func tooManyArguments() throws {
    try expectFailure("sepia(0.5, 0.6)", "too many arguments: 'sepia' takes 1 argument (amount)", at: 12)
    try expectFailure(
      "vignette(1, 1, 1)", "too many arguments: 'vignette' takes 2 arguments (intensity, radius)", at: 16)
  }

  @Test func unlabelledAfterLabelled() throws {
    try expectFailure(
      "vignette(radius: 1, 0.5)",
      "an unlabelled argument cannot follow a labelled one; add its label (parameters: intensity, radius)", at: 21)
  }

  @Test func wrongKindOfValue() throws {
    try expectFailure(
      "sepia(amount: warm)", "parameter 'amount' of 'sepia' must be a finite number in 0…1, got identifier 'warm'",
      at: 7)
    try expectFailure(
      "sepia(#ff8000)", "parameter 'amount' of 'sepia' must be a finite number in 0…1, got color #ff8000", at: 7)
  }

  @Test func nonFiniteValues() throws {
    try expectFailure(
      "sepia(amount: nan)", "parameter 'amount' of 'sepia' must be a finite number in 0…1, got nan", at: 7)
    try expectFailure("sepia(-inf)", "parameter 'amount' of 'sepia' must be a finite number in 0…1, got -inf", at: 7)
    try expectFailure(
      "wave(amplitude: infinity)",
      "parameter 'amplitude' of 'wave' must be a finite number in 0…1000 px, got inf", at: 6)
  }

  @Test func outOfRangeValues() throws {
    try expectFailure(
      "sepia | vignette(radius: 2)", "parameter 'radius' of 'vignette' must be a finite number in 0…1.5, got 2",
      at: 18)
    try expectFailure(
      "brightness(-1.5)", "parameter 'amount' of 'brightness' must be a finite number in -1…1, got -1.5", at: 12)
    try expectFailure(
      "wave(wavelength: 0.5)", "parameter 'wavelength' of 'wave' must be a finite number in 1…10000 px, got 0.5",
      at: 6)
    try expectFailure(
      "gaussianBlur(200.5)", "parameter 'sigma' of 'gaussianBlur' must be a finite number in 0…200 px, got 200.5",
      at: 14)
  }

  @Test func badUniformNames() throws {
    try expectFailure(
      "sepia | vignette", uniforms: ["vignette.intensty"],
      "uniform 'vignette.intensty': 'vignette' has no parameter 'intensty'; did you mean 'intensity'? (parameters: intensity, radius)",
      at: 9)
    try expectFailure(
      "sepia | vignette", uniforms: ["vignete.radius"],
      "uniform 'vignete.radius': the chain has no effect 'vignete'; did you mean 'vignette'? (effects: sepia, vignette)",
      at: 1)
    try expectFailure(
      "sepia", uniforms: ["intensity"],
      "uniform 'intensity' must be named 'effect.parameter', like 'vignette.intensity'",
      at: 1)
  }

  @Test func errorsRenderWithACaret() throws {
    let error = try #require(try failure("sepia | vignette(radius: 2)"))
    #expect(
      error.description == """
        error: parameter 'radius' of 'vignette' must be a finite number in 0…1.5, got 2
          sepia | vignette(radius: 2)
                           ^
        """)
  }
}

@Suite("Catalogue")
struct CatalogueTests {
  /// Every effect function called with no arguments, by catalogue name.
  static let functionDefaults: [String: Effect] = [
    "sepia": sepia(), "brightness": brightness(), "contrast": contrast(), "saturation": saturation(),
    "hueRotate": hueRotate(), "exposure": exposure(), "gamma": gamma(), "colorMatrix": colorMatrix(),
    "invert": invert(), "grayscale": grayscale(), "threshold": threshold(), "posterize": posterize(),
    "solarize": solarize(), "opacity": opacity(), "srgbToLinear": srgbToLinear(), "linearToSrgb": linearToSrgb(),
    "gradientMap": gradientMap(), "dither": dither(), "scanlines": scanlines(), "grain": grain(),
    "vignette": vignette(), "checkerboard": checkerboard(), "linearGradient": linearGradient(), "noise": noise(),
    "wave": wave(), "swirl": swirl(), "ripple": ripple(), "bulge": bulge(), "kaleidoscope": kaleidoscope(),
    "pixelate": pixelate(), "gaussianBlur": gaussianBlur(), "blur": blur(), "boxBlur": boxBlur(), "motionBlur": motionBlur(),
    "progressiveBlur": progressiveBlur(), "unsharpMask": unsharpMask(), "sharpen": sharpen(),
    "edgeDetect": edgeDetect(), "sketch": sketch(), "emboss": emboss(), "halftone": halftone(), "crt": crt(),
    "chromaticAberration": chromaticAberration(), "domainWarp": domainWarp(), "dissolve": dissolve(),
    "fade": fade(), "wipe": wipe(), "slide": slide(), "iris": iris(), "pixelateTransition": pixelateTransition(),
    "swirlTransition": swirlTransition(), "resize": resize(scale: 0.5), "thumbnail": thumbnail(size: 256),
    "crop": crop(x: 0, y: 0, width: 0, height: 0), "rotate": rotate(degrees: 90), "flip": flip(), "flop": flop(),
    "transpose": transpose(), "transverse": transverse(), "extend": extend(), "composite": composite(),
    "convolve": convolve(kernel: [0, 0, 0, 0, 1, 0, 0, 0, 0]), "autoLevels": autoLevels(), "normalize": normalize(),
    "equalize": equalize(),
    "clahe": clahe(),
  ]

  @Test func coversEveryEffectFunction() {
    #expect(Set(Catalogue.names) == Set(Self.functionDefaults.keys))
    #expect(Set(Catalogue.names).count == Catalogue.effects.count)
    #expect(Catalogue.spec(named: "vignette")?.parameters.map(\.name) == ["intensity", "radius"])
    #expect(Catalogue.spec(named: "Vignette") == nil)
  }

  @Test(arguments: Catalogue.effects.map(\.name))
  func defaultsAgreeWithTheFunction(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let function = try #require(Self.functionDefaults[name])
    #expect(spec.make(spec.parameters.map { Expr($0.defaultValue) }).name == function.name)
    #expect(spec.makeDefault().name == function.name)
    // Resolution builds the same effect from constant `Param`s.
    #expect(try resolve(name).effect.name == function.name)
    for parameter in spec.parameters {
      #expect(parameter.range.contains(parameter.defaultValue), "\(name).\(parameter.name)")
    }
  }

  /// The stage programs `spec` compiles to with `parameter` at `value`, the others at their defaults.
  private func programs(_ spec: EffectSpec, _ parameter: Int, _ value: Float) throws -> [String] {
    try withLargeStack {
      var values = spec.parameters.map { Expr($0.defaultValue) }
      values[parameter] = Expr(value)
      // A cut pipeline (a blur's scans past the loop's crossover): its graphs' programs and its cuts.
      let pipeline = try PipelineGraph(output: spec.make(values)(Image.input()))
      return pipeline.graphs.flatMap { $0.stages.map(\.program.description) } + pipeline.steps.map { "\($0.cut)" }
    }
  }

  /// The functions clamp a constant into their documented range, so a value past
  /// either bound compiles to the same kernel as the bound, and a value inside
  /// to a different one: the catalogue's ranges are the functions'. Angles and
  /// times fold instead: a value and the same plus one period compile alike.
  /// (Geometry stages take sizes, which are not clamped: a size out of range
  /// is an error; ``geometryRangesAreErrors``.)
  @Test(arguments: Catalogue.effects.filter { !$0.changesSize }.map(\.name))
  func rangesAgreeWithTheFunction(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    for (index, parameter) in spec.parameters.enumerated() where parameter.isNumber {
      let low = parameter.range.lowerBound
      let high = parameter.range.upperBound
      let label = "\(name).\(parameter.name)"
      if let period = parameter.period {
        let value = (low + high) / 2 + period / 8
        #expect(try programs(spec, index, value) == programs(spec, index, value + period), "\(label) folds")
        #expect(try programs(spec, index, value) == programs(spec, index, value - 2 * period), "\(label) folds")
        #expect(try programs(spec, index, value) != programs(spec, index, value + period / 4), "\(label) is used")
        continue
      }
      #expect(try programs(spec, index, low - 1) == programs(spec, index, low), "\(label) below")
      #expect(try programs(spec, index, high + 1) == programs(spec, index, high), "\(label) above")
      let inside = try programs(spec, index, (low + high) / 2)
      #expect(try inside != programs(spec, index, low), "\(label) lower bound")
      #expect(try inside != programs(spec, index, high), "\(label) upper bound")
    }
  }

  /// A size in pixels is whole: `resize(0.25)` (meant as a scale) is an error saying so, not a silent halving.
  @Test func fractionalPixelsAreErrors() throws {
    let chain = try resolve("resize(0.25)")
    #expect {
      try Pipeline(chain.effect)
    } throws: { "\($0)".contains("width is a whole number of pixels, got 0.25 (for a scale: resize(scale: 0.25))") }
  }

  /// A size past the function's limits is an error naming the effect, not a clamped size.
  @Test func geometryRangesAreErrors() throws {
    #expect(throws: GraphError.self) { try Pipeline(resize(width: 65_536)) }
    #expect(throws: GraphError.self) { try Pipeline(resize(scale: 65)) }
    #expect(throws: GraphError.self) { try Pipeline(thumbnail(size: 0)) }
    #expect(throws: GraphError.self) { try Pipeline(extend(top: -1)) }
    #expect(throws: GraphError.self) { try Pipeline(crop(aspect: 0)) }
  }

  @Test(arguments: Catalogue.effects.map(\.name))
  func everyEntryBuildsAGraph(_ name: String) throws {
    let spec = try #require(Catalogue.spec(named: name))
    let defaults = spec.parameters.map { Expr($0.defaultValue) }
    let pipeline = try PipelineGraph(output: spec.make(defaults)(Image.input()))
    if spec.changesSize {
      #expect(pipeline.changesSize, "\(name)")
      return
    }
    if pipeline.hasCuts {
      // A blur whose example takes scans, or a reduction (docs/design.md §4): a cut, never a change of size.
      let cuts = pipeline.steps.allSatisfy {
        switch $0.cut {
        case .scan, .reduction: true
        case .geometry: false
        }
      }
      #expect(!pipeline.changesSize && cuts, "\(name)")
      return
    }
    let graph = try EffectGraph(output: spec.make(defaults)(Image.input()))
    #expect(!graph.stages.isEmpty)
    #expect(graph.stages.last?.kind == spec.kind)
    // With every parameter that may be a uniform made one.
    let uniforms = Set(spec.parameters.filter(\.allowsUniform).map { "\(name).\($0.name)" })
    let chain = try resolve(name, uniforms: uniforms)
    let uniformGraph = try EffectGraph(output: chain.effect(Image.input()))
    #expect(Set(uniformGraph.uniforms) == Set(chain.uniforms.map(\.param)))
    #expect(uniformGraph.uniforms.count == uniforms.count)
  }

  @Test func listingShowsEveryEffectAndParameter() {
    let listing = effectsListing()
    let blocks = listing.split(separator: "\n\n").map { $0.split(separator: "\n").map(String.init) }
    #expect(blocks.count == Catalogue.effects.count)
    for (spec, lines) in zip(Catalogue.effects, blocks) {
      let header = lines[0]
      #expect(header.hasPrefix(spec.name + " "), "\(spec.name)")
      #expect(header.contains(spec.kindName), "\(spec.name)")
      #expect(header.hasSuffix(spec.summary), "\(spec.name)")
      #expect(lines.count == 1 + spec.parameters.count, "\(spec.name)")
      for (parameter, line) in zip(spec.parameters, lines.dropFirst()) {
        #expect(line.hasPrefix("  \(parameter.name) ") && line.contains(parameter.summary), "\(spec.name).\(parameter.name)")
        #expect(line.contains(" \(parameter.rangeDescription) "), "\(spec.name).\(parameter.name)")
        #expect(line.contains("default \(parameter.defaultDescription) "), "\(spec.name).\(parameter.name)")
      }
    }
    #expect(listing.contains("1…10000 px"))
    #expect(listing.contains("default 0.75"))
    #expect(listing.contains("standard deviation; 0 = unchanged"))
    #expect(listing.contains("default #ff8000"))
    #expect(listing.contains("default topToBottom"))
    #expect(listing.contains("linear|easeIn|easeOut|smoothStep"))
    #expect(listing.contains("-360…360°"))
  }

  @Test func listingColumnsAlign() {
    let parameterLines = effectsListing().split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect(parameterLines.count == Catalogue.effects.map(\.parameters.count).reduce(0, +))
    let defaultColumns = Set(
      parameterLines.map { $0.distance(from: $0.startIndex, to: $0.range(of: "default ")!.lowerBound) })
    #expect(defaultColumns.count == 1)
    let vignette = effectsListing().split(separator: "\n\n").first { $0.hasPrefix("vignette ") }
    #expect(
      vignette.map(String.init) == """
        vignette             color       Darkens toward the corners with a smoothstep falloff.
          intensity          default 1     0…1                  darkening at the corners
          radius             default 0.75  0…1.5                centre of the falloff, in half-diagonals from the centre
        """)
  }
}

@Suite("Chain resolution: colors, choices and color lists")
struct ChainResolutionKindTests {
  @Test func colorsAndChoices() throws {
    let chain = try resolve("dissolve(0.3, edge: #00ff80) | progressiveBlur(direction: bottomToTop, curve: easeIn)")
    guard case .color(let edge) = chain.calls[0].arguments[2] else {
      Issue.record("edge is not a color")
      return
    }
    #expect(edge == Color(0, 1, 128 / 255))
    #expect(chain.calls[0].effect.name == "dissolve(progress: 0.3, grain: 44, edge: #00ff80)")
    #expect(chain.calls[1].effect.name.contains("direction: bottomToTop") && chain.calls[1].effect.name.contains("curve: easeIn"))
    #expect(try resolve("dissolve").calls[0].effect.name == dissolve().name)
    #expect(
      try resolve("wipe(0.2, trailingToLeading, 3)").calls[0].effect.name == wipe(progress: 0.2, direction: .trailingToLeading, softness: 3).name)
  }

  @Test func colorLists() throws {
    func colors(_ source: String) throws -> [Color] {
      guard case .colors(let list) = try resolve(source).calls[0].arguments[0] else { return [] }
      return list
    }
    #expect(try colors("gradientMap(#000000, #ff0000, #ffffff, amount: 0.5)") == [.black, Color(1, 0, 0), .white])
    #expect(try colors("gradientMap(colors: #ff0000, colors: #0000ff)") == [Color(1, 0, 0), Color(0, 0, 1)])
    #expect(try colors("gradientMap(#ff0000)") == [Color(1, 0, 0)])
    #expect(try colors("gradientMap") == Color.sunset)
    // An unlabelled number after the list (or instead of it) is the next parameter.
    let chain = try resolve("gradientMap(#ff0000, #00ff00, 0.25)")
    #expect(chain.calls[0].values[1] == 0.25)
    #expect(try resolve("gradientMap(0.5)").calls[0].values[1] == 0.5)
    #expect(try colors("gradientMap(0.5)") == Color.sunset)
    #expect(
      try resolve("gradientMap(#ff0000, #00ff00, 0.25)").effect.name
        == gradientMap(colors: [Color(1, 0, 0), Color(0, 1, 0)], amount: 0.25).name)
  }

  @Test func wrongKinds() throws {
    try expectFailure(
      "wipe(direction: up)",
      "parameter 'direction' of 'wipe' must be one of topToBottom, bottomToTop, leadingToTrailing, trailingToLeading, got 'up'",
      at: 6)
    try expectFailure(
      "progressiveBlur(curve: easIn)",
      "parameter 'curve' of 'progressiveBlur' must be one of linear, easeIn, easeOut, smoothStep, got 'easIn'; did you mean 'easeIn'?",
      at: 17)
    try expectFailure(
      "wipe(0.5, 3)",
      "parameter 'direction' of 'wipe' must be one of topToBottom, bottomToTop, leadingToTrailing, trailingToLeading, got 3",
      at: 11)
    try expectFailure(
      "dissolve(edge: 3)", "parameter 'edge' of 'dissolve' must be a color like #ff8000 or #ff800080, got 3", at: 10)
    try expectFailure(
      "dissolve(edge: warm)",
      "parameter 'edge' of 'dissolve' must be a color like #ff8000 or #ff800080, got identifier 'warm'", at: 10)
    try expectFailure(
      "gradientMap(colors: #ff0000, colors: warm)",
      "parameter 'colors' of 'gradientMap' must be colors like #ff8000 or #ff800080, or a list like [#ff8000, #0000ff], got identifier 'warm'", at: 30
    )
    try expectFailure(
      "dissolve(progress: 1.5)", "parameter 'progress' of 'dissolve' must be a finite number in 0…1, got 1.5", at: 10)
    try expectFailure(
      "hueRotate(720)", "parameter 'angle' of 'hueRotate' must be a finite number in -360…360°, got 720", at: 11)
    try expectFailure(
      "dissolve", uniforms: ["dissolve.edge"],
      "parameter 'edge' of 'dissolve' cannot be a uniform: only numbers can be uniforms", at: 1)
    try expectFailure(
      "sepia | progressiveBlur", uniforms: ["progressiveBlur.curve"],
      "parameter 'curve' of 'progressiveBlur' cannot be a uniform: only numbers can be uniforms", at: 9)
  }

  @Test func transitionProgressIsAUniform() throws {
    let chain = try resolve("sepia | dissolve(grain: 20)", uniforms: ["dissolve.progress"])
    let progress = try #require(chain.uniform(named: "dissolve.progress"))
    #expect(progress.param.isUniform && progress.param.value == 0.5)
    let graph = try EffectGraph(output: chain.effect(Image.input()))
    #expect(graph.uniforms.map(\.name) == ["dissolve.progress"])
    #expect(graph.inputs.count == 2, "a transition reads input 1 as the image to go to")
  }
}

@Suite("Chain resolution: image paths and number lists")
struct ChainResolutionFileTests {
  /// A registry with `warp(noise: image, weights: numbers)` and `tint(colors)`.
  static let registry: EffectRegistry = {
    var r = EffectRegistry.builtIn
    try? r.register(
      EffectSpec(
        name: "warp", kind: .layer, summary: "test",
        parameters: [.image("noise", "an image"), .numbers("weights", [1, 2], "weights")]
      ) { _ in .identity })
    return r
  }()

  @Test func pathsBecomeInputsFromTwoEachOnce() throws {
    let chain = try ChainSyntax.parse(#"warp(noise: "a.png") | warp("b.png") | warp(noise: "a.png") | warp"#)
    let resolved = try chain.resolve(registry: Self.registry)
    #expect(
      resolved.images.map { "\($0.path) in\($0.input) \($0.parameter) column \($0.column)" } == [
        "a.png in2 warp.noise column 6", "b.png in3 warp.noise column 29",
      ])
    #expect(resolved.calls.map { $0.arguments.image(0) == nil } == [false, false, false, true])
  }

  @Test func numberListsAndTheirDefault() throws {
    let resolved = try ChainSyntax.parse("warp(weights: [0.5, -3]) | warp | warp(weights: [])").resolve(registry: Self.registry)
    #expect(resolved.calls.map { $0.arguments.numbers(1).map { $0.constantValue } } == [[0.5, -3], [1, 2], []])
    #expect(Self.registry.spec(named: "warp")?.parameters[1].defaultDescription == "[1, 2]")
  }

  @Test func wrongValuesAreRefused() {
    let cases: [(String, String, Int)] = [
      (#"warp(noise: "")"#, #"parameter 'noise' of 'warp' must be an image file's path in double quotes, like "noise.png", got an empty path"#, 6),
      ("warp(noise: [1])", #"parameter 'noise' of 'warp' must be an image file's path in double quotes, like "noise.png", got list [1]"#, 6),
      ("warp(weights: [1, nan])", "parameter 'weights' of 'warp' must be a list of finite numbers, like [0.1, 0.2, 0.7], got nan in the list", 6),
      (#"warp(weights: "w")"#, #"parameter 'weights' of 'warp' must be a list of finite numbers, like [0.1, 0.2, 0.7], got string "w""#, 6),
      (
        "gradientMap(colors: [#ff0000, 1])",
        "parameter 'colors' of 'gradientMap' must be colors like #ff8000 or #ff800080, or a list like [#ff8000, #0000ff], got 1 in the list", 13
      ),
    ]
    for (source, message, column) in cases {
      do {
        _ = try ChainSyntax.parse(source).resolve(registry: Self.registry)
        Issue.record("\(source) resolved")
      } catch {
        #expect(error.message == message, "\(source)")
        #expect(error.column == column, "\(source)")
      }
    }
  }

  @Test func aColorListFillsAColorsParameter() throws {
    let resolved = try ChainSyntax.parse("gradientMap([#ff0000, #0000ff], 0.5)").resolve()
    #expect(resolved.calls[0].arguments.colors(0).count == 2)
    #expect(resolved.calls[0].values[1] == 0.5)
  }
}
