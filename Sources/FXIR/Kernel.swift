/// The result of lowering: straight-line per-pixel programs over buffers, ready
/// for the interpreter or the code generator.
///
/// Buffers are numbered: `0..<inputCount` are the graph's inputs, then one
/// RGBA32F intermediate per materialised stage, and last the output. Every
/// buffer except inputs `1…` has the output's size. Loop nests run in order; each
/// computes every pixel of its output buffer (rows may be split across threads).
/// Every `load` in a loop nest program reads a texel index that the program itself
/// has resolved through the sampler's address mode, so loads are in bounds by
/// construction, whatever the parameters.
public struct Kernel: Sendable, CustomStringConvertible {
  public struct LoopNest: Sendable {
    /// The stage this loop nest computes.
    public var name: String
    /// A kernel-level program: reads `pixelX/pixelY`, `load`s; four float outputs (RGBA).
    public var program: Program
    /// Buffer index written.
    public var output: Int

    public init(name: String, program: Program, output: Int) {
      self.name = name
      self.program = program
      self.output = output
    }
  }

  public var inputCount: Int
  /// For each intermediate buffer (index `inputCount + i`), the stage it holds.
  public var intermediates: [Int]
  public var loopNests: [LoopNest]
  public var uniformCount: Int
  /// Why each stage was inlined or materialised, for `fxc dump`.
  public var scheduleNotes: [String]
  /// Inputs stored with straight alpha (8- and 16-bit buffers, DESIGN §1):
  /// their `load`s return the stored values and the program premultiplies
  /// color by alpha itself, in fp32. Other inputs hold premultiplied values.
  public var straightAlphaInputs: Set<Int>
  /// Whether the output buffer holds straight alpha: the last loop nest's program
  /// un-premultiplies (`c / a` where `a > 0`, else 0) before the store quantises.
  public var straightAlphaOutput: Bool

  public init(
    inputCount: Int, intermediates: [Int], loopNests: [LoopNest], uniformCount: Int, scheduleNotes: [String],
    straightAlphaInputs: Set<Int> = [], straightAlphaOutput: Bool = false
  ) {
    self.inputCount = inputCount
    self.intermediates = intermediates
    self.loopNests = loopNests
    self.uniformCount = uniformCount
    self.scheduleNotes = scheduleNotes
    self.straightAlphaInputs = straightAlphaInputs
    self.straightAlphaOutput = straightAlphaOutput
  }

  public var outputBuffer: Int { inputCount + intermediates.count }
  public var bufferCount: Int { outputBuffer + 1 }

  public var description: String {
    var s = "kernel: \(loopNests.count) loop nest\(loopNests.count == 1 ? "" : "s"), buffers: "
    s += (0..<bufferCount).map { b in
      if b < inputCount { return "b\(b)=in\(b)" + (straightAlphaInputs.contains(b) ? " (straight alpha)" : "") }
      if b == outputBuffer { return "b\(b)=output" + (straightAlphaOutput ? " (straight alpha)" : "") }
      return "b\(b)=s\(intermediates[b - inputCount]) (rgba32f)"
    }.joined(separator: ", ")
    for p in loopNests {
      s += "\nloop nest '\(p.name)' → b\(p.output) (\(p.program.liveCount) nodes)\n\(p.program)"
    }
    return s
  }
}
