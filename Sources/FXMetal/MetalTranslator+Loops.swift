import FXDSL
import FXIR

// Loops become the IR's fold. The accumulators are the scalars of every
// variable the loop may assign (and the flags of `break` and `return`), so
// the body is lowered once, whatever the trip count.
//
// A counted loop — `for (int i = a; i < b; i++)` (also `<=`, `>`, `>=`, `!=`,
// `+= k`, `-= k`) whose counter the body leaves alone and whose bound it
// does not change — folds over exactly its trip count, which may be a
// constant, a uniform or a per-pixel value. Any other loop (`while`, `do`, a
// float counter, a bound the body changes) folds over a fixed number of
// iterations, stopping (through its `break` flag) when its condition fails:
// the trip count itself when init, condition and step are constants, else
// ``MetalTranslator/generalLoopLimit``. The `break` flag is the IR loop's
// exit (``Loop/exit``): a pixel's loop really stops there (after a failed
// condition, a `break` or a `return`), and a loop inside an `if` starts
// stopped where the `if` is false.
//
// Both limits cut a longer loop off: the iterations past the limit do not
// run, and the variables keep the values the last iteration run left. So
// that the cut is never silent, every loop that has such a limit (and not an
// exact constant trip count) gives a warning naming the loop and its limit.

extension MetalTranslator {
  /// The most iterations a loop without a counted form runs (`while (x > 1) x *= 0.5;`).
  static let generalLoopLimit: Int = 1024
  /// The most iterations a counted loop with a per-pixel or uniform bound runs.
  static let countedLoopLimit: Int = 1 << 16

  func forLoop(
    _ initial: StmtSyntax?, _ condition: ExprSyntax?, _ step: ExprSyntax?, _ body: StmtSyntax, at location: SourceLocation
  ) throws {
    if let initial { try execute(initial) }
    var assigned = Set<String>()
    Assignments.collect(body, into: &assigned, writers: program.referenceTakers)
    if let condition { Assignments.collect(condition, into: &assigned, writers: program.referenceTakers) }
    if let counted = try countedForm(initial, condition, step, assigned: assigned) {
      if !counted.isExact {
        warn(
          "this 'for' loop runs at most \(Self.countedLoopLimit.grouped) iterations: its bound is not a constant here "
            + "(a uniform or per-pixel value); later iterations are cut off", at: location)
      }
      guard counted.declaresCounter else {
        // The counter outlives the loop: carried, and stepped after each iteration (not after a
        // `break`), so the code after the loop reads where it stopped.
        return try runFold(
          count: counted.count, limit: counted.limit, carried: assigned.union([counted.name]), body: body, at: location
        ) { _ in
        } after: { flags in
          self.store(flags.continueFlag, MetalValue(.bool, [Expr(booleanLiteral: false)]))
          if let step { _ = try self.evaluate(step) }
        }
      }
      return try runFold(count: counted.count, limit: counted.limit, carried: assigned, body: body, at: location) { t in
        self.declare(counted.name, .vector(counted.kind, [counted.start + t * Expr.int(counted.stride)]))
      }
    }
    let trips = constantTripCount(initial, condition, step, assigned: assigned)
    if let trips, let counter = floatCounter(initial, step, assigned: assigned) {
      // `for (float x = -2; x <= 2; x++)`: whole steps from a whole start add exactly, so x = start + t·step.
      return try runFold(count: Expr.int(trips), limit: trips, carried: assigned, body: body, at: location) { t in
        self.declare(counter.name, .vector(counter.kind, [Expr(counter.start) + float(t) * Expr(counter.step)]))
      }
    }
    let bound = trips == nil ? try tripBound(initial, condition, step, assigned: assigned) : nil
    try generalLoop(
      "for", condition: condition, step: step, body: body, checkFirst: true, trips: trips, bound: bound, at: location)
  }

  func generalLoop(
    _ keyword: String, condition: ExprSyntax?, step: ExprSyntax?, body: StmtSyntax, checkFirst: Bool, trips: Int? = nil,
    bound: Expr? = nil, at location: SourceLocation
  ) throws {
    var assigned = Set<String>()
    Assignments.collect(body, into: &assigned, writers: program.referenceTakers)
    if let step { Assignments.collect(step, into: &assigned, writers: program.referenceTakers) }
    if let condition { Assignments.collect(condition, into: &assigned, writers: program.referenceTakers) }
    let n = trips ?? Self.generalLoopLimit
    if trips == nil && bound?.foldedValue.map({ $0 <= Float(n) }) != true {
      warn(
        "this '\(keyword)' loop runs at most \(Self.generalLoopLimit.grouped) iterations: it has no constant trip count "
          + "and is not a counted loop (for (int i = a; i < n; i++)); later iterations are cut off", at: location)
    }
    // The condition is evaluated once per iteration, as C++ sequences it: before the body
    // (`for`, `while`: the next iteration's check follows the step) or after it (`do`), so
    // a side effect in it (`j++ < 30`) happens once per check.
    try runFold(count: bound ?? Expr.int(n), limit: n, carried: assigned, body: body, at: location) { _ in
    } after: { flags in
      // `continue` still runs the step; a failed condition stops the loop.
      self.store(flags.continueFlag, MetalValue(.bool, [Expr(booleanLiteral: false)]))
      if let step { _ = try self.evaluate(step) }
      if !checkFirst, let condition {
        let c = try self.condition(condition)
        if constantBool(c) != true { self.stop(flags.breakFlag, where: negation(c)) }
      }
    } before: { flags in
      guard checkFirst, let condition else { return }
      let c = try self.condition(condition)
      if constantBool(c) != true { self.stop(flags.breakFlag, where: negation(c)) }
    }
  }

