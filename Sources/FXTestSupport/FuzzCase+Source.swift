import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

// MARK: - Printing

extension ImageBuffer {
  /// A small image from literal pixels, row-major, for reproducers: channels in
  /// the format's own units (0…255 for rgba8, 0…65535 for rgba16, floats for rgba32f).
  public static func pixels(_ width: Int, _ height: Int, _ format: PixelFormat, _ values: [(Float, Float, Float, Float)])
    -> ImageBuffer
  {
    precondition(values.count == width * height, "\(values.count) pixels given for \(width)×\(height)")
    let b = try! ImageBuffer(width: width, height: height, format: format)
    let scale: Float = format == .rgba8 ? 255 : format == .rgba16 ? 65535 : 1
    for (i, v) in values.enumerated() {
      b[i % width, i / width] = SIMD4(v.0, v.1, v.2, v.3) / scale
    }
    return b
  }
}

extension FuzzCase {
  /// The case as Swift source over the FX API: the input images, then the graph.
  public var description: String {
    var s = "// fxc fuzz case, seed \(seed)\n"
    for (k, spec) in inputs.enumerated() {
      s += "let in\(k) = \(Self.source(of: spec))  // \(spec.width)×\(spec.height)\n"
    }
    return s + graphSource
  }

  /// The graph alone, as Swift source: parameters, stages, output.
  public var graphSource: String {
    var s = ""
    for (k, p) in params.enumerated() {
      s +=
        p.uniform
        ? "let u\(k) = Param.uniform(\"u\(k)\", \(Self.literal(p.value)))\n"
        : "let u\(k) = Param(\"u\(k)\", value: \(Self.literal(p.value)))\n"
    }
    func src(_ x: Source) -> String {
      switch x {
      case .input(let k): return "Image.input(\(k))"
      case .stage(let k): return "s\(k)"
      }
    }
    for (i, st) in stages.enumerated() {
      let sampler = "sampler: \(Self.source(of: st.sampler))"
      if let g = st.geometry {
        s += "let s\(i) = \(src(st.sources[0])).geometry(\(Self.source(of: g)))\n"
        continue
      }
      if let scan = st.scan {
        let filter =
          switch scan.filter {
          case .box(let r): ".box(radius: \(r))"
          case .gaussian(let g): ".gaussian(RecursiveGaussian(sigma: \(Self.literal(g.sigma))))"
          }
        s += "let s\(i) = \(src(st.sources[0])).scan(Scan(\(filter), axis: .\(scan.axis.rawValue)))\n"
        continue
      }
      if let reduction = st.reduction {
        let source =
          switch reduction {
          case .levels(let low, let high): ".levels(low: \(Self.literal(low)), high: \(Self.literal(high)))"
          case .equalize: ".equalize"
          case .clahe(let c): ".clahe(Clahe(tilesX: \(c.tilesX), tilesY: \(c.tilesY), clipLimit: \(Self.literal(c.clipLimit))))"
          }
        s += "let s\(i) = \(src(st.sources[0])).reduce(\(source))\n"
        continue
      }
      switch st.kind {
      case .color: s += "let s\(i) = Effect.color(\"s\(i)\") { position, color in\n"
      case .distortion: s += "let s\(i) = Effect.distortion(\"s\(i)\", \(sampler)) { position in\n"
      case .layer: s += "let s\(i) = Effect.layer(\"s\(i)\", \(sampler)) { position, layer in\n"
      case .combine, .geometry, .scan:
        s += "let s\(i) = Image.combine(\"s\(i)\", [\(st.sources.map(src).joined(separator: ", "))], \(sampler)) { position, layers in\n"
      }
      let printer = Printer(kind: st.kind)
      for (k, l) in st.locals.enumerated() { s += "  let v\(k): Expr = \(printer.print(l))\n" }
      s += "  return \(printer.print(st.body))\n"
      s += st.kind == .combine ? "}\n" : "}(\(src(st.sources[0])))\n"
    }
    s += "let output = \(src(output))"
    if jitSchedule != 0 { s += "  // the JIT compiles it with \(jitSchedule == 1 ? "forceInline" : "forceMaterialise")" }
    if outputFormat != .rgba32f { s += "  // stored as \(outputFormat)" }
    return s
  }

  /// The graph and input formats (no pixels): a key for caching compiled pipelines.
  var graphKey: String { graphSource + inputs.map { "\($0.format)" }.joined(separator: ",") + "→\(outputFormat)" }

  static func source(of s: Sampler) -> String { "Sampler(filter: .\(s.filter), address: .\(s.address))" }

  /// The geometries ``RandomGraph`` makes, as Swift source.
  static func source(of g: Geometry) -> String {
    func background(_ b: Background) -> String {
      switch b {
      case .color(let c): return ".color(SIMD4(\(literal(c.x)), \(literal(c.y)), \(literal(c.z)), \(literal(c.w))))"
      case .edge: return ".edge"
      case .mirror: return ".mirror"
      }
    }
    switch g {
    case .resize(let r):
      return ".resize(Resize(width: \(r.width.map(String.init) ?? "nil"), height: \(r.height.map(String.init) ?? "nil"), "
        + "fit: .\(r.fit), filter: .\(r.filter)))"
    case .crop(.rectangle(let x, let y, let w, let h)): return ".crop(.rectangle(x: \(x), y: \(y), width: \(w), height: \(h)))"
    case .crop(let c): return "/* \(c) */ .crop(.rectangle(x: 0, y: 0, width: 0, height: 0))"
    case .orient(let o): return ".orient(.\(o))"
    case .extend(let e):
      let m = e.margins(width: 0, height: 0)
      return
        ".extend(Extend(.margins(top: \(m.top), right: \(m.right), bottom: \(m.bottom), left: \(m.left)), background: \(background(e.background))))"
    case .affine(let a):
      return
        ".affine(Affine(a: \(a.a), b: \(a.b), c: \(a.c), d: \(a.d), interpolation: .\(a.interpolation), background: \(background(a.background))))"
    }
  }

