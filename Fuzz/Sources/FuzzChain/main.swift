// The chain fuzz target: any text goes through what `fxc run --chain` does
// with it (issue 16). Parsing and resolving against the catalogue may throw
// a ChainSyntaxError, and nothing else; a chain that resolves must print as
// text that parses back to the same calls, build a graph, lower, and run in
// the interpreter on a small image without crashing. libFuzzer's `main`
// drives it; this file is compiled with -parse-as-library.
import FX

#if canImport(Glibc)
  import Glibc
#endif

/// One input: the bytes as UTF-8 text (invalid sequences become U+FFFD, as
/// for a command-line argument).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChain(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
  let resolved: ResolvedChain
  do {
    let syntax = try ChainSyntax.parse(text)
    checkRoundTrip(syntax)
    resolved = try syntax.resolve()
  } catch {
    precondition(!error.message.isEmpty && error.column >= 1, "an error without a message or column: \(error)")
    _ = error.description
    return 0
  }
  run(resolved)
  return 0
}

/// The canonical spelling parses back to the same calls (their columns aside).
private func checkRoundTrip(_ syntax: ChainSyntax) {
  let printed = syntax.description
  guard let reparsed = try? ChainSyntax.parse(printed) else { fatalError("'\(printed)' (printed from '\(syntax.source)') does not parse") }
  func shape(_ chain: ChainSyntax) -> [String] {
    chain.calls.map { call in ([call.name] + call.arguments.map { "\($0.label ?? "_"):\($0.value)" }).joined(separator: " ") }
  }
  precondition(reparsed.calls.count == syntax.calls.count, "'\(printed)' has other calls than '\(syntax.source)'")
  for (a, b) in zip(reparsed.calls, syntax.calls) {
    precondition(a.name == b.name && a.arguments.map(\.label) == b.arguments.map(\.label), "'\(printed)' vs '\(syntax.source)'")
    precondition(a.arguments.map(\.value) == b.arguments.map(\.value), "values of \(shape(reparsed)) vs \(shape(syntax))")
  }
}

/// A 7 × 5 image with every channel varying and some pixels translucent.
private let input: ImageBuffer = {
  let image = try! ImageBuffer(width: 7, height: 5, format: .rgba8)
  for y in 0..<5 {
    for x in 0..<7 {
      let a = Float((x + y) % 3 + 1) / 3
      image[x, y] = SIMD4(Float(x) / 6 * a, Float(y) / 4 * a, Float((x * y) % 5) / 4 * a, a)
    }
  }
  return image
}()

/// Builds, lowers and interprets a resolved chain. A chain the catalogue
/// accepted is a valid graph, so any error here is a finding; each is
/// reported with the chain, and the process stops.
private func run(_ resolved: ResolvedChain) {
  let chain = resolved.calls.map(\.spec.name).joined(separator: " | ")
  do {
    let pipeline = try Pipeline(resolved.effect)
    // A transition reads a second image (`--to`); a chain of them, more.
    let inputs = Array(repeating: input, count: max(pipeline.graph.inputs.count, 1))
    let compiled = try pipeline.compile(
      inputFormats: inputs.map(\.format), outputFormat: input.format, backend: .interpreter, cache: nil)
    let output = try compiled.run(inputs)
    precondition(output.width == input.width && output.height == input.height, "\(chain): output size")
  } catch {
    fatalError("\(chain): a resolved chain failed: \(type(of: error)): \(error)")
  }
}
