/// The float semantics a kernel is compiled with (DESIGN §4, float modes).
public enum FloatMode: String, Sendable, Hashable, CaseIterable {
  /// Every op means what `Semantics` says, bit for bit: the JIT's output is
  /// the interpreter's. Fast instructions only where ``RangeAnalysis`` proves
  /// they give the same bits. The default.
  case strict
  /// Opt-in, as swift-numerics' `Relaxed`: the code generator may also
  /// contract `a·b + c` into an fma, multiply by the reciprocal of a
  /// loop-invariant divisor, and reassociate sums (LLVM's `contract`, `arcp`
  /// and `reassoc` on the IR's own add, sub, mul and div — not inside the
  /// transcendental functions). NaN and ±∞ keep their meaning. Results stay
  /// within DESIGN §4's tolerance of the interpreter.
  case relaxed
}
