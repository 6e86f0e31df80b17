// Resolution turns a parsed chain into effects: it looks every name up in the
// catalogue, binds arguments to parameters, and checks every value, reporting
// through `ChainSyntaxError` so each message points at the column to fix.
// Unlike the library, which clamps (DESIGN §5), it rejects out-of-range values.

/// A chain whose names and arguments have been checked against the ``Catalogue``:
/// the effect to run, and what each call resolved to.
public struct ResolvedChain {
  /// The whole chain as one effect, first call first.
  public var effect: Effect
  /// The calls, in the order they apply.
  public var calls: [Call]
  /// The parameters made uniform, in the order they first appear in the chain.
  public var uniforms: [Uniform]
  /// The image files the chain names (`displace(noise: "noise.png")`), each
  /// path once, in the order they first appear: the graph reads them as
  /// inputs 2, 3, … (input 0 is the image processed, input 1 is `--to`).
  public var images: [ImageFile] = []

  /// An image file a chain names for an image parameter.
  public struct ImageFile: Equatable {
    /// The path as written, relative to the current directory unless absolute.
    public var path: String
    /// The graph input that reads it (2, 3, …).
    public var input: Int
    /// The first parameter given it, `effect.parameter`: `displace.noise`.
    public var parameter: String
    /// The 1-based column of that argument in the chain.
    public var column: Int
  }

  /// One effect call of the chain, with every parameter bound.
  public struct Call {
    /// The catalogue entry the call names.
    public var spec: EffectSpec
    /// The 1-based column of the effect's name in the source.
    public var column: Int
    /// One parameter per entry of `spec.parameters`: a constant with the given
    /// or default value, or a uniform whose initial value that is. For a
    /// parameter that is not a number, a constant placeholder (a choice's index,
    /// else 0); its value is in ``arguments``.
    public var params: [Param]
    /// The values the effect was built from, one per parameter, in parameter order.
    public var arguments: [ParameterValue]
    /// This call alone, as an effect.
    public var effect: Effect

    /// The values in parameter order: given, or the defaults (a uniform's initial value).
    public var values: [Float] { params.map(\.value) }
  }

  /// A parameter made uniform because its name was listed, so its value can be
  /// set when the compiled kernel runs (`--param vignette.intensity=0.5`).
  public struct Uniform {
    /// The name it was listed under: `vignette.intensity`.
    public var name: String
    /// The uniform, shared by every call of the effect in the chain.
    public var param: Param
    /// The effect it belongs to.
    public var effect: EffectSpec
    /// Its description, for checking the values it is given (``ParameterSpec/rejection(of:in:)``).
    public var parameter: ParameterSpec
  }

  /// The uniform listed as `name` (`vignette.intensity`), if there is one.
  public func uniform(named name: String) -> Uniform? { uniforms.first { $0.name == name } }
}

extension ChainSyntax {
  /// Looks the chain's effects up in the ``Catalogue`` and builds the effect it describes.
  ///
  /// An argument is given by its label (`vignette(radius: 0.5)`) or by position
  /// (`vignette(0.8, 0.5)`); unlabelled arguments come first, and a parameter left
  /// out takes its default. Every value must be a finite number in the
  /// parameter's range — values are rejected, never clamped.
  ///
  /// - Parameter uniforms: parameters to make uniforms instead of constants, each
  ///   named `effect.parameter` (`vignette.intensity`). The effect must occur in
  ///   the chain; where it occurs more than once, every occurrence reads the same
  ///   uniform, whose initial value is the first occurrence's.
  /// - Throws: ``ChainSyntaxError`` at the column of the name or argument at
  ///   fault: an unknown effect or parameter (with a suggestion and the valid
  ///   names), an argument given twice, too many arguments, an unlabelled argument
  ///   after a labelled one, a value that is not a number or not in range, or a
  ///   listed uniform that the chain does not have or that must be a constant.
  /// - Parameter registry: the effects the names refer to: the built-in
  ///   catalogue, or a copy extended with a program's own effects.
  public func resolve(uniforms: Set<String> = [], registry: EffectRegistry = .builtIn) throws(ChainSyntaxError) -> ResolvedChain {
    let bound = try calls.map { (call) throws(ChainSyntaxError) in try bind(call, registry) }
    try check(uniforms: uniforms, against: bound)

    var shared: [String: Param] = [:]
    var uniformList: [ResolvedChain.Uniform] = []
    var resolved: [ResolvedChain.Call] = []
    var images: [ResolvedChain.ImageFile] = []
    for var binding in bound {
      let spec = binding.spec
      for (index, file) in binding.files.sorted(by: { $0.key < $1.key }) {
        let input = images.first { $0.path == file.path }?.input ?? 2 + images.count
        if input == 2 + images.count {
          images.append(
            ResolvedChain.ImageFile(
              path: file.path, input: input, parameter: "\(spec.name).\(spec.parameters[index].name)", column: file.column))
        }
        binding.values[index] = .image(Image.input(input, name: file.path))
      }
      let params = zip(spec.parameters, binding.values).map { parameter, value in
        let name = "\(spec.name).\(parameter.name)"
        let number: Float
        switch value {
        case .number(let e): number = e.constantValue ?? parameter.defaultValue
        default: return Param(name, value: parameter.isNumber ? 0 : parameter.defaultValue)
        }
        guard uniforms.contains(name) else { return Param(name, value: number) }
        if let param = shared[name] { return param }
        let param = Param.uniform(name, number)
        shared[name] = param
        uniformList.append(ResolvedChain.Uniform(name: name, param: param, effect: spec, parameter: parameter))
        return param
      }
      let arguments = zip(binding.values, params).map { value, param -> ParameterValue in
        if case .number = value { return .number(param.expr) }
        return value
      }
      let effect = spec.make(arguments)
      resolved.append(
        ResolvedChain.Call(spec: spec, column: binding.call.column, params: params, arguments: arguments, effect: effect))
    }
    // An empty chain (possible through `init(calls:)`, not from `parse`) is the identity.
    let chain = resolved.count == 1 ? resolved[0].effect : Effect.chain(resolved.map(\.effect))
    return ResolvedChain(effect: chain, calls: resolved, uniforms: uniformList, images: images)
  }

