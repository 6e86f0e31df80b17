import FXDSL
import FXEffects
import FXIR

/// An argument of a stitchable function, as SwiftUI's `Shader.Argument`:
/// numbers may be constants or uniforms (an ``Expr`` of a ``Param``), so one
/// compiled kernel serves every value of an animated uniform.
public struct ShaderArgument {
  enum Storage {
    case floats([Expr])
    /// Premultiplied RGBA.
    case color([Expr])
    case floatArray([Expr])
    case colorArray([[Expr]])
    case image(Image)
    case boundingRect
    /// The image size, float2.
    case size
  }

  let storage: Storage

  /// `.float(x)` for a `float`/`half` parameter.
  public static func float(_ x: Expr) -> ShaderArgument { ShaderArgument(storage: .floats([x])) }
  /// `.float(param)`: a uniform (or constant) parameter.
  public static func float(_ p: Param) -> ShaderArgument { .float(p.expr) }
  public static func float2(_ x: Expr, _ y: Expr) -> ShaderArgument { ShaderArgument(storage: .floats([x, y])) }
  public static func float2(_ v: SIMD2<Float>) -> ShaderArgument { .float2(Expr(v.x), Expr(v.y)) }
  public static func float3(_ x: Expr, _ y: Expr, _ z: Expr) -> ShaderArgument {
    ShaderArgument(storage: .floats([x, y, z]))
  }
  public static func float4(_ x: Expr, _ y: Expr, _ z: Expr, _ w: Expr) -> ShaderArgument {
    ShaderArgument(storage: .floats([x, y, z, w]))
  }
  public static func float4(_ v: SIMD4<Float>) -> ShaderArgument { .float4(Expr(v.x), Expr(v.y), Expr(v.z), Expr(v.w)) }
  /// `.color(c)`: a straight RGBA color, passed premultiplied as SwiftUI does.
  public static func color(_ c: Color) -> ShaderArgument {
    ShaderArgument(storage: .color([c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha].map { Expr($0) }))
  }
  /// `.floatArray(values)` for `device const float *values, int count`.
  public static func floatArray(_ values: [Float]) -> ShaderArgument {
    ShaderArgument(storage: .floatArray(values.map { Expr($0) }))
  }
  /// `.floatArray(values)` with uniform or computed elements.
  public static func floatArray(elements values: [Expr]) -> ShaderArgument { ShaderArgument(storage: .floatArray(values)) }
  /// `.colorArray(colors)` for `device const half4 *colors, int count`; straight colors, passed premultiplied.
  public static func colorArray(_ colors: [Color]) -> ShaderArgument {
    ShaderArgument(storage: .colorArray(colors.map { c in [c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha].map { Expr($0) } }))
  }
  /// `.image(image)` for a `texture2d<half>`: another image of the graph (`Image.input(1)`, a stage).
  public static func image(_ image: Image) -> ShaderArgument { ShaderArgument(storage: .image(image)) }
  /// `.boundingRect` for a `float4`: `float4(0, 0, width, height)` of the image (its size in pixels).
  public static var boundingRect: ShaderArgument { ShaderArgument(storage: .boundingRect) }
  /// The image size `(width, height)` for a `float2`, what SwiftUI code passes as `.float2(proxy.size)`.
  public static var size: ShaderArgument { ShaderArgument(storage: .size) }

  var kindName: String {
    switch storage {
    case .floats(let v): v.count == 1 ? ".float" : ".float\(v.count)"
    case .color: ".color"
    case .floatArray: ".floatArray"
    case .colorArray: ".colorArray"
    case .image: ".image"
    case .boundingRect: ".boundingRect"
    case .size: ".size"
    }
  }
}

/// A function's arguments checked against its parameters, and the effect they make.
struct ShaderBinding {
  let function: ShaderFunction
  let arguments: [ShaderArgument]
  /// The `.image` arguments, in order; the stage reads them as inputs 1, 2, …
  let images: [Image]

  init(function: ShaderFunction, arguments given: [ShaderArgument]) throws {
    self.function = function
    // Arguments left out at the end take the signature's defaults, as a C++ call does.
    var arguments = given
    while arguments.count < function.parameters.count, let lanes = function.parameters[arguments.count].defaultValue {
      arguments.append(ShaderArgument(storage: .floats(lanes.map { Expr($0) })))
    }
    self.arguments = arguments
    let at = function.syntax.location
    guard arguments.count == function.parameters.count else {
      let list = function.parameters.map(\.description).joined(separator: ", ")
      throw MetalError(
        "'\(function.name)' takes \(function.parameters.count) argument\(function.parameters.count == 1 ? "" : "s") (\(list)), got \(arguments.count)",
        at: at)
    }
    var images: [Image] = []
    for (p, a) in zip(function.parameters, arguments) {
      switch (p.kind, a.storage) {
      case (.float(let n), .floats(let v)) where v.count == n: break
      case (.float(2), .size): break
      case (.color, .floats(let v)) where v.count == 4: break
      case (.float(4), .boundingRect), (.color, .color), (.color, .boundingRect), (.floatArray, .floatArray),
        (.colorArray, .colorArray):
        break
      case (.image, .image(let image)): images.append(image)
      default:
        throw MetalError("argument '\(p.name)' of '\(function.name)' is \(p.type); \(a.kindName) does not bind to it", at: at)
      }
    }
    self.images = images
  }

  /// The values of the source function's parameters after the fixed ones.
  func parameterValues(textures: [Layer]) -> [Int: MetalValue] {
    var values: [Int: MetalValue] = [:]
    var image = 0
    let size = Expr.size
    for (k, (p, a)) in zip(function.parameters, arguments).enumerated() {
      let slot = function.slots[k]
      switch a.storage {
      case .floats(let v): values[slot] = .vector(p.kind == .color ? .half : .float, v)
      case .color(let v): values[slot] = .vector(.half, v)
      case .boundingRect: values[slot] = .vector(.float, [Expr(Float(0)), Expr(Float(0)), size.x, size.y])
      case .size: values[slot] = .vector(.float, [size.x, size.y])
      case .floatArray(let v):
        values[slot] = MetalValue(handle: .buffer(v), type: .buffer(.float))
        values[slot + 1] = .vector(.int, [.int(v.count)])
      case .colorArray(let v):
        values[slot] = MetalValue(handle: .buffer(v.flatMap { $0 }), type: .buffer(.vector(.half, 4)))
        values[slot + 1] = .vector(.int, [.int(v.count)])
      case .image:
        values[slot] = MetalValue(handle: .texture(textures[image]), type: .texture)
        image += 1
      }
    }
    return values
  }
}
