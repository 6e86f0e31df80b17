import FX
import Testing

/// Each optimisation pass against the unoptimised graph, and what it must do.
struct PassTests {
  func kernel(_ effect: Effect, _ options: LoweringOptions = LoweringOptions()) throws -> (EffectGraph, Kernel, LoweringLog) {
    let graph = try EffectGraph(output: effect(.input()))
    let (k, log) = try Lower.run(graph, options: options)
    return (graph, k, log)
  }

  func count(_ op: Op, in kernel: Kernel) -> Int {
    kernel.loopNests.reduce(0) { total, pass in
      let live = pass.program.live()
      return total + pass.program.nodes.indices.filter { live[$0] && pass.program.nodes[$0].op == op }.count
    }
  }

  /// Two vignettes compute `length(position/size − 0.5)` once in the fused kernel.
  @Test func cseMergesAcrossFusedStages() throws {
    let (graph, k, log) = try kernel(vignette() | vignette(intensity: 0.5, radius: 0.6))
    #expect(k.loopNests.count == 1)
    #expect(count(.sqrt, in: k) == 1)
    #expect(log.entries.contains { $0.summary.contains("CSE merged") })
    let input = randomImage(11, 9, seed: 2, format: .rgba32f)
    #expect(maxDifference(try Interpreter.runStaged(graph, inputs: [input]), try Interpreter.run(k, inputs: [input])) <= 1e-5)
  }

  /// A color effect that folds to the identity (`color · 1`) disappears; the rest is unchanged.
  @Test func identityStageIsRemoved() throws {
    let scale = { (k: Float) in Effect.color("scale(\(k))") { _, c in c * Expr(k) } }
    let graph = try EffectGraph(output: (sepia() | scale(1) | vignette())(.input()))
    let (pruned, stats) = DeadCode.run(simplified(graph))
    #expect(stats.identities == 1)
    #expect(stats.unreachable == 1)
    #expect(pruned.stages.count == 2)
    let (k, _) = try Lower.run(graph)
    let input = randomImage(8, 5, seed: 7, format: .rgba32f)
    #expect(maxDifference(try Interpreter.runStaged(graph, inputs: [input]), try Interpreter.run(k, inputs: [input])) <= 1e-5)
    // Not an identity: scale(2) stays.
    let kept = DeadCode.run(simplified(try EffectGraph(output: (sepia() | scale(2))(.input())))).1
    #expect(kept.identities == 0)
  }

  func simplified(_ g: EffectGraph) -> EffectGraph {
    var g = g
    for i in g.stages.indices { g.stages[i].program = Simplify.run(g.stages[i].program).0 }
    return g
  }

  /// Constant folding changes nothing but the node count.
  @Test func simplifyAgreesWithTheUnoptimisedGraph() throws {
    var off = LoweringOptions()
    off.simplify = false
    off.splitSeparable = false
    for effect in [sepia(amount: 0.3) | contrast(amount: 1.4), pixelate(amount: 0.5, blockSize: 6), unsharpMask(sigma: 1, amount: 2)] {
      let (graph, optimised, _) = try kernel(effect)
      let (_, plain, _) = try kernel(effect, off)
      #expect(optimised.loopNests.map(\.program.liveCount).reduce(0, +) < plain.loopNests.map(\.program.liveCount).reduce(0, +))
      let input = randomImage(13, 7, seed: 3, format: .rgba32f)
      let reference = try Interpreter.runStaged(graph, inputs: [input])
      #expect(maxDifference(reference, try Interpreter.run(optimised, inputs: [input])) <= 1e-4)
      #expect(maxDifference(reference, try Interpreter.run(plain, inputs: [input])) <= 1e-4)
    }
  }
}

/// A chain whose fused pass would exceed ``Schedule/maxFusedNodes`` of code
/// is cut into several passes (materialised intermediates), so that LLVM's
/// time, which grows about as a pass's size squared, stays linear in the
/// chain's length (issue 39: `sepia` × 10,000 took 127 s); the cut changes
/// no bit of the result.
struct FusedSizeTests {
  @Test func aLongChainIsCutIntoPassesOfBoundedCode() throws {
    let chain = Effect.chain((0..<300).map { k in k % 2 == 0 ? sepia(amount: 0.5) : contrast(amount: 1.01) })
    let short = Effect.chain((0..<30).map { k in k % 2 == 0 ? sepia(amount: 0.5) : contrast(amount: 1.01) })
    let graph = try Pipeline(chain).graph
    let schedule = Schedule.decide(graph)
    #expect(schedule.materialised.count >= 2, "\(schedule.materialised)")
    #expect(schedule.notes.contains { $0.contains("would exceed \(Schedule.maxFusedNodes) nodes of code") })
    #expect(Schedule.decide(try Pipeline(short).graph).materialised.isEmpty, "a short chain stays one pass")
    let image = randomImage(37, 5, seed: 8, format: .rgba8)
    try expectInterpreterBitsAtEveryLevel(chain, image) { compiled, target in
      #expect(compiled.kernel.loopNests.count >= 3, "\(target.name)")
    }
  }

  @Test func aChainIsNamedOnce() {
    let chain = Effect.chain([sepia(), invert(), sepia()])
    #expect(chain.name == (sepia() | invert() | sepia()).name)
    #expect(Effect.chain([]).name == Effect.identity.name)
  }
}