  /// A call with its catalogue entry and one value per parameter, given or default.
  private struct Binding {
    var call: Call
    var spec: EffectSpec
    var values: [ParameterValue]
    /// The paths given to image parameters, by parameter index (their values are placeholders until resolved).
    var files: [Int: (path: String, column: Int)] = [:]
  }

  /// Looks the call's effect up and binds its arguments to the parameters.
  ///
  /// Unlabelled arguments fill the parameters in order. A color-list parameter
  /// takes every consecutive unlabelled color (and every argument with its
  /// label, which may repeat); an unlabelled argument that is not a color moves
  /// on to the next parameter.
  private func bind(_ call: Call, _ registry: EffectRegistry) throws(ChainSyntaxError) -> Binding {
    guard let spec = registry.spec(named: call.name) else {
      throw error(unknown("effect", call.name, among: registry.names, prefix: "unknown effect"), at: call.column)
    }
    let names = spec.parameters.map(\.name)
    func isList(_ index: Int) -> Bool {
      if case .colors = spec.parameters[index].kind { return true }
      return false
    }
    var given: [Int: Argument] = [:]
    var lists: [Int: [Argument]] = [:]
    var sawLabel = false
    var next = 0
    for argument in call.arguments {
      let index: Int
      if let label = argument.label {
        guard let found = names.firstIndex(of: label) else {
          let message = unknown("parameter", label, among: names, prefix: "'\(spec.name)' has no parameter")
          throw error(message, at: argument.column)
        }
        sawLabel = true
        index = found
      } else {
        guard !sawLabel else {
          throw error(
            "an unlabelled argument cannot follow a labelled one; add its label (parameters: \(list(names)))",
            at: argument.column)
        }
        if let slots = spec.positional {
          guard next < slots.count else {
            throw error("too many arguments: '\(spec.name)' takes \(slots.count) by position (parameters: \(list(names)))", at: argument.column)
          }
          guard let slot = slots[next] else {
            throw error(
              "argument \(next + 1) of '\(spec.name)' cannot be given by position: name its lanes (parameters: \(list(names)))", at: argument.column)
          }
          index = slot
          next += 1
        } else {
          while next < names.count, isList(next), !argument.value.isColor { next += 1 }
          guard next < names.count else {
            let count = names.count == 1 ? "1 argument" : "\(names.count) arguments"
            throw error(
              "too many arguments: '\(spec.name)' takes \(count) (\(list(names)))", at: argument.column)
          }
          index = next
          if !isList(index) { next += 1 }
        }
      }
      if isList(index) {
        lists[index, default: []].append(argument)
        continue
      }
      if let first = given[index] {
        throw error(
          "parameter '\(names[index])' of '\(spec.name)' is given twice (first at column \(first.column))",
          at: argument.column)
      }
      given[index] = argument
    }
    let values = try spec.parameters.indices.map { (index) throws(ChainSyntaxError) -> ParameterValue in
      let parameter = spec.parameters[index]
      if let arguments = lists[index] {
        var list: [Color] = []
        for a in arguments { list += try colors(a, for: parameter, of: spec) }
        return .colors(list)
      }
      guard let argument = given[index] else { return parameter.defaultArgument }
      return try value(argument, for: parameter, of: spec)
    }
    var files: [Int: (path: String, column: Int)] = [:]
    for (index, argument) in given where spec.parameters[index].kind == .image {
      if case .string(let path) = argument.value { files[index] = (path, argument.column) }
    }
    return Binding(call: call, spec: spec, values: values, files: files)
  }

