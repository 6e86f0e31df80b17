import FXImage
import FXLLVM
import Foundation

/// A compiled kernel's output rows, pulled: the kernel streams its input
/// from an upstream ``RowSource`` (``CompiledKernel/stream(width:height:uniforms:threads:otherInputs:read:write:)``)
/// on a thread of its own, into a ring of finished rows that
/// ``read(into:rowBytes:count:)`` takes from. A kernel that cannot stream
/// (a distortion reads rows out of order; an image narrower than a vector)
/// runs on the whole upstream image instead — the same pixels.
public final class KernelRowSource: RowSource {
  private let bridge: RowBridge?
  private let whole: ImageBuffer?
  private let upstream: RowSource

  /// - Parameters:
  ///   - otherInputs: the kernel's inputs 1…, whole images.
  /// - Throws: ``LLVMError`` when the upstream's format is not the kernel's
  ///   input 0; what running it on the whole image throws.
  public init(_ kernel: CompiledKernel, upstream: RowSource, uniforms: [Float], otherInputs: [ImageBuffer] = []) throws {
    guard upstream.format == kernel.layout.inputs[0] else {
      throw LLVMError("the rows are \(upstream.format), the kernel was compiled for \(kernel.layout.inputs[0])")
    }
    self.upstream = upstream
    let (w, h) = (upstream.width, upstream.height)
    if kernel.streamingRefusal != nil || w < kernel.lanes {
      let input = try upstream.materialise()
      let output = try ImageBuffer(width: w, height: h, format: kernel.layout.output, zeroFilled: false)
      try kernel.run(inputs: [input] + otherInputs, output: output, uniforms: uniforms)
      whole = output
      bridge = nil
    } else {
      let bridge = try RowBridge(rowBytes: w * kernel.layout.output.bytesPerPixel, rows: 32)
      bridge.start {
        try kernel.stream(
          width: w, height: h, uniforms: uniforms, otherInputs: otherInputs,
          read: { pointer, rowBytes, count in try upstream.read(into: pointer, rowBytes: rowBytes, count: count) },
          write: { pointer, rowBytes, count in try bridge.push(pointer, rowBytes: rowBytes, count: count) })
      }
      self.bridge = bridge
      whole = nil
    }
    super.init(width: w, height: h, format: kernel.layout.output)
  }

  deinit { bridge?.close() }

  override func produce(into pointer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
    if let whole {
      for k in 0..<count {
        (pointer + k * rowBytes).copyMemory(from: whole.data + (delivered + k) * whole.rowBytes, byteCount: whole.rowDataBytes)
      }
    } else {
      try bridge!.pop(into: pointer, rowBytes: rowBytes, count: count)
    }
  }

  override func finishUpstream() throws {
    try bridge?.join()
    if bridge != nil { try upstream.finish() }
  }
}

/// Rows handed from a producer thread to a consumer through a ring of
/// `rows` rows: the producer blocks while the ring is full, the consumer
/// while it is empty; the first error either side records ends both.
final class RowBridge: @unchecked Sendable {
  private let rowBytes: Int
  private let rows: Int
  private let block: BufferPool.Block
  private let condition = NSCondition()
  private var pushed = 0
  private var popped = 0
  private var error: Error?
  private var closed = false
  private var finished = false
  private let done = DispatchSemaphore(value: 0)
  private var started = false

  init(rowBytes: Int, rows: Int) throws {
    self.rowBytes = rowBytes
    self.rows = rows
    block = try BufferPool.shared.allocate(byteCount: rowBytes * rows)
  }

  deinit { BufferPool.shared.release(block) }

  /// Runs `produce` on a new thread; its error, if any, reaches the consumer.
  func start(_ produce: @escaping () throws -> Void) {
    started = true
    let thread = Thread { [self] in
      do { try produce() } catch { record(error) }
      condition.lock()
      finished = true
      condition.broadcast()
      condition.unlock()
      done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  private func record(_ e: Error) {
    condition.lock()
    if error == nil { error = e }
    condition.broadcast()
    condition.unlock()
  }

  /// Copies `count` rows in, waiting for room.
  func push(_ pointer: UnsafeRawPointer, rowBytes stride: Int, count: Int) throws {
    for k in 0..<count {
      condition.lock()
      while pushed - popped == rows && !closed && error == nil { condition.wait() }
      if closed || error != nil {
        condition.unlock()
        throw RowSourceError("the consumer stopped")
      }
      condition.unlock()
      (block.pointer + (pushed % rows) * rowBytes).copyMemory(from: pointer + k * stride, byteCount: rowBytes)
      condition.lock()
      pushed += 1
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Copies `count` rows out, waiting for them; throws the producer's error.
  func pop(into pointer: UnsafeMutableRawPointer, rowBytes stride: Int, count: Int) throws {
    for k in 0..<count {
      condition.lock()
      while popped == pushed && error == nil && !finished { condition.wait() }
      if let error {
        condition.unlock()
        throw error
      }
      guard popped < pushed else {
        condition.unlock()
        throw RowSourceError("the kernel ended before its last row")
      }
      condition.unlock()
      (pointer + k * stride).copyMemory(from: block.pointer + (popped % rows) * rowBytes, byteCount: rowBytes)
      condition.lock()
      popped += 1
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Waits for the producer to end; throws its error.
  func join() throws {
    guard started else { return }
    done.wait()
    done.signal()
    condition.lock()
    defer { condition.unlock() }
    if let error { throw error }
  }

  /// Tells the producer to stop and waits for it.
  func close() {
    condition.lock()
    closed = true
    condition.broadcast()
    condition.unlock()
    if started {
      done.wait()
      done.signal()
    }
  }
}
