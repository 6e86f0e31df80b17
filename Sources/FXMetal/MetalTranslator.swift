import FXDSL
import FXIR

/// Lowers one stitchable function to FXDSL expressions by running it
/// symbolically: every variable holds expressions, helper functions are
/// inlined, and control flow becomes data — an assignment under a condition
/// is `select(condition, new, old)`; `return`, `break` and `continue` set
/// flags that switch the rest of the function, loop or iteration off; loops
/// become folds whose accumulators are the variables the loop assigns.
final class MetalTranslator {
  let program: MetalProgram
  var frames: [Frame] = []
  /// The built-in `position` of the function being lowered.
  let position: [Expr]
  /// What compiles but may not compute what the source says (a loop cut off
  /// at its limit), in the order found, each place and message once.
  var warnings: [MetalError] = []

  /// One inlined call: its variables, the conditions of the `if`s around the
  /// statement being run, and the flags of the loops it is in.
  final class Frame {
    var scopes: [[String: MetalValue]] = [[:]]
    var conditions: [Expr] = []
    /// The names of the innermost loop's `break` and `continue` flags.
    var loopFlags: [(breakFlag: String, continueFlag: String)] = []
    let function: FunctionSyntax
    let returnType: MetalType

    init(function: FunctionSyntax, returnType: MetalType) {
      self.function = function
      self.returnType = returnType
    }
  }

  /// The types a function template's parameters stand for in the calls being lowered, innermost last.
  var templateBindings: [[String: MetalType]] = []

  /// The type `syntax` names here (a template parameter's type inside a template).
  func resolve(_ syntax: TypeSyntax) throws -> MetalType {
    try program.resolve(syntax, bindings: templateBindings.last ?? [:])
  }

  static let returnFlag = "$returned"
  static let returnValue = "$result"
  private var flagCounter = 0

  init(program: MetalProgram, position: [Expr]) {
    self.program = program
    self.position = position
  }

  var frame: Frame { frames[frames.count - 1] }

  /// A fresh hidden variable name.
  func hidden(_ base: String) -> String {
    flagCounter += 1
    return "$\(base)\(flagCounter)"
  }

  // MARK: variables

  func declare(_ name: String, _ value: MetalValue) { frame.scopes[frame.scopes.count - 1][name] = value }

  func lookup(_ name: String) -> MetalValue? {
    for scope in frame.scopes.reversed() { if let v = scope[name] { return v } }
    return nil
  }

  /// Replaces the value of a declared variable (no condition applied).
  func store(_ name: String, _ value: MetalValue) {
    for k in frame.scopes.indices.reversed() where frame.scopes[k][name] != nil {
      frame.scopes[k][name] = value
      return
    }
  }

  /// Every name visible here, for suggestions.
  func visibleNames() -> [String] {
    let locals = frame.scopes.flatMap(\.keys).filter { !$0.hasPrefix("$") }
    return locals + Array(program.globals.keys) + program.functionNames + MetalBuiltins.names
  }

  func withScope<T>(_ body: () throws -> T) rethrows -> T {
    frame.scopes.append([:])
    defer { frame.scopes.removeLast() }
    return try body()
  }

  // MARK: the condition under which a statement runs

  /// True where the statement being lowered runs: inside every enclosing `if`'s
  /// branch, and not after a `return`, `break` or `continue`. Nil means always.
  func active() -> Expr? {
    var condition: Expr? = nil
    for c in frame.conditions { condition = conjunction(condition, c) }
    var flags = [Self.returnFlag]
    if let loop = frame.loopFlags.last { flags += [loop.breakFlag, loop.continueFlag] }
    for flag in flags {
      if let v = lookup(flag)?.scalars.first { condition = conjunction(condition, negation(v)) }
    }
    return condition
  }

  /// No pixel runs the statement (after an unconditional `return`, say).
  var isDead: Bool {
    guard let a = active() else { return false }
    return constantBool(a) == false
  }

  /// Sets the flag variable `name` where the statement runs.
  func raise(_ name: String) {
    guard let old = lookup(name) else { return }
    store(name, MetalValue(.bool, [choose(active(), Expr(booleanLiteral: true), old.scalars[0])]))
  }

  // MARK: running a function

  /// Inlines `function` with its parameters bound to `arguments`; returns its
  /// result and the parameters' final values (for `thread T &` parameters).
  func call(_ function: FunctionSyntax, _ arguments: [MetalValue], constants: [String: MetalValue] = [:], at location: SourceLocation) throws
    -> (MetalValue, [MetalValue])
  {
    guard frames.count < 64, !frames.contains(where: { $0.function.name == function.name && $0.function.location == function.location })
    else {
      throw MetalError("unsupported: recursive call of '\(function.name)'", at: location)
    }
    if let e = function.bodyError { throw e }
    let returnType = try resolve(function.returnType)
    frames.append(Frame(function: function, returnType: returnType))
    defer { frames.removeLast() }
    for (name, v) in constants { declare(name, v) }  // `template <int N>`: N's value in this call
    for (p, a) in zip(function.parameters, arguments) { declare(p.name, a) }
    declare(Self.returnFlag, MetalValue(.bool, [Expr(booleanLiteral: false)]))
    if returnType != .void { declare(Self.returnValue, MetalValue.zero(returnType)) }
    for s in function.body {
      if isDead { break }
      try execute(s)
    }
    let result = returnType == .void ? MetalValue(.void, []) : lookup(Self.returnValue)!
    let finals = function.parameters.map { lookup($0.name) ?? MetalValue(.void, []) }
    return (result, finals)
  }
}