  /// Records a warning once per place and message (a helper inlined twice warns once).
  func warn(_ message: String, at location: SourceLocation) {
    guard !warnings.contains(where: { $0.location == location && $0.message == message }) else { return }
    warnings.append(MetalError(message, at: location))
  }

  /// Sets the loop's break flag where `c` holds and the loop still runs.
  private func stop(_ flag: String, where c: Expr) {
    guard let old = lookup(flag) else { return }
    let a = conjunction(active(), c)
    store(flag, MetalValue(.bool, [choose(a, Expr(booleanLiteral: true), old.scalars[0])]))
  }

  /// Folds `body` over `0 ..< count` (an int), with every visible variable in
  /// `carried` (and the flags) as accumulators; `enter` binds the counter
  /// from the fold's index, `before`/`after` run around the body each iteration.
  func runFold(
    count: Expr, limit: Int, carried names: Set<String>, body: StmtSyntax, at location: SourceLocation,
    enter: @escaping (Expr) throws -> Void,
    after: ((_ flags: (breakFlag: String, continueFlag: String)) throws -> Void)? = nil,
    before: ((_ flags: (breakFlag: String, continueFlag: String)) throws -> Void)? = nil
  ) throws {
    guard limit <= Int(Loop.maxLimit) else {
      throw MetalError("unsupported: a loop of \(limit) iterations (at most \(Loop.maxLimit))", at: location)
    }
    let outer = active()
    let flags = (breakFlag: hidden("break"), continueFlag: hidden("continue"))
    // The break flag is the IR loop's exit (``Loop/exit``): a pixel stops when it breaks, returns or
    // its condition fails, and a pixel for which the loop does not run at all (inside an `if`) stops
    // before the first iteration.
    declare(flags.breakFlag, MetalValue(.bool, [outer.map(negation) ?? Expr(booleanLiteral: false)]))
    var carried = names.filter { lookup($0).map { !$0.type.isHandle } ?? false }.sorted()
    carried += [flags.breakFlag]
    let returns = Assignments.returns(body) && lookup(Self.returnFlag) != nil
    if returns { carried += [Self.returnFlag, Self.returnValue].filter { lookup($0) != nil } }
    let entry = carried.map { lookup($0)! }
    let exit = entry[..<carried.firstIndex(of: flags.breakFlag)!].reduce(0) { $0 + $1.scalars.count }
    let savedConditions = frame.conditions
    frame.conditions = []
    frame.loopFlags.append(flags)
    defer {
      frame.conditions = savedConditions
      frame.loopFlags.removeLast()
    }
    var failure: Error?
    let results = Expr.fold(from: Expr.int(0), to: count, limit: max(limit, 0), initial: entry.flatMap(\.scalars), exit: exit) {
      index, accumulators in
      var offset = 0
      for (name, value) in zip(carried, entry) {
        self.store(name, MetalValue(value.type, Array(accumulators[offset..<(offset + value.scalars.count)])))
        offset += value.scalars.count
      }
      do {
        try self.withScope {
          self.declare(flags.continueFlag, MetalValue(.bool, [Expr(booleanLiteral: false)]))
          try enter(index)
          try before?(flags)
          try self.withScope { try self.execute(body) }
          try after?(flags)
          if returns, let returned = self.lookup(Self.returnFlag)?.scalars[0], let stopped = self.lookup(flags.breakFlag) {
            self.store(flags.breakFlag, MetalValue(.bool, [choose(returned, Expr(booleanLiteral: true), stopped.scalars[0])]))
          }
        }
      } catch {
        failure = error
      }
      return carried.flatMap { self.lookup($0)!.scalars }
    }
    if let failure { throw failure }
    var offset = 0
    for (name, value) in zip(carried, entry) {
      let next = Array(results[offset..<(offset + value.scalars.count)])
      store(name, MetalValue(value.type, zip(next, value.scalars).map { choose(outer, $0, $1) }))
      offset += value.scalars.count
    }
  }
}

extension Int {
  /// The number with thousands separated by commas, as messages print it: `65,536`.
  fileprivate var grouped: String {
    let digits = String(Swift.abs(self))
    var text = ""
    for (k, c) in digits.enumerated() {
      if k > 0, (digits.count - k) % 3 == 0 { text.append(",") }
      text.append(c)
    }
    return (self < 0 ? "-" : "") + text
  }
}
