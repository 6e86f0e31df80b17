import FXIR

/// A node of the effect graph: a graph input, or a stage computed from other images.
final class ImageNode {
  enum Source {
    case input(index: Int, name: String)
    case stage(name: String, kind: EffectKind, body: ExprNode)
    /// A cut stage (docs/design.md §4): its input through a geometry map or a scan.
    case cut(Cut, input: ImageNode)
    /// Two ways to the same image: `fast` for outputs of 8 bits, `precise`
    /// (a loop, no cut) for deeper outputs and for an ``EffectGraph``.
    case alternatives(fast: ImageNode, precise: ImageNode)
  }
  let source: Source
  init(_ source: Source) { self.source = source }
}

/// An image in an effect graph: one of the graph's inputs, or an effect's result.
/// Cheap to copy; effects applied to the same image share it (the graph is a DAG).
public struct Image {
  let node: ImageNode

  /// The graph's input number `index` (0 is the primary input, whose size is the output's size).
  public static func input(_ index: Int = 0, name: String? = nil) -> Image {
    Image(node: ImageNode(.input(index: index, name: name ?? (index == 0 ? "input" : "input\(index)"))))
  }

  /// The name of a graph input given one (`Image.input(2, name: "logo.png")`:
  /// the chain language names an image file's input by its path); nil for
  /// an unnamed input or an effect's result.
  public var inputName: String? {
    guard case .input(let index, let name) = node.source, name != (index == 0 ? "input" : "input\(index)") else { return nil }
    return name
  }

  /// This image as a layer that `sample` reads with `sampler`.
  public func layer(_ sampler: Sampler = .linear) -> Layer { Layer(image: node, sampler: sampler) }

  /// A stage whose pixels are `body(position, layers)`, a float4 (premultiplied
  /// RGBA), reading any of `inputs` anywhere: the general, multi-input layer
  /// effect (CIKernel with several images), e.g. an unsharp mask reading the
  /// original and its blur.
  public static func combine(
    _ name: String, _ inputs: [Image], sampler: Sampler = .linear, _ body: (Expr, [Layer]) -> Expr
  ) -> Image {
    let out = body(.position, inputs.map { $0.layer(sampler) })
    return Image(node: ImageNode(.stage(name: name, kind: .layer, body: checked(out, .float4, name))))
  }

  /// This image through a geometry stage: an image of another size
  /// (``Geometry/outputSize(width:height:)``), computed when the pipeline runs.
  public func geometry(_ g: Geometry) -> Image { Image(node: ImageNode(.cut(.geometry(g), input: node))) }

  /// This image through a scan (``Scan``): the same size, each pixel from
  /// its predecessors along a row or column, computed when the pipeline runs.
  public func scan(_ s: Scan) -> Image { Image(node: ImageNode(.cut(.scan(s), input: node))) }

  /// `fast` where the result is stored in 8 bits (its error proved below
  /// half a level of them: a recursive blur), `precise` otherwise — for a
  /// 16-bit or float output, and in an ``EffectGraph`` (which holds no cuts).
  /// ``PipelineGraph/init(output:constants:precise:)`` picks one.
  public static func either(fast: Image, precise: Image) -> Image {
    Image(node: ImageNode(.alternatives(fast: fast.node, precise: precise.node)))
  }

  /// This image through a reduction (``Reduction``): the same size, every
  /// pixel mapped by what the whole image's histograms decide.
  public func reduce(_ r: Reduction) -> Image { Image(node: ImageNode(.cut(.reduction(r), input: node))) }

  static func stage(_ name: String, _ kind: EffectKind, _ body: Expr) -> Image {
    Image(node: ImageNode(.stage(name: name, kind: kind, body: body.node)))
  }
}

/// Returns `e`, or an invalid node when its type is not `type`.
func checked(_ e: Expr, _ type: ValueType, _ what: String) -> ExprNode {
  if e.node.error != nil || e.type == type { return e.node }
  return ExprNode(.invalid(GraphError("the body must return \(type), but returns \(e.type)")), type)
}