  /// The argument's value, when it is of the parameter's kind (and a number in its range).
  private func value(_ argument: Argument, for parameter: ParameterSpec, of spec: EffectSpec)
    throws(ChainSyntaxError) -> ParameterValue
  {
    switch (parameter.kind, argument.value) {
    case (.number, .number(let value)):
      if let message = parameter.rejection(of: value, in: spec.name) { throw error(message, at: argument.column) }
      return .number(Expr(Float(value)))
    case (.color, _):
      return .color(try color(argument, for: parameter, of: spec))
    case (.choice(let choices), .identifier(let word)) where choices.contains(word):
      return .choice(word)
    case (.numbers, .list(let elements)):
      return .numbers(
        try elements.map { (e) throws(ChainSyntaxError) -> Expr in
          guard case .number(let x) = e, x.isFinite, Float(x).isFinite else {
            throw error("\(parameter.requirement(in: spec.name)), got \(e.kindAndValue) in the list", at: argument.column)
          }
          return Expr(Float(x))
        })
    case (.image, .string(let path)):
      guard !path.isEmpty else { throw error("\(parameter.requirement(in: spec.name)), got an empty path", at: argument.column) }
      return .image(nil)
    case (.choice(let choices), .identifier(let word)):
      let guess = ChainSyntax.suggestion(for: word, among: choices).map { "; did you mean '\($0)'?" } ?? ""
      throw error("\(parameter.requirement(in: spec.name)), got '\(word)'\(guess)", at: argument.column)
    default:
      throw error("\(parameter.requirement(in: spec.name)), got \(argument.value.kindAndValue)", at: argument.column)
    }
  }

  /// The argument's colors: one color, or a list of them.
  private func colors(_ argument: Argument, for parameter: ParameterSpec, of spec: EffectSpec)
    throws(ChainSyntaxError) -> [Color]
  {
    guard case .list(let elements) = argument.value else { return [try color(argument, for: parameter, of: spec)] }
    return try elements.map { (e) throws(ChainSyntaxError) -> Color in
      guard case .color(let rgba) = e else {
        throw error("\(parameter.requirement(in: spec.name)), got \(e.kindAndValue) in the list", at: argument.column)
      }
      return Color(rgba)
    }
  }

  /// The argument's color, when it is one.
  private func color(_ argument: Argument, for parameter: ParameterSpec, of spec: EffectSpec)
    throws(ChainSyntaxError) -> Color
  {
    guard case .color(let rgba) = argument.value else {
      throw error("\(parameter.requirement(in: spec.name)), got \(argument.value.kindAndValue)", at: argument.column)
    }
    return Color(rgba)
  }

  /// Checks that each listed uniform is named `effect.parameter`, where the
  /// effect is in the chain, has that parameter, and the parameter may be a uniform.
  private func check(uniforms names: Set<String>, against bound: [Binding]) throws(ChainSyntaxError) {
    // Sorted, so that which error comes first does not depend on hashing.
    for name in names.sorted() {
      let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw error("uniform '\(name)' must be named 'effect.parameter', like 'vignette.intensity'", at: 1)
      }
      let chainNames = bound.map(\.spec.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
      guard let binding = bound.first(where: { $0.spec.name == parts[0] }) else {
        let message = unknown(
          "effect", parts[0], among: chainNames, prefix: "uniform '\(name)': the chain has no effect")
        throw error(message, at: 1)
      }
      guard let parameter = binding.spec.parameter(named: parts[1]) else {
        let names = binding.spec.parameters.map(\.name)
        let message = unknown(
          "parameter", parts[1], among: names, prefix: "uniform '\(name)': '\(binding.spec.name)' has no parameter")
        throw error(message, at: binding.call.column)
      }
      guard parameter.isNumber else {
        throw error(
          "parameter '\(parameter.name)' of '\(binding.spec.name)' cannot be a uniform: only numbers can be uniforms",
          at: binding.call.column)
      }
      guard parameter.allowsUniform else {
        throw error(
          "parameter '\(parameter.name)' of '\(binding.spec.name)' cannot be a uniform: it shapes the kernel, so it must be a constant",
          at: binding.call.column)
      }
    }
  }

  /// `<prefix> 'word'; did you mean 'candidate'? (<kind>s: a, b, c)`.
  private func unknown(_ kind: String, _ word: String, among candidates: [String], prefix: String) -> String {
    var message = "\(prefix) '\(word)'"
    if let guess = ChainSyntax.suggestion(for: word, among: candidates) { message += "; did you mean '\(guess)'?" }
    return message + " (\(kind)s: \(list(candidates)))"
  }

  private func list(_ names: [String]) -> String { names.joined(separator: ", ") }

  private func error(_ message: String, at column: Int) -> ChainSyntaxError {
    ChainSyntaxError(message: message, column: column, source: source)
  }
}

extension ChainSyntax.Value {
  /// A color, or a list of colors only.
  fileprivate var isColor: Bool {
    switch self {
    case .color: return true
    case .list(let elements): return elements.allSatisfy(\.isColor)
    default: return false
    }
  }

  /// How a message quotes a value it did not expect: `3`, `identifier 'warm'`, `color #ff8000`.
  fileprivate var kindAndValue: String {
    switch self {
    case .number: return description
    case .identifier(let word): return "identifier '\(word)'"
    case .color: return "color \(description)"
    case .string: return "string \(description)"
    case .list: return "list \(description)"
    }
  }
}
