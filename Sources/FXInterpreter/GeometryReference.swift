import FXIR
import FXImage

/// The meaning of a geometry stage (docs/design.md §4), evaluated as the
/// definition reads, in Double: the oracle the fast executor (FXRuntime's
/// `GeometryExecutor`) is tested against.
extension Interpreter {
  /// Applies `geometry` to `image` as its definition states.
  /// - Parameter image: premultiplied pixels in any format (read through ``ImageBuffer/subscript(_:_:)``).
  /// - Returns: an rgba32f (premultiplied) image of ``Geometry/outputSize(width:height:)``.
  /// - Throws: ``GeometryError`` when the stage cannot apply to this size;
  ///   ``ImageBufferError`` when memory runs out.
  public static func apply(_ geometry: Geometry, to image: ImageBuffer) throws -> ImageBuffer {
    let (ow, oh) = try geometry.outputSize(width: image.width, height: image.height)
    let out = try ImageBuffer(width: ow, height: oh, format: .rgba32f, zeroFilled: false)
    let w = image.width, h = image.height
    switch geometry {
    case .crop(let crop):
      let r = try crop.rectangle(width: w, height: h)
      for y in 0..<oh { for x in 0..<ow { out[x, y] = image[x + r.x, y + r.y] } }
    case .orient(let o):
      for y in 0..<oh {
        for x in 0..<ow {
          let s = o.source(x, y, width: w, height: h)
          out[x, y] = image[s.x, s.y]
        }
      }
    case .extend(let e):
      let m = e.margins(width: w, height: h)
      for y in 0..<oh { for x in 0..<ow { out[x, y] = texel(image, x - m.left, y - m.top, e.background) } }
    case .resize(let r): resample(image, into: out, filter: r.filter)
    case .affine(let a): affine(image, into: out, a)
    }
    return out
  }

  /// Texel `(x, y)` of `image`, or what `background` gives outside it.
  public static func texel(_ image: ImageBuffer, _ x: Int, _ y: Int, _ background: Background) -> SIMD4<Float> {
    let w = Int32(image.width), h = Int32(image.height)
    let cx = Int32(clamping: x), cy = Int32(clamping: y)
    switch background {
    case .color(let c):
      return cx >= 0 && cx < w && cy >= 0 && cy < h ? image[Int(cx), Int(cy)] : c
    case .edge:
      return image[Int(Sampler.resolve(cx, w, .clampToEdge)!), Int(Sampler.resolve(cy, h, .clampToEdge)!)]
    case .mirror:
      return image[Int(Sampler.resolve(cx, w, .mirror)!), Int(Sampler.resolve(cy, h, .mirror)!)]
    }
  }

  /// The separable sum as docs/design.md §4 evaluates it: weights
  /// normalised in Double and rounded to fp32; along x for every input row,
  /// then along y; each sum in fp32, in window order from its first product.
  private static func resample(_ image: ImageBuffer, into out: ImageBuffer, filter: ResampleFilter) {
    func sum(_ taps: (first: Int, weights: [Double]), _ pixel: (Int) -> SIMD4<Float>) -> SIMD4<Float> {
      guard let w0 = taps.weights.first else { return SIMD4() }
      var acc = pixel(taps.first) * Float(w0)
      for (k, w) in taps.weights.enumerated().dropFirst() { acc = acc + pixel(taps.first + k) * Float(w) }
      return acc
    }
    let xs = (0..<out.width).map { filter.taps($0, inSize: image.width, outSize: out.width) }
    let rows = (0..<image.height).map { y in xs.map { tx in sum(tx) { image[$0, y] } } }
    for j in 0..<out.height {
      let ty = filter.taps(j, inSize: image.height, outSize: out.height)
      for i in 0..<out.width { out[i, j] = sum(ty) { rows[$0][i] } }
    }
  }

  /// Output centre `p` reads the input at `A⁻¹·(p + origin)` with §3's filter.
  private static func affine(_ image: ImageBuffer, into out: ImageBuffer, _ a: Affine) {
    let box = a.bounds(width: image.width, height: image.height)
    let det = a.determinant
    let limit = Double(Sampler.coordinateLimit)
    for j in 0..<out.height {
      for i in 0..<out.width {
        let px = Double(i) + 0.5 + box.originX, py = Double(j) + 0.5 + box.originY
        let qx = min(max((a.d * px - a.b * py) / det, -limit), limit)
        let qy = min(max((-a.c * px + a.a * py) / det, -limit), limit)
        switch a.interpolation {
        case .nearest:
          out[i, j] = texel(image, Int(qx.rounded(.down)), Int(qy.rounded(.down)), a.background)
        case .linear:
          let u = qx - 0.5, v = qy - 0.5
          let x0 = u.rounded(.down), y0 = v.rounded(.down)
          let fx = u - x0, fy = v - y0
          let (ix, iy) = (Int(x0), Int(y0))
          var sum = SIMD4<Double>(texel(image, ix, iy, a.background)) * ((1 - fx) * (1 - fy))
          sum += SIMD4<Double>(texel(image, ix + 1, iy, a.background)) * (fx * (1 - fy))
          sum += SIMD4<Double>(texel(image, ix, iy + 1, a.background)) * ((1 - fx) * fy)
          sum += SIMD4<Double>(texel(image, ix + 1, iy + 1, a.background)) * (fx * fy)
          out[i, j] = SIMD4<Float>(sum)
        }
      }
    }
  }
}

extension Interpreter {
  /// Staged evaluation of a pipeline that changes size — its meaning: each
  /// graph staged (``runStaged(_:inputs:uniforms:)``), each geometry stage
  /// as ``apply(_:to:)`` defines it, the result of one the next graph's input 0.
  /// - Parameter uniforms: values by parameter; others keep their `value`.
  /// - Returns: an rgba32f buffer of the last graph's size.
  /// - Throws: ``RunError`` when inputs are missing; ``GeometryError`` when a
  ///   geometry stage cannot apply to its input's size.
  public static func runStaged(_ pipeline: PipelineGraph, inputs: [ImageBuffer], uniforms: [Param: Float] = [:]) throws
    -> ImageBuffer
  {
    let values = { (g: EffectGraph) in g.uniforms.map { uniforms[$0] ?? $0.value } }
    var image = try runStaged(pipeline.head, inputs: inputs, uniforms: values(pipeline.head))
    for step in pipeline.steps {
      let moved = try apply(step.cut, to: image)
      image = try runStaged(step.graph, inputs: [moved] + inputs.dropFirst(), uniforms: values(step.graph))
    }
    return image
  }
}