  /// A float as Swift source that reads back to the same bits.
  static func literal(_ v: Float) -> String {
    if v.isNaN { return "Float.nan" }
    if v == .infinity { return "Float.infinity" }
    if v == -.infinity { return "-Float.infinity" }
    if v == 0 && v.sign == .minus { return "-0.0" }
    if v.isSubnormal {  // a literal would warn that it underflows
      if v.magnitude == .leastNonzeroMagnitude { return v < 0 ? "-Float.leastNonzeroMagnitude" : "Float.leastNonzeroMagnitude" }
      return "Float(bitPattern: 0x\(String(v.bitPattern, radix: 16)))"
    }
    return "\(v)"
  }

  static func source(of spec: Input) -> String {
    var s = "ImageBuffer.pixels(\(spec.width), \(spec.height), .\(spec.format), ["
    let rows = (0..<spec.height).map { y in
      (0..<spec.width).map { x -> String in
        let p = spec.pixels[y * spec.width + x]
        if spec.format != .rgba32f {
          let scale: Float = spec.format == .rgba8 ? 255 : 65535
          return "(" + (0..<4).map { "\(Int((p[$0] * scale).rounded()))" }.joined(separator: ", ") + ")"
        }
        return "(" + (0..<4).map { literal(p[$0]) }.joined(separator: ", ") + ")"
      }.joined(separator: ", ")
    }
    if rows.count == 1 && rows[0].count < 90 { return s + rows[0] + "])" }
    s += "\n" + rows.map { "    " + $0 }.joined(separator: ",\n") + "])"
    return s
  }
}

struct Printer {
  var kind: FuzzCase.Kind

  /// `depth`: how many loops enclose `e` (their index and accumulator are `iK`, `aK[0]`).
  func print(_ e: FuzzExpr, depth: Int = 0) -> String {
    switch e.op {
    case .fold(let limit, let exit):
      let bounds = e.args[..<3].map { print($0, depth: depth) }
      if exit {
        return "Expr.fold(from: \(bounds[0]), to: \(bounds[1]), limit: \(limit), initial: [\(bounds[2]), \(print(e.args[4], depth: depth))], "
          + "exit: 1) { i\(depth), a\(depth) in [\(print(e.args[3], depth: depth + 1)), \(print(e.args[5], depth: depth + 1))] }[0]"
      }
      return
        "Expr.fold(from: \(bounds[0]), to: \(bounds[1]), limit: \(limit), initial: [\(bounds[2])]) { i\(depth), a\(depth) in [\(print(e.args[3], depth: depth + 1))] }[0]"
    case .loopIndex(let level): return level < depth ? "i\(level)" : "Expr.int(0)"
    case .accumulator(let level):
      if level < depth { return "a\(level)[0]" }
      return e.type.lanes == 1 ? "Expr(Float(0))" : "float\(e.type.lanes)(Expr(Float(0)))"
    default: break
    }
    let a = e.args.map { print($0, depth: depth) }
    switch e.op {
    case .fold, .loopIndex, .accumulator: preconditionFailure("handled above")
    case .float(let bits):
      let v = Float(bitPattern: bits)
      return bareLiteral(v) ? FuzzCase.literal(v) : "Expr(\(FuzzCase.literal(v)))"
    case .int(let v): return "Expr.int(\(v))"
    case .bool(let v): return "Expr(booleanLiteral: \(v))"
    case .position: return "position"
    case .size: return "Expr.size"
    case .color: return "color"
    case .local(let k): return "v\(k)"
    case .param(let k): return "Expr(u\(k))"
    case .layerSize(let k): return "\(layer(k)).size"
    case .sample(let k, let s):
      return "\(layer(k)).sample(\(a[0])\(s.map { ", " + FuzzCase.source(of: $0) } ?? ""))"
    case .call(let f): return "\(f)(\(a.joined(separator: ", ")))"
    case .infix(let o): return "(\(a[0]) \(o) \(a[1]))"
    case .prefix(let o): return "\(o)\(operand(e.args[0], a[0]))"
    case .swizzle(let s): return "\(operand(e.args[0], a[0])).\(s)"
    case .vector(let n): return "float\(n)(\(a.joined(separator: ", ")))"
    }
  }

  /// Whether `v` prints as a plain Swift float literal (not NaN, ±∞, −0 or subnormal).
  func bareLiteral(_ v: Float) -> Bool { v.isNormal || (v == 0 && v.sign == .plus) }

  func layer(_ k: Int) -> String { kind == .combine ? "layers[\(k)]" : "layer" }

  /// The operand of a prefix operator or a swizzle: a constant as an `Expr`
  /// (so that `-Expr(5.0)` stays a negation and `Expr(2.0).xy` a swizzle), a
  /// prefix expression in parentheses.
  func operand(_ e: FuzzExpr, _ text: String) -> String {
    switch e.op {
    case .float(let bits):
      let v = Float(bitPattern: bits)
      return bareLiteral(v) ? "Expr(\(FuzzCase.literal(v)))" : text
    case .prefix: return "(\(text))"
    default: return text
    }
  }
}
