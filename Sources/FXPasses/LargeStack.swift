import Foundation

/// The stack a lowering thread gets for `stages` stages: the passes recurse
/// once per fused stage (inlining a chain of 10,000 effects needs about
/// 100 KiB a stage) and along deep expressions, with room to spare. 64 MiB
/// plus 128 KiB a stage, at most 1 GiB. It is address space, not memory (only the pages
/// touched are used); where an address-space limit (`ulimit -v`) refuses it,
/// ``withLargeStack(bytes:_:)`` tries smaller stacks.
func loweringStackBytes(stages: Int) -> Int {
  min(1 << 30, (64 << 20) + max(0, stages) * (128 << 10))
}

/// A resource the compiler needs and the system refused: a thread, its stack.
public struct ResourceError: Error, CustomStringConvertible {
  public var description: String
}

/// Runs `body` on a new thread with a stack of `bytes` and returns its result,
/// waiting for that thread to finish.
///
/// - Throws: ``ResourceError`` when the thread cannot be created (`pthread_create`
///   fails, e.g. EAGAIN under an address-space limit) — at once, never a wait;
///   otherwise what `body` throws.
func withLargeStack<T>(bytes: Int, _ body: @escaping () throws -> T) throws -> T {
  let work = StackWork { Result { try body() } }
  var code: Int32 = 0
  var thread = pthread_t()
  // The stack asked for, else smaller ones (enough for all but very long chains) where
  // the address space is limited: a thread that cannot start is an error, never a wait.
  for size in [bytes, 32 << 20, 16 << 20] where size <= bytes {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    code = pthread_attr_setstacksize(&attributes, size)
    guard code == 0 else { continue }
    let context = Unmanaged.passRetained(work).toOpaque()
    code = pthread_create(
      &thread, &attributes,
      { context in
        Unmanaged<StackWork>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    if code == 0 { break }
    Unmanaged<StackWork>.fromOpaque(context).release()
  }
  guard code == 0 else {
    throw ResourceError(
      description: "could not start the compiler's thread with a \(bytes >> 20) MiB stack: "
        + "\(String(cString: strerror(code))) (an address-space limit, ulimit -v, may be too low)")
  }
  pthread_join(thread, nil)
  return try (work.result as! Result<T, Error>).get()
}

/// The body a lowering thread runs and its result: written by that thread
/// before it ends, read after `pthread_join`.
private final class StackWork: @unchecked Sendable {
  let body: () -> Any
  var result: Any?
  init(_ body: @escaping () -> Any) { self.body = body }
  func run() { result = body() }
}
