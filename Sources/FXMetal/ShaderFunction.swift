import FXDSL
import FXEffects
import FXIR

/// What SwiftUI does with a stitchable function, told by its signature (DESIGN §9).
public enum ShaderKind: String, Sendable {
  /// `half4 f(float2 position, half4 color, …)`: `colorEffect`.
  case color
  /// `float2 f(float2 position, …)`: `distortionEffect`, where to sample the input.
  case distortion
  /// `half4 f(float2 position, SwiftUI::Layer layer, …)`: `layerEffect`.
  case layer
  /// `half4 f(float2 position, …)`: a shape fill; as an effect it replaces the image.
  case fill

  /// The kind of stage it becomes.
  public var effectKind: EffectKind {
    switch self {
    case .color, .fill: .color
    case .distortion: .distortion
    case .layer: .layer
    }
  }
}

/// One argument of a stitchable function after its fixed parameters, as
/// SwiftUI's `ShaderLibrary` binds a `Shader.Argument` to it.
public struct ShaderParameter: Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// `float`, `float2`…`float4` (or `half…`): `.float(…)`…`.float4(…)`;
    /// a 4-lane one also takes `.boundingRect`.
    case float(lanes: Int)
    /// `half4`: `.color(…)` (premultiplied), or `.float4(…)`.
    case color
    /// `device const float *name, int count`: `.floatArray([…])`.
    case floatArray
    /// `device const half4 *name, int count`: `.colorArray([…])`.
    case colorArray
    /// `texture2d<half>`: `.image(…)`, another input image of the graph.
    case image
  }

  /// The parameter's name in the source.
  public var name: String
  public var kind: Kind
  /// The type as written: `float2`, `device const float *`.
  public var type: String
  /// The lanes of a default value the signature declares (`float size = 0.2`,
  /// `half4 tint = half4(1, 0, 0, 1)`), a constant; nil when it declares none.
  /// A call that leaves this argument and all after it out passes these.
  public var defaultValue: [Float]?

  public var description: String {
    "\(type) \(name)" + (defaultValue.map { " = " + $0.map { "\($0)" }.joined(separator: ", ") } ?? "")
  }
}

/// A `[[ stitchable ]]` function of a ``ShaderLibrary``: its name, kind and
/// parameters. Call it with ``ShaderArgument``s to get a ``Shader``.
@dynamicCallable
public struct ShaderFunction: @unchecked Sendable {
  public let name: String
  public let kind: ShaderKind
  /// The arguments after the fixed parameters (`position`, `color` or `layer`), in order.
  public let parameters: [ShaderParameter]
  let syntax: FunctionSyntax
  let program: MetalProgram
  /// Parameters of the source function that each ``parameters`` entry covers (an array and its count are two).
  let slots: [Int]

  /// Binds `arguments` positionally, as `ShaderLibrary.name(arguments…)` does in SwiftUI.
  ///
  /// - Throws: ``MetalDiagnostic`` when the number or kinds of the arguments
  ///   do not fit the parameters, or when the function body uses something
  ///   fxc does not compute (named, at its line).
  public func dynamicallyCall(withArguments arguments: [ShaderArgument]) throws -> Shader {
    try bind(arguments)
  }

  /// Binds `arguments` positionally (see ``dynamicallyCall(withArguments:)``).
  public func bind(_ arguments: [ShaderArgument]) throws -> Shader {
    do {
      let bound = try ShaderBinding(function: self, arguments: arguments)
      let (effect, warnings) = try bound.effectAndWarnings()
      return Shader(function: self, effect: effect, warnings: warnings.map { $0.diagnostic(program.files, severity: .warning) })
    } catch let e as MetalError {
      throw e.diagnostic(program.files)
    }
  }

  /// Classifies a function by SwiftUI's signatures; nil when it is not stitchable.
  static func classify(_ f: FunctionSyntax, in program: MetalProgram) throws -> ShaderFunction? {
    guard f.isStitchable, !f.body.isEmpty else { return nil }
    let returnType = try program.resolve(f.returnType)
    let types = try f.parameters.map { try program.resolve($0.type) }
    guard let first = types.first, first == .float2 else {
      throw MetalError("a stitchable function's first parameter must be 'float2 position'", at: f.location)
    }
    var fixed = 1
    let kind: ShaderKind
    let returnsColor = returnType == .vector(.half, 4) || returnType == .float4
    if types.count > 1, types[1] == .layer {
      (kind, fixed) = (.layer, 2)
    } else if types.count > 1, returnsColor, types[1] == .vector(.half, 4) || types[1] == .float4,
      f.parameters[1].name == "color" || types[1] == .vector(.half, 4)
    {
      (kind, fixed) = (.color, 2)
    } else if returnType == .float2 {
      kind = .distortion
    } else if returnsColor {
      kind = .fill
    } else {
      throw MetalError(
        "a stitchable function returns half4 (color, layer, fill) or float2 (distortion), not \(returnType)", at: f.location)
    }
    guard returnsColor == (kind != .distortion) else {
      throw MetalError("a \(kind.rawValue) effect must return \(kind == .distortion ? "float2" : "half4")", at: f.location)
    }
    var parameters: [ShaderParameter] = []
    var slots: [Int] = []
    var k = fixed
    while k < types.count {
      let p = f.parameters[k]
      slots.append(k)
      switch types[k] {
      case .vector(.half, 4): parameters.append(ShaderParameter(name: p.name, kind: .color, type: "\(p.type)"))
      case .vector(let s, let n) where s.isFloating:
        parameters.append(ShaderParameter(name: p.name, kind: .float(lanes: n), type: "\(p.type)"))
      case .texture: parameters.append(ShaderParameter(name: p.name, kind: .image, type: "\(p.type)"))
      case .buffer(let element):
        guard k + 1 < types.count, types[k + 1] == .int || types[k + 1] == .uint else {
          throw MetalError("an array parameter must be followed by its 'int count'", at: p.location)
        }
        guard element == .float || element == .vector(.half, 1) || element == .vector(.half, 4) || element == .float4 else {
          throw MetalError("unsupported: an array of \(element); SwiftUI passes float and half4 arrays", at: p.location)
        }
        let isColor = element.lanes == 4
        parameters.append(ShaderParameter(name: p.name, kind: isColor ? .colorArray : .floatArray, type: "\(p.type)"))
        k += 1
      default:
        throw MetalError(
          "unsupported stitchable parameter type \(types[k]); SwiftUI passes float…float4, half4, arrays and textures",
          at: p.location)
      }
      k += 1
    }
    for (k, slot) in slots.enumerated() {
      guard let e = f.parameters[slot].defaultValue else { continue }
      parameters[k].defaultValue = try program.constantLanes(e, as: types[slot])
    }
    return ShaderFunction(name: f.name, kind: kind, parameters: parameters, syntax: f, program: program, slots: slots)
  }
}

/// A stitchable function with its arguments bound: an ``Effect`` of its kind.
public struct Shader {
  public let function: ShaderFunction
  /// The effect: a color, distortion or layer stage (a fill is a color stage
  /// that ignores the input; a function reading `.image` arguments is a layer
  /// stage over the input and those images).
  public let effect: Effect
  /// What compiles but may not compute what the source says with these
  /// arguments: each loop that may be cut off at its iteration limit
  /// (`file.metal:line:col: warning: …`), in source order of discovery.
  public let warnings: [MetalDiagnostic]
}
