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
    try lower(position: position, color: color, layer: layer, textures: textures).body
  }

  /// The body (as ``body(position:color:layer:textures:)``) and the warnings lowering it gave.
  func lower(position: Expr, color: Expr?, layer: Layer?, textures: [Layer]) throws -> (body: Expr, warnings: [MetalError]) {
    let p = [position.x, position.y]
    let lowering = Lowering(program: function.program, position: p)
    var values = parameterValues(textures: textures)
    values[0] = .vector(.float, p)
    if let layer { values[1] = Value(handle: .layer(layer), type: .layer) }
    if let color { values[1] = Lowering.lanes(color, kind: .half) }
    let syntax = function.syntax
    let parameters = try syntax.parameters.indices.map { k -> Value in
      guard let v = values[k] else { throw MetalError("internal error: parameter \(k) is unbound", at: syntax.location) }
      let type = try function.program.resolve(syntax.parameters[k].type)
      return type.isHandle ? v : try lowering.convert(v, to: type, at: syntax.parameters[k].location)
    }
    let (result, _) = try lowering.call(syntax, parameters, at: syntax.location)
    if function.kind == .distortion {
      let q = try lowering.convert(result, to: .float2, at: syntax.location).scalars
      return (float2(q[0], q[1]), lowering.warnings)
    }
    let c = try lowering.convert(result, to: .float4, at: syntax.location).scalars
    return (float4(c[0], c[1], c[2], c[3]), lowering.warnings)
  }

  /// The effect; lowering once first, so that every error is thrown here.
  func effect() throws -> Effect { try effectAndWarnings().effect }

  /// The effect and the warnings lowering it gave (loops that may be cut off).
  func effectAndWarnings() throws -> (effect: Effect, warnings: [MetalError]) {
    let probe = Image.input(0)
    let (_, warnings) = try lower(
      position: .position, color: function.kind == .color ? probe.layer(.nearest).sample(.position) : nil,
      layer: function.kind == .layer ? probe.layer() : nil, textures: images.map { $0.layer() })
    let name = effectName
    let kind = function.kind
    let binding = self
    // The probe succeeded, and lowering is deterministic; the fallbacks are never taken.
    return (effect(named: name, kind: kind, binding: binding), warnings)
  }

  private func effect(named name: String, kind: ShaderKind, binding: ShaderBinding) -> Effect {
    if images.isEmpty {
      switch kind {
      case .color:
        return Effect.color(name) { p, c in (try? binding.body(position: p, color: c, layer: nil, textures: [])) ?? c }
      case .fill:
        return Effect.color(name) { p, c in (try? binding.body(position: p, color: nil, layer: nil, textures: [])) ?? c }
      case .distortion:
        return Effect.distortion(name) { p in (try? binding.body(position: p, color: nil, layer: nil, textures: [])) ?? p }
      case .layer:
        return Effect.layer(name) { p, l in (try? binding.body(position: p, color: nil, layer: l, textures: [])) ?? l.sample(p) }
      }
    }
    let images = self.images
    return Effect(name) { input in
      Image.combine(name, [input] + images) { p, layers in
        let textures = Array(layers.dropFirst())
        let fallback = layers[0].sample(p, .nearest)
        switch kind {
        case .color:
          return (try? binding.body(position: p, color: fallback, layer: nil, textures: textures)) ?? fallback
        case .fill:
          return (try? binding.body(position: p, color: nil, layer: nil, textures: textures)) ?? fallback
        case .distortion:
          let q = (try? binding.body(position: p, color: nil, layer: nil, textures: textures)) ?? p
          return layers[0].sample(q)
        case .layer:
          return (try? binding.body(position: p, color: nil, layer: layers[0], textures: textures)) ?? fallback
        }
      }
    }
  }
}