/// An image as an effect body sees it: `layer.sample(p)` (Metal's `SwiftUI::Layer`).
public struct Layer {
  let image: ImageNode
  /// The filter and boundary condition ``sample(_:)`` uses.
  public let sampler: Sampler

  /// The layer's color at continuous position `p` (float2, pixels), premultiplied float4 (DESIGN §3).
  public func sample(_ p: Expr, file: String = #fileID, line: Int = #line) -> Expr {
    sample(p, sampler, file: file, line: line)
  }

  /// Like ``sample(_:)`` with another sampler.
  public func sample(_ p: Expr, _ sampler: Sampler, file: String = #fileID, line: Int = #line) -> Expr {
    if let e = p.node.error { return Expr(.invalid(e), .float4) }
    guard p.type == .float2 else {
      return .invalid("sample needs a float2 position, got \(p.type)", CodeLocation(file: file, line: line))
    }
    return Expr(.sample(image, sampler, p.node), .float4)
  }

  /// The layer's size in pixels, float2.
  public var size: Expr { Expr(.imageSize(image), .float2) }
}

/// An effect: a function from an image to an image, with a name for messages
/// and `fxc dump`. Effects compose with `|` into chains (`sepia() | vignette()`:
/// sepia first); a chain is itself an effect.
public struct Effect: CustomStringConvertible {
  /// What the user would type, e.g. `vignette(intensity: 0.8, radius: 0.75)`.
  public let name: String
  let body: (Image) -> Image

  /// An effect from an image-to-image function (for effects built from others, or multi-input graphs).
  public init(_ name: String, _ body: @escaping (Image) -> Image) {
    self.name = name
    self.body = body
  }

  /// A color effect: `body(position, color)` returns the new premultiplied
  /// color (float4) from the input's color at this pixel (float4).
  public static func color(_ name: String, _ body: @escaping (_ position: Expr, _ color: Expr) -> Expr) -> Effect {
    Effect(name) { input in
      let color = input.layer(.nearest).sample(.position)
      return .stage(name, .color, Expr(checked(body(.position, color), .float4, name)))
    }
  }

  /// A distortion effect: `body(position)` returns where to sample the input (float2, pixels).
  public static func distortion(
    _ name: String, sampler: Sampler = .linear, _ body: @escaping (_ position: Expr) -> Expr
  ) -> Effect {
    Effect(name) { input in
      let p = Expr(checked(body(.position), .float2, name))
      return .stage(name, .distortion, input.layer(sampler).sample(p))
    }
  }

  /// A layer effect: `body(position, layer)` returns a premultiplied float4 and may
  /// call `layer.sample(p)` any number of times, at any `p`.
  public static func layer(
    _ name: String, sampler: Sampler = .linear, _ body: @escaping (_ position: Expr, _ layer: Layer) -> Expr
  ) -> Effect {
    Effect(name) { input in
      .stage(name, .layer, Expr(checked(body(.position, input.layer(sampler)), .float4, name)))
    }
  }

  /// Applies the effect.
  public func callAsFunction(_ input: Image) -> Image { body(input) }

  /// The identity effect (an empty chain).
  public static let identity = Effect("identity") { $0 }

  /// `a | b`: `a`, then `b`.
  public static func | (a: Effect, b: Effect) -> Effect {
    Effect("\(a.name) | \(b.name)") { b(a($0)) }
  }

  /// `effects[0] | effects[1] | …`, its name joined once (folding `|` over
  /// 10,000 effects built 10,000 ever longer names: quadratic); the empty
  /// chain is the identity.
  public static func chain(_ effects: [Effect]) -> Effect {
    guard !effects.isEmpty else { return .identity }
    return Effect(effects.map(\.name).joined(separator: " | ")) { input in effects.reduce(input) { image, e in e(image) } }
  }

  public var description: String { name }
}
