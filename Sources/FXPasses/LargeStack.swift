import Foundation

/// The stack a lowering thread gets for `stages` stages: the passes that
/// recurse once per fused stage (inlining a chain of 10,000 effects) need
/// about 100 KiB a stage, more than a thread's default 8 MiB for long chains.
/// 16 MiB plus 128 KiB a stage, at most 1 GiB. It is address space, not
/// memory (only the pages touched are used), but under an address-space
/// limit (`ulimit -v`) a fixed 1 GiB could not be had at all.
func loweringStackBytes(stages: Int) -> Int {
  min(1 << 30, (16 << 20) + max(0, stages) * (128 << 10))
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
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  var code = pthread_attr_setstacksize(&attributes, bytes)
  var thread = pthread_t()
  if code == 0 {
    let context = Unmanaged.passRetained(work).toOpaque()
    code = pthread_create(
      &thread, &attributes,
      { context in
        Unmanaged<StackWork>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    if code != 0 { Unmanaged<StackWork>.fromOpaque(context).release() }
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
