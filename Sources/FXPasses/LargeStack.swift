import Foundation

/// Runs `body` on a thread with a stack of `bytes` (virtual memory; only the
/// pages it touches are used) and returns its result: for the passes that
/// recurse once per fused stage (inlining a chain of 10,000 effects), which
/// would overflow a thread's default 8 MiB stack.
func withLargeStack<T>(bytes: Int = 1 << 30, _ body: @escaping () throws -> T) throws -> T {
  let box = ResultBox<T>()
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    box.result = Result { try body() }
    done.signal()
  }
  thread.stackSize = bytes
  thread.start()
  done.wait()
  return try box.result!.get()
}

/// The result of a body run on another thread; written once before the
/// semaphore is signalled, read after it is waited for.
private final class ResultBox<T>: @unchecked Sendable {
  var result: Result<T, Error>?
}
