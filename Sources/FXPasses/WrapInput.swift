import FXIR

/// Gives input 0 a copy stage that the schedule can materialise — Halide's
/// `Func::in()` wrapper.
///
/// An input is stored interleaved (RGBA8, RGBA16 or RGBA32F), so every read of it
/// is a load plus a deinterleave and a conversion to float. A consumer that
/// reads it at many taps (the horizontal pass of a split blur reads 2r + 1)
/// repeats that work per tap. The wrapper is an identity stage,
/// `copy(p) = sample(in0, nearest, clampToEdge, p)`, and every stage reads the
/// copy instead of the input. The schedule then decides as for any stage: the
/// copy is inlined (the code is what it was without the wrapper) or
/// materialised as a planar RGBA32F buffer, converted once per pixel and read
/// by dense loads.
///
/// The copy is exact: it has input 0's size (the output size), is evaluated at
/// pixel centers, and an RGBA32F texel holds every RGBA8/RGBA16 value exactly,
/// so a consumer's sample of the copy under any sampler equals its sample of
/// the input. Other inputs may have other sizes, so they are left alone.
public enum WrapInput {
  /// The graph with the wrapper as stage 0, or nil when no stage reads input 0.
  public static func run(_ g: EffectGraph) -> EffectGraph? {
    func readsInput0(_ p: Program) -> Bool {
      p.containsDeep { if case .sample(.input(0), _, _) = $0 { true } else { false } }
    }
    guard g.stages.contains(where: { readsInput0($0.program) }) else { return nil }
    var out = g
    let moved: (ImageRef) -> ImageRef = { ref in
      switch ref {
      case .input(0): return .stage(0)
      case .stage(let k): return .stage(k + 1)
      case .input: return ref
      }
    }
    for k in out.stages.indices { out.stages[k].program = SeparableSplit.remap(out.stages[k].program, moved) }
    if case .stage(let k) = out.output { out.output = .stage(k + 1) }

    var copy = Program()
    let x = copy.add(.positionX), y = copy.add(.positionY)
    copy.outputs = (0..<4).map { c in copy.add(.sample(.input(0), Sampler(filter: .nearest, address: .clampToEdge), channel: c), [x, y]) }
    out.stages.insert(Stage(name: "\(g.inputs.first ?? "input") (planar copy)", kind: .color, program: copy), at: 0)
    return out
  }
}
