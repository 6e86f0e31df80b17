import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a batch's jobs on a pool of worker threads.
///
/// Each worker takes the next job, decodes it, runs the kernel and encodes
/// it, so decoding, kernels and encoding of different files overlap and every
/// core stays busy; at most one file per worker is in memory at a time (the
/// job list itself is the only queue, and it holds paths), so memory stays
/// flat however many files there are. With fewer files than threads, each
/// kernel splits its rows across the spare threads.
///
/// SIGINT and SIGTERM stop the batch cleanly: no new job starts, jobs in
/// progress are abandoned before they write (a write under way completes —
/// it is atomic), and the exit status is 128 + the signal. A second signal
/// exits at once, removing the temporary files of writes still under way.
final class BatchRunner: @unchecked Sendable {
  struct Settings {
    var threads = 1
    var failFast = false
    /// Print a line per file written (always for a single job).
    var verbose = false
    var progress = false
  }

  /// How the batch ended.
  struct Outcome {
    var counts: BatchCounts
    var seconds: Double
    /// "SIGINT", "SIGTERM" or "--fail-fast" when the batch stopped early.
    var stoppedBy: String?
    var signal: Int32?
  }

  let jobs: [BatchJob]
  let settings: Settings
  let processor: BatchProcessor
  let report: BatchReport?

  private let lock = NSLock()
  private var next = 0
  private var counts = BatchCounts()
  private var stoppedBy: String?
  private var signal: Int32?
  /// Destinations being written now (by their bytes), for the second signal's clean-up.
  private var writing = Set<[UInt8]>()
  private let progress: ProgressBar?
  private let start = DispatchTime.now().uptimeNanoseconds

  init(jobs: [BatchJob], settings: Settings, processor: BatchProcessor, report: BatchReport?) {
    self.jobs = jobs
    self.settings = settings
    self.processor = processor
    self.report = report
    progress = settings.progress ? ProgressBar(total: jobs.count) : nil
  }

  private var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

  func run() -> Outcome {
    // Memory flat over a long batch. With one malloc arena per thread,
    // image-sized buffers freed by one worker and asked for by another fragment
    // the heap, which creeps up with the number of files. One arena, and a
    // `malloc_trim` every `trimInterval` files, keep it flat; buffers straight
    // from mmap were flatter still but slower (Benchmarks/README.md has the
    // figures). Workers allocate a few buffers per file, so the one arena's
    // lock is not contended.
    Self.mallopt(-8 /* M_ARENA_MAX */, 1)
    let sources = [SIGINT, SIGTERM].map(watch)
    defer { sources.forEach { $0.cancel() } }
    // Jobs the plan already skips or fails take no worker: one file left to
    // process in a resumed batch gets every thread.
    let toProcess = jobs.filter { $0.disposition == .process }.count
    let workers = max(1, min(settings.threads, toProcess))
    let kernelThreads = max(1, settings.threads / workers)
    let group = DispatchGroup()
    for _ in 0..<workers {
      group.enter()
      let thread = Thread { [self] in
        work(kernelThreads: kernelThreads)
        group.leave()
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
    while group.wait(timeout: .now() + 0.1) == .timedOut {
      locked { progress?.draw(counts, elapsed: elapsed) }
    }
    return locked {
      for job in jobs[next...] { settle(FileResult(job: job, status: .notRun), line: nil) }
      next = jobs.count
      progress?.clear()
      return Outcome(counts: counts, seconds: elapsed, stoppedBy: stoppedBy, signal: signal)
    }
  }

  /// glibc's `mallopt`; <malloc.h> is not in Swift's Glibc module.
  private static func mallopt(_ parameter: Int32, _ value: Int32) {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(parameter, value)
  }

  private func work(kernelThreads: Int) {
    while let job = take() {
      let (result, line) = processor.process(
        job, threads: kernelThreads, stopping: { self.locked { self.stoppedBy != nil } },
        writing: { started in
          self.locked {
            let key = PathBytes.bytes(of: job.destination)
            if started { self.writing.insert(key) } else { self.writing.remove(key) }
          }
        })
      let trim: Bool = locked {
        settle(result, line: line)
        return counts.written % Self.trimInterval == 0 && result.status == .ok
      }
      if trim { Self.mallocTrim() }
    }
  }

  /// Files between two `malloc_trim`s: the free pages inside the heap go back
  /// to the system, so its fragmentation cannot accumulate over a long batch;
  /// the pages faulted in again afterwards cost little once per this many files.
  static let trimInterval = 16

  private static func mallocTrim() {
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
  }

  private func take() -> BatchJob? {
    locked {
      guard stoppedBy == nil, next < jobs.count else { return nil }
      next += 1
      return jobs[next - 1]
    }
  }

  /// Counts, reports and prints one result; called under the lock.
  private func settle(_ result: FileResult, line: String?) {
    counts.add(result)
    report?.add(result)
    if result.status == .failed, let error = result.error {
      progress?.clear()
      FXC.printError("error: \(error)")
      if settings.failFast && stoppedBy == nil { stoppedBy = "--fail-fast" }
    }
    if !result.warnings.isEmpty {
      progress?.clear()
      let text = result.warnings.map { "warning: \(result.job.input.path): \($0)\n" }.joined()
      FileHandle.standardError.write(Data(StandardStreams.named(text).utf8))
    }
    if let line, settings.verbose || jobs.count == 1 {
      progress?.clear()
      say(line)
    }
    progress?.draw(counts, elapsed: elapsed, force: result.status == .failed)
  }

  private func watch(_ signo: Int32) -> DispatchSourceSignal {
    Glibc.signal(signo, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
    source.setEventHandler { [self] in interrupted(by: signo) }
    source.resume()
    return source
  }

  private func interrupted(by signo: Int32) {
    let name = signo == SIGINT ? "SIGINT" : "SIGTERM"
    let first: Bool = locked {
      guard signal == nil else { return false }
      signal = signo
      stoppedBy = name
      progress?.clear()
      return true
    }
    if first {
      FileHandle.standardError.write(
        Data("fxc: \(name): stopping — files being written are finished, nothing else is started (again to quit at once)\n".utf8))
      return
    }
    // Second signal: leave at once, without the temporary files of writes in progress.
    locked {
      BatchDestinations.removeStaleTemporaries(
        of: jobs.filter { writing.contains(PathBytes.bytes(of: $0.destination)) })
      report?.abandon()
    }
    _exit(128 + signo)
  }

  private func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}
