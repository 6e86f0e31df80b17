import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

/// Candidate reductions of a case, simplest first. Every candidate is well-typed.
enum Shrinker {
  /// Fewer stages, unused locals removed, simpler samplers, unused input dropped.
  static func graphCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    guard case .stage(let last) = c.output else { return out }
    // An earlier stage as the output.
    for s in 0..<last { out.append(pruned(with(c) { $0.output = .stage(s) })) }
    // Bypass a stage: its users read its first source instead.
    for s in 0...last {
      let replacement = c.stages[s].sources[0]
      var d = c
      for i in d.stages.indices {
        d.stages[i].sources = d.stages[i].sources.map { $0 == .stage(s) ? replacement : $0 }
      }
      if d.output == .stage(s) {
        // The output may be input 0 itself (the empty chain), never an input of another size.
        guard replacement != .input(1) else { continue }
        d.output = replacement
      }
      out.append(pruned(d))
    }
    // Input 0 read instead of input 1.
    if c.stages.contains(where: { $0.sources.contains(.input(1)) }) {
      var d = c
      for i in d.stages.indices { d.stages[i].sources = d.stages[i].sources.map { $0 == .input(1) ? .input(0) : $0 } }
      out.append(d)
    }
    // Input 1, when nothing reads it.
    if c.inputs.count > 1 && !c.stages.contains(where: { $0.sources.contains(.input(1)) }) {
      out.append(with(c) { $0.inputs.removeLast() })
    }
    // A combine reading fewer images.
    for s in 0...last where c.stages[s].kind == .combine && c.stages[s].sources.count > 1 {
      for k in c.stages[s].sources.indices where !uses(layer: k, c.stages[s]) {
        var d = c
        d.stages[s].sources.remove(at: k)
        d.stages[s] = renumberLayers(d.stages[s], removed: k)
        out.append(d)
      }
    }
    // A combine of one image as a layer effect.
    for s in 0...last where c.stages[s].kind == .combine && c.stages[s].sources.count == 1 {
      out.append(with(c) { $0.stages[s].kind = .layer })
    }
    // Unused locals.
    for s in 0...last {
      for k in c.stages[s].locals.indices.reversed() where !uses(local: k, c.stages[s]) {
        var d = c
        d.stages[s].locals.remove(at: k)
        d.stages[s] = renumberLocals(d.stages[s], removed: k)
        out.append(d)
      }
    }
    // Plainer samplers.
    for s in 0...last where c.stages[s].sampler != .linear && ![.color, .geometry, .scan].contains(c.stages[s].kind) {
      out.append(with(c) { $0.stages[s].sampler = .linear })
      if c.stages[s].sampler.filter != .linear {
        out.append(with(c) { $0.stages[s].sampler.filter = .linear })
      }
      if c.stages[s].sampler.address != .clampToEdge {
        out.append(with(c) { $0.stages[s].sampler.address = .clampToEdge })
      }
    }
    // Unused parameters.
    for k in c.params.indices.reversed()
    where !c.stages.contains(where: { st in
      (st.locals + [st.body]).contains { visit($0) { $0.op == .param(k) } }
    }) {
      var d = with(c) { $0.params.remove(at: k) }
      let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
        if case .param(let i) = op, i > k { return .param(i - 1) }
        return op
      }
      for s in d.stages.indices {
        d.stages[s].locals = d.stages[s].locals.map { rewrite($0, f) }
        d.stages[s].body = rewrite(d.stages[s].body, f)
      }
      out.append(d)
    }
    return out + plainerRun(c)
  }

  /// The JIT's default schedule, and a float output.
  static func plainerRun(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    if c.jitSchedule != 0 { out.append(with(c) { $0.jitSchedule = 0 }) }
    if c.outputFormat != .rgba32f { out.append(with(c) { $0.outputFormat = .rgba32f }) }
    return out
  }

  static func isStage(_ s: FuzzCase.Source) -> Bool {
    if case .stage = s { return true }
    return false
  }

  static func with(_ c: FuzzCase, _ f: (inout FuzzCase) -> Void) -> FuzzCase {
    var d = c
    f(&d)
    return d
  }

  /// Drops stages the output does not reach, renumbering the rest.
  static func pruned(_ c: FuzzCase) -> FuzzCase {
    var live = [Bool](repeating: false, count: c.stages.count)
    if case .stage(let o) = c.output { live[o] = true }
    for s in stride(from: c.stages.count - 1, through: 0, by: -1) where live[s] {
      for case .stage(let p) in c.stages[s].sources { live[p] = true }
    }
    var index = [Int](repeating: -1, count: c.stages.count)
    var d = c
    d.stages = []
    for s in c.stages.indices where live[s] {
      index[s] = d.stages.count
      d.stages.append(c.stages[s])
    }
    func map(_ x: FuzzCase.Source) -> FuzzCase.Source {
      if case .stage(let k) = x { return .stage(index[k]) }
      return x
    }
    for i in d.stages.indices { d.stages[i].sources = d.stages[i].sources.map(map) }
    d.output = map(d.output)
    return d
  }

  static func visit(_ e: FuzzExpr, _ f: (FuzzExpr) -> Bool) -> Bool {
    if f(e) { return true }
    return e.args.contains { visit($0, f) }
  }

  static func uses(local k: Int, _ st: FuzzCase.Stage) -> Bool {
    (st.locals + [st.body]).contains { visit($0) { $0.op == .local(k) } }
  }

  static func uses(layer k: Int, _ st: FuzzCase.Stage) -> Bool {
    (st.locals + [st.body]).contains {
      visit($0) {
        if case .sample(let l, _) = $0.op, l == k { return true }
        return $0.op == .layerSize(k)
      }
    }
  }

  static func rewrite(_ e: FuzzExpr, _ f: (FuzzExpr.Op) -> FuzzExpr.Op) -> FuzzExpr {
    FuzzExpr(f(e.op), e.args.map { rewrite($0, f) }, e.type)
  }

  static func rewriteNodes(_ e: FuzzExpr, _ f: (FuzzExpr) -> FuzzExpr?) -> FuzzExpr {
    if let r = f(e) { return r }
    var d = e
    d.args = e.args.map { rewriteNodes($0, f) }
    return d
  }

  static func withoutUnusedLocals(_ st: FuzzCase.Stage) -> FuzzCase.Stage {
    var s = st
    for k in s.locals.indices.reversed() where !uses(local: k, s) {
      s.locals.remove(at: k)
      s = renumberLocals(s, removed: k)
    }
    return s
  }

  static func renumberLocals(_ st: FuzzCase.Stage, removed k: Int) -> FuzzCase.Stage {
    var s = st
    let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
      if case .local(let i) = op, i > k { return .local(i - 1) }
      return op
    }
    s.locals = s.locals.map { rewrite($0, f) }
    s.body = rewrite(s.body, f)
    return s
  }

  static func renumberLayers(_ st: FuzzCase.Stage, removed k: Int) -> FuzzCase.Stage {
    var s = st
    let f: (FuzzExpr.Op) -> FuzzExpr.Op = { op in
      if case .sample(let i, let sm) = op, i > k { return .sample(i - 1, sm) }
      if case .layerSize(let i) = op, i > k { return .layerSize(i - 1) }
      return op
    }
    s.locals = s.locals.map { rewrite($0, f) }
    s.body = rewrite(s.body, f)
    return s
  }

  /// Every expression of the case with one subtree replaced by something smaller of the same type.
  static func exprCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    for s in c.stages.indices {
      let st = c.stages[s]
      for k in 0...st.locals.count {
        let root = k < st.locals.count ? st.locals[k] : st.body
        // A local inlined at its uses.
        for l in st.locals.indices where visit(root, { $0.op == .local(l) }) {
          let inlined = rewriteNodes(root) { $0.op == .local(l) ? st.locals[l] : nil }
          var d = c
          if k < st.locals.count { d.stages[s].locals[k] = inlined } else { d.stages[s].body = inlined }
          out.append(d)
        }
        for replaced in smaller(root) {
          var d = c
          if k < st.locals.count { d.stages[s].locals[k] = replaced } else { d.stages[s].body = replaced }
          out.append(d)
        }
      }
    }
    return out
  }

  /// `e` with one node replaced, outermost nodes first.
  static func smaller(_ e: FuzzExpr) -> [FuzzExpr] {
    var out = replacements(e)
    for (i, a) in e.args.enumerated() {
      for r in smaller(a) {
        var d = e
        d.args[i] = r
        out.append(d)
      }
    }
    return out
  }

  /// Smaller expressions of `e`'s type to put in its place.
  static func replacements(_ e: FuzzExpr) -> [FuzzExpr] {
    var out: [FuzzExpr] = []
    // An operand of the same type.
    for a in e.args where a.type == e.type && !(a.size >= e.size) { out.append(a) }
    // A sample with the layer's own sampler.
    if case .sample(let k, .some) = e.op { out.append(FuzzExpr(.sample(k, nil), e.args, e.type)) }
    // A constant.
    let isSimple: Bool = {
      switch e.op {
      case .float(let b): return [Float(0), 1, 0.5].contains(Float(bitPattern: b))
      case .int(let v): return v == 0 || v == 1
      case .bool: return true
      case .position, .size, .color, .param, .layerSize: return true
      case .vector: return e.args.count == 1 && e.args[0].isConstant
      default: return false
      }
    }()
    if !isSimple {
      switch e.type.scalar {
      case .float:
        for v: Float in [0, 1, 0.5] {
          out.append(e.type.lanes == 1 ? .float(v) : FuzzExpr(.vector(e.type.lanes), [.float(v)], e.type))
        }
      case .int: out += [.int(0), .int(1)]
      case .bool:
        if e.type.lanes == 1 { out += [.bool(true), .bool(false)] }
      }
    } else if case .float(let b) = e.op, Float(bitPattern: b) != 0 {
      out.append(.float(0))
    }
    if e.type == .float2, e.size > 1 { out.append(FuzzExpr(.position, [], .float2)) }
    return out
  }

  /// Smaller images, and plainer pixels.
  static func imageCandidates(_ c: FuzzCase) -> [FuzzCase] {
    var out: [FuzzCase] = []
    for k in c.inputs.indices {
      let spec = c.inputs[k]
      var sizes: [(Int, Int)] = [
        (1, 1), (spec.width, 1), (1, spec.height), ((spec.width + 1) / 2, spec.height),
        (spec.width, (spec.height + 1) / 2), (spec.width - 1, spec.height), (spec.width, spec.height - 1),
      ]
      sizes = sizes.filter { $0.0 >= 1 && $0.1 >= 1 && ($0.0 < spec.width || $0.1 < spec.height) }
      for (w, h) in sizes {
        out.append(with(c) { $0.inputs[k] = cropped(spec, w, h) })
      }
    }
    // Pixels only ever get plainer: the number of pixels that are neither zero
    // nor `plain` and then the number of non-zero channels go down, so this terminates.
    let plain = SIMD4<Float>(0.5, 0.25, 0.125, 1)
    for k in c.inputs.indices {
      let spec = c.inputs[k]
      if spec.pixels.contains(where: { $0 != .zero }) {
        out.append(with(c) { $0.inputs[k].pixels = Array(repeating: .zero, count: spec.pixels.count) })
      }
      if spec.pixels.contains(where: { $0 != .zero && $0 != plain }) {
        out.append(with(c) { $0.inputs[k].pixels = spec.pixels.map { $0 == .zero ? .zero : plain } })
      }
      for i in spec.pixels.indices where spec.pixels[i] != .zero {
        out.append(with(c) { $0.inputs[k].pixels[i] = .zero })
        if spec.pixels[i] == plain { continue }
        out.append(with(c) { $0.inputs[k].pixels[i] = plain })
        for ch in 0..<4 where spec.pixels[i][ch] != 0 {
          out.append(with(c) { $0.inputs[k].pixels[i][ch] = 0 })
        }
      }
    }
    return out
  }

  static func cropped(_ spec: FuzzCase.Input, _ w: Int, _ h: Int) -> FuzzCase.Input {
    var s = spec
    s.width = w
    s.height = h
    s.pixels = (0..<h).flatMap { y in (0..<w).map { x in spec.pixels[y * spec.width + x] } }
    return s
  }
}
