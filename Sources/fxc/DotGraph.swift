import FX

/// `fxc dump --dot`: a compiled pipeline as a Graphviz graph (the DOT
/// language, graphviz.org/doc/info/lang.html): each segment's kernel in a
/// cluster, its buffers as ellipses (inputs, intermediates materialised by
/// the schedule, the output) and its passes as boxes, an edge for each
/// buffer a pass reads and the one it writes; each cut (resize, crop, a blur
/// by scans, a reduction) as a hexagon between the segment it ends and the
/// one it starts.
///
///     fxc dump -c 'gaussianBlur(2) | resize(width: 300) | sepia' --dot | dot -Tsvg > plan.svg
enum DotGraph {
  static func render(_ compiled: CompiledPipeline, chain: String) -> String {
    var lines = ["digraph fxc {", "  label=\(quoted("fxc: " + chain))", "  labelloc=t", "  rankdir=LR", "  node [fontname=Helvetica]"]
    let segments = [(compiled.kernel, nil as Cut?)] + compiled.steps.map { ($0.next.kernel, $0.cut) }
    for (s, (kernel, cut)) in segments.enumerated() {
      if let cut {
        lines.append("  cut\(s) [shape=hexagon, style=filled, fillcolor=lightyellow, label=\(quoted("cut \(s): \(cut)"))]")
        lines.append("  s\(s - 1)_b\(segments[s - 1].0.outputBuffer) -> cut\(s)")
        lines.append("  cut\(s) -> s\(s)_b0")
      }
      lines += cluster(kernel, segment: s)
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// Segment `s`'s kernel: its buffers, its passes, and what each pass reads and writes.
  static func cluster(_ kernel: Kernel, segment s: Int) -> [String] {
    var lines = [
      "  subgraph cluster_\(s) {",
      "    label=\(quoted("segment \(s): \(kernel.loopNests.count) loop nest\(kernel.loopNests.count == 1 ? "" : "s")"))",
    ]
    for b in 0..<kernel.bufferCount {
      let name = b < kernel.inputCount ? "in\(b)" : b == kernel.outputBuffer ? "out" : "t\(b)"
      lines.append("    s\(s)_b\(b) [shape=ellipse, label=\(quoted(name))]")
    }
    for (p, pass) in kernel.loopNests.enumerated() {
      lines.append("    s\(s)_p\(p) [shape=box, style=filled, fillcolor=lightblue, label=\(quoted(pass.name))]")
      for b in reads(pass).sorted() { lines.append("    s\(s)_b\(b) -> s\(s)_p\(p)") }
      lines.append("    s\(s)_p\(p) -> s\(s)_b\(pass.output)")
    }
    lines.append("  }")
    return lines
  }

  /// The buffers a pass loads from, its loops' bodies included.
  static func reads(_ pass: Kernel.LoopNest) -> Set<Int> {
    var buffers: Set<Int> = []
    pass.program.visitDeep { node in
      if case .load(let buffer, _) = node.op { buffers.insert(buffer) }
    }
    return buffers
  }

  /// `text` as a DOT string: in double quotes, with `"` and `\` escaped.
  static func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
