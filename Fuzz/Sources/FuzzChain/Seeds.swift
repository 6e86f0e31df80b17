// Seeds and a dictionary for the chain target, made from the catalogue so
// that they follow it: scripts/fuzz.sh runs the target once with
// FXC_FUZZ_SEEDS (a directory) and FXC_FUZZ_DICT (a file) set, before it
// fuzzes with `-dict=`.
import FX

#if canImport(Glibc)
  import Glibc
#endif

/// libFuzzer calls this once, before any input; it writes the seeds and the
/// dictionary when asked to and leaves the arguments alone.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzChainInitialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
  if let directory = getenv("FXC_FUZZ_SEEDS").map({ String(cString: $0) }) {
    for (k, seed) in seeds().enumerated() { write(seed, to: "\(directory)/seed-\(k)") }
  }
  if let path = getenv("FXC_FUZZ_DICT").map({ String(cString: $0) }) {
    write(dictionary().map { "\"\($0)\"" }.joined(separator: "\n") + "\n", to: path)
  }
  return 0
}

/// Every effect's example; each effect with every argument labelled at its
/// lowest and at its highest value; and the examples three to a chain.
private func seeds() -> [String] {
  let effects = EffectRegistry.builtIn.effects
  let examples = effects.map { $0.example.isEmpty ? $0.name : $0.example }
  var seeds = examples
  for spec in effects where !spec.parameters.isEmpty {
    for pickHigh in [false, true] {
      let arguments = spec.parameters.compactMap { p -> String? in
        switch p.kind {
        case .number: "\(p.name): \(ChainSyntax.Value.number(Double(pickHigh ? p.range.upperBound : p.range.lowerBound)))"
        case .choice(let names): "\(p.name): \(pickHigh ? names.last! : names[0])"
        case .color: "\(p.name): \(pickHigh ? "#ffffff80" : "#000000")"
        case .colors: nil
        }
      }
      seeds.append("\(spec.name)(\(arguments.joined(separator: ", ")))")
    }
  }
  for start in stride(from: 0, to: examples.count, by: 3) {
    seeds.append(examples[start..<min(start + 3, examples.count)].joined(separator: " | "))
  }
  return seeds
}

/// The words of chains: effect, parameter and choice names, and punctuation.
private func dictionary() -> [String] {
  var words: Set<String> = ["|", "(", ")", ",", ":", "#", "#ff8000", "#ff800080", "nan", "inf", "-", "e-", ".5", "1e9"]
  for spec in EffectRegistry.builtIn.effects {
    words.insert(spec.name)
    for p in spec.parameters {
      words.insert(p.name + ":")
      if case .choice(let names) = p.kind { words.formUnion(names) }
    }
  }
  return words.sorted()
}

private func write(_ text: String, to path: String) {
  guard let file = fopen(path, "w") else { fatalError("cannot write \(path)") }
  _ = text.utf8CString.withUnsafeBufferPointer { fputs($0.baseAddress!, file) }
  fclose(file)
}
