import FX
import FXIR
import FXImage
import FXInterpreter
import FXPasses
import Foundation

// The cuts a random graph may get (docs/design.md §4): geometry stages,
// scans and reductions, each from a random stream of its own.
extension Generator {
  /// Sometimes a scan (docs/design.md §4) in the chain: a recursive
  /// Gaussian or a running-sum box along x or y, its reach from a pixel to
  /// past the image. From a stream of its own, so every seed keeps the
  /// graph it had before scans were generated.
  mutating func scanCut(_ c: inout FuzzCase) {
    var r = SplitMix64(seed: SplitMix64.derive(config.seed, -3))
    guard r.chance(0.2), !c.stages.isEmpty else { return }
    let at = r.below(c.stages.count + 1)
    let filter: Scan.Filter =
      r.chance(0.5)
      ? .gaussian(RecursiveGaussian(sigma: r.pick([0.5, 1.3, 4, 17, 60] as [Float])))
      : .box(radius: r.pick([1, 2, 7, 40]))
    var stage = FuzzCase.Stage(
      kind: .scan, sampler: .nearest, sources: [at == 0 ? .input(0) : .stage(at - 1)], locals: [],
      body: FuzzExpr(.vector(4), [.float(0)], .float4), scan: Scan(filter, axis: r.chance(0.5) ? .x : .y))
    // A reduction (docs/design.md §4) in one case in four, drawn after the scan so that scans stay as they were.
    if r.chance(0.25) {
      stage.scan = nil
      stage.reduction = r.pick(
        [.levels(low: 0, high: 0), .levels(low: 3, high: 1), .equalize, .clahe(Clahe(tilesX: 3, tilesY: 2, clipLimit: 2))] as [Reduction])
    }
    insert(stage, at: at, into: &c)
  }

  /// Sometimes a geometry stage (docs/design.md §4) in the chain: resizes
  /// with every filter, crops, the eight orientations, margins, affine maps.
  /// It reads the stage before it (or input 0); later stages that read
  /// input 0 or anything before it read it instead (a stage may not read
  /// both sides of a change of size). Drawn from a stream of its own, so
  /// every seed keeps the graph it had before.
  mutating func geometryCut(_ c: inout FuzzCase) {
    var r = SplitMix64(seed: SplitMix64.derive(config.seed, -2))
    guard r.chance(0.3), !c.stages.isEmpty else { return }
    let at = r.below(c.stages.count + 1)  // the new stage's index
    let source: FuzzCase.Source = at == 0 ? .input(0) : .stage(at - 1)
    let geometry: Geometry
    switch r.below(5) {
    case 0:
      geometry = .resize(Resize(width: 1 + r.below(24), height: 1 + r.below(24), fit: .fill, filter: r.pick(ResampleFilter.allCases)))
    case 1: geometry = .crop(.rectangle(x: r.below(2), y: r.below(2), width: -r.below(2), height: -r.below(2)))
    case 2: geometry = .orient(r.pick(Orientation.allCases))
    case 3:
      let backgrounds: [Background] = [.edge, .mirror, .color(SIMD4(0.25, 0.5, 0, 0.5)), .color(SIMD4(0, 0, 0, 0))]
      geometry = .extend(Extend(.margins(top: r.below(4), right: r.below(4), bottom: r.below(4), left: r.below(4)), background: r.pick(backgrounds)))
    default:
      let t = Double(r.below(360)) * Double.pi / 180, s = 0.5 + Double(r.below(4)) * 0.25
      geometry = .affine(
        Affine(
          a: s * Foundation.cos(t), b: -s * Foundation.sin(t), c: s * Foundation.sin(t), d: s * Foundation.cos(t),
          interpolation: r.pick(Sampler.Filter.allCases), background: r.pick([.color(SIMD4(0, 0, 0, 0)), .edge])))
    }
    let cut = FuzzCase.Stage(
      kind: .geometry, sampler: .nearest, sources: [source], locals: [], body: FuzzExpr(.vector(4), [.float(0)], .float4),
      geometry: geometry)
    insert(cut, at: at, into: &c)
  }

  /// `cut` (a stage reading the stage before `at`, or input 0) made stage
  /// `at`; later stages that read input 0 or anything before it read it
  /// instead (a stage may not read both sides of a cut).
  func insert(_ cut: FuzzCase.Stage, at: Int, into c: inout FuzzCase) {
    func shifted(_ x: FuzzCase.Source) -> FuzzCase.Source {
      if case .stage(let k) = x, k >= at { return .stage(k + 1) }
      return x
    }
    var stages = Array(c.stages[..<at]) + [cut]
    for var st in c.stages[at...] {
      st.sources = st.sources.map { x in
        switch x {
        case .input(0): return .stage(at)
        case .stage(let k) where k < at: return .stage(at)
        default: return shifted(x)
        }
      }
      stages.append(st)
    }
    let appended = at == c.stages.count
    c.stages = stages
    c.output = appended ? .stage(at) : shifted(c.output)
  }
}
