import FXDSL
import FXEffects
import FXIR

// The effect a bound function makes: the function lowered into a stage
// body of its kind, reading the input (`color`, `layer`) and any `.image`
// arguments as further inputs of the graph.

extension ShaderBinding {
  /// The effect's name as `fxc dump` shows it: `ripple(12, uniform)`.
  var effectName: String {
    let values = arguments.map { a -> String in
      switch a.storage {
      case .floats(let v): return v.map(Self.text).joined(separator: ", ")
      case .color: return "color"
      case .floatArray(let v): return "[\(v.count) floats]"
      case .colorArray(let v): return "[\(v.count) colors]"
      case .image: return "image"
      case .boundingRect: return "boundingRect"
      case .size: return "size"
      }
    }
    return "\(function.name)(\(values.joined(separator: ", ")))"
  }

  private static func text(_ e: Expr) -> String {
    guard let c = e.constantValue else { return "uniform" }
    return c == c.rounded() && Swift.abs(c) < 1e6 ? "\(Int(c))" : "\(c)"
  }

  /// Lowers the function's body for one application: the result is float4
  /// (premultiplied color) or, for a distortion, float2.
  func body(position: Expr, color: Expr?, layer: Layer?, textures: [Layer]) throws -> Expr {
    try translate(position: position, color: color, layer: layer, textures: textures).body
  }

  /// The body (as ``body(position:color:layer:textures:)``) and the warnings translator it gave.
  func translate(position: Expr, color: Expr?, layer: Layer?, textures: [Layer]) throws -> (body: Expr, warnings: [MetalError]) {
    let p = [position.x, position.y]
    let translator = MetalTranslator(program: function.program, position: p)
    var values = parameterValues(textures: textures)
    values[0] = .vector(.float, p)
    if let layer { values[1] = MetalValue(handle: .layer(layer), type: .layer) }
    if let color { values[1] = MetalTranslator.lanes(color, kind: .half) }
    let syntax = function.syntax
    let parameters = try syntax.parameters.indices.map { k -> MetalValue in
      guard let v = values[k] else { throw MetalError("internal error: parameter \(k) is unbound", at: syntax.location) }
      let type = try function.program.resolve(syntax.parameters[k].type)
      // The arguments as the GPU receives them: a `half` one (the colour, a half4 argument) in fp16.
      return type.isHandle ? v : translator.roundedHalf(try translator.convert(v, to: type, at: syntax.parameters[k].location))
    }
    let (result, _) = try translator.call(syntax, parameters, at: syntax.location)
    if function.kind == .distortion {
      let q = try translator.convert(result, to: .float2, at: syntax.location).scalars
      return (float2(q[0], q[1]), translator.warnings)
    }
    let c = try translator.convert(result, to: .float4, at: syntax.location).scalars
    return (float4(c[0], c[1], c[2], c[3]), translator.warnings)
  }

  /// The effect; translator once first, so that every error is thrown here.
  func effect() throws -> Effect { try effectAndWarnings().effect }

  /// The effect and the warnings translator it gave (loops that may be cut off).
  /// The body is lowered once here, so that every error is thrown now, and
  /// again where the effect is applied (to that application's input). Should
  /// that ever fail, the stage's body is the failure (``Expr/failure(_:type:)``)
  /// and building the graph throws it: an error never becomes the identity.
  func effectAndWarnings() throws -> (effect: Effect, warnings: [MetalError]) {
    let probe = Image.input(0)
    let (_, warnings) = try translate(
      position: .position, color: function.kind == .color ? probe.layer(.nearest).sample(.position) : nil,
      layer: function.kind == .layer ? probe.layer() : nil, textures: images.map { $0.layer() })
    return (effect(named: effectName, kind: function.kind, binding: self), warnings)
  }

  private func effect(named name: String, kind: ShaderKind, binding: ShaderBinding) -> Effect {
    let type: ValueType = kind == .distortion ? .float2 : .float4
    func body(_ p: Expr, color: Expr?, layer: Layer?, textures: [Layer]) -> Expr {
      do { return try binding.body(position: p, color: color, layer: layer, textures: textures) } catch {
        return Expr.failure(error, type: type)
      }
    }
    if images.isEmpty {
      switch kind {
      case .color: return Effect.color(name) { p, c in body(p, color: c, layer: nil, textures: []) }
      case .fill: return Effect.color(name) { p, _ in body(p, color: nil, layer: nil, textures: []) }
      case .distortion: return Effect.distortion(name) { p in body(p, color: nil, layer: nil, textures: []) }
      case .layer: return Effect.layer(name) { p, l in body(p, color: nil, layer: l, textures: []) }
      }
    }
    let images = self.images
    return Effect(name) { input in
      Image.combine(name, [input] + images) { p, layers in
        let textures = Array(layers.dropFirst())
        switch kind {
        case .color: return body(p, color: layers[0].sample(p, .nearest), layer: nil, textures: textures)
        case .fill: return body(p, color: nil, layer: nil, textures: textures)
        case .distortion: return layers[0].sample(body(p, color: nil, layer: nil, textures: textures))
        case .layer: return body(p, color: nil, layer: layers[0], textures: textures)
        }
      }
    }
  }
}
