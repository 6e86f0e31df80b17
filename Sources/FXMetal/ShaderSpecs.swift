import FXDSL
import FXEffects
import FXIR

// A library's functions as catalogue entries, so that chains name them
// (`fxc run --shaders ripple.metal --chain 'ripple(amplitude: 12, size: auto)'`).
//
// Every float lane is a number parameter (any finite value); a float2 or
// float4 `size` has lanes `size_x`, `size_y`(, `size_z`, `size_w`) and, first,
// a choice `size: auto` that binds the image size (float2) or
// `.boundingRect` (float4) instead. A half4 is a color (straight on the command
// line, premultiplied when passed, like `.color`). An `.image` parameter takes
// a quoted path (`noise: "noise.png"`, read as another input of the graph) or,
// left out, reads the graph's input 1 (`fxc run --to FILE`). An array takes a
// bracketed list (`weights: [0.1, 0.2, 0.7]`, `palette: [#ff0000, #0000ff]`),
// and its count parameter is the list's length; left out, it is empty.

extension ShaderFunction {
  /// The numbers a chain may give a Metal parameter: any finite Float.
  static let numberRange: ClosedRange<Float> = -1e30...1e30

  /// This function as an effect for chains.
  public var effectSpec: EffectSpec {
    var parameters: [ParameterSpec] = []
    var positional: [Int?] = []  // one slot per Metal parameter, as ShaderLibrary binds them
    for p in self.parameters {
      if case .float(3) = p.kind { positional.append(nil) } else { positional.append(parameters.count) }
      // The signature's default (`float amount = 0.5`) is the chain's default; else 0.
      let lane = { (k: Int) -> Float in p.defaultValue?[k] ?? 0 }
      switch p.kind {
      case .float(let n):
        if n == 1 {
          parameters.append(.number(p.name, lane(0), Self.numberRange, "\(p.type)"))
          continue
        }
        let lanes = ["x", "y", "z", "w"].prefix(n).map { "\(p.name)_\($0)" }
        if n != 3 {
          let auto = n == 2 ? "the image size" : "(0, 0, width, height)"
          parameters.append(.choice(p.name, ["values", "auto"], "values", "\(p.type): auto = \(auto), else \(lanes.joined(separator: ", "))"))
        }
        parameters += lanes.enumerated().map { k, name in
          .number(name, lane(k), Self.numberRange, "lane of \(p.type) \(p.name)")
        }
      case .color:
        // A chain's colour is straight and premultiplied when passed; the signature's is the half4 itself.
        let a = lane(3)
        let straight = a > 0 ? Color(lane(0) / a, lane(1) / a, lane(2) / a, a) : Color(0, 0, 0, 0)
        parameters.append(.color(p.name, straight, "\(p.type), premultiplied when passed"))
      case .floatArray: parameters.append(.numbers(p.name, [], "\(p.type) [n, …] and its count (the length)"))
      case .colorArray: parameters.append(.colors(p.name, [], "\(p.type) [#rrggbb, …] and its count, premultiplied"))
      case .image: parameters.append(.image(p.name, "\(p.type): an image file \"path\", else input 1 (--to)"))
      }
    }
    let summary = "Metal \(kind.rawValue) \(name)(\(self.parameters.map(\.description).joined(separator: ", ")))"
    let function = self
    var spec = EffectSpec(name: name, kind: kind.effectKind, summary: summary, parameters: parameters) { values in
      let arguments = function.arguments(from: values)
      do { return try function.bind(arguments).effect } catch {
        // `spec.check` reports this first; should it be reached, the graph fails to build with it.
        let failure = Expr.failure(error, type: .float4)
        return Effect.color(function.name) { _, _ in failure }
      }
    }
    spec.positional = positional
    // What `build` cannot throw: the diagnostic of arguments the function does not compile with.
    spec.check = { values in try function.bind(function.arguments(from: values)).warnings.map(\.description) }
    return spec
  }

  /// The arguments a chain's values (in ``effectSpec``'s parameter order) stand for.
  func arguments(from values: [ParameterValue]) -> [ShaderArgument] {
    var k = 0
    func next() -> ParameterValue {
      defer { k += 1 }
      return k < values.count ? values[k] : .number(Expr(Float(0)))
    }
    return parameters.map { p -> ShaderArgument in
      switch p.kind {
      case .float(let n):
        var auto = false
        if n != 1 && n != 3, case .choice(let word) = next() { auto = word == "auto" }
        let lanes = (0..<n).map { _ -> Expr in
          if case .number(let e) = next() { return e }
          return Expr(Float(0))
        }
        if auto { return n == 2 ? .size : .boundingRect }
        return ShaderArgument(storage: .floats(lanes))
      case .color:
        if case .color(let c) = next() { return .color(c) }
        return .color(Color(0, 0, 0, 0))
      case .floatArray:
        if case .numbers(let list) = next() { return .floatArray(elements: list) }
        return .floatArray([Float]())
      case .colorArray:
        if case .colors(let list) = next() { return .colorArray(list) }
        return .colorArray([])
      case .image:
        if case .image(let image?) = next() { return .image(image) }
        return .image(Image.input(1))
      }
    }
  }
}

extension EffectRegistry {
  /// This registry with `library`'s stitchable functions added, each standing
  /// for any effect of its name.
  ///
  /// - Throws: ``CatalogueError`` when two functions of the library share a name.
  public func adding(_ library: ShaderLibrary) throws -> EffectRegistry {
    var registry = self
    var seen = Set<String>()
    for f in library.functions {
      guard seen.insert(f.name).inserted else {
        throw CatalogueError("\(library.path): two stitchable functions are called '\(f.name)'")
      }
      try registry.registerReplacing(f.effectSpec)
    }
    return registry
  }
}
