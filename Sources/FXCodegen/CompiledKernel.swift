import CLLVM
import Dispatch
import Foundation
import FXIR
import FXImage
import FXPasses

/// A kernel compiled to native code for one ``KernelLayout``, ready to run on
/// any image size. Safe to run from several threads at once (each run has its
/// own intermediates).
public final class CompiledKernel: @unchecked Sendable {
  public typealias PassFunction = @convention(c) (
    UnsafeRawPointer, UnsafePointer<Float>, Int32, Int32, Int32, Int32
  ) -> Void

  public let kernel: Kernel
  public let layout: KernelLayout
  public let target: HostTarget
  /// Time spent emitting, optimising and generating machine code, in milliseconds.
  public let compileMilliseconds: Double
  private let jit: JIT
  private let passes: [PassFunction]

  /// Emits, optimises at O3 for the host CPU and JIT-compiles `kernel`.
  /// - Throws: ``LLVMError`` if LLVM rejects the module (a compiler bug; the
  ///   interpreter remains available as a fallback).
  public init(_ kernel: Kernel, layout: KernelLayout, target: HostTarget = .host) throws {
    guard layout.inputs.count == kernel.inputCount else {
      throw LLVMError("the kernel reads \(kernel.inputCount) inputs, the layout names \(layout.inputs.count)")
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let module = try KernelEmitter.emit(kernel, layout: layout, target: target)
    try module.optimize("default<O3>")
    let jit = try JIT()
    try jit.add(module)
    passes = try kernel.passes.indices.map { unsafeBitCast(try jit.lookup("fxc_pass\($0)"), to: PassFunction.self) }
    compileMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    self.jit = jit
    self.kernel = kernel
    self.layout = layout
    self.target = target
  }

  /// Runs every pass over the whole image, rows split into bands across `threads` threads.
  /// - Parameters:
  ///   - inputs: the graph's inputs in the compiled formats; input 0 sets the output size.
  ///   - output: a buffer of input 0's size in the compiled output format.
  ///   - uniforms: one value per uniform of the graph, in order.
  /// - Throws: ``LLVMError`` describing a format, size or count mismatch; nothing is written then.
  public func run(inputs: [ImageBuffer], output: ImageBuffer, uniforms: [Float] = [], threads: Int = 1) throws {
    guard inputs.count == layout.inputs.count else {
      throw LLVMError("the kernel takes \(layout.inputs.count) input images, \(inputs.count) given")
    }
    for (i, (buffer, format)) in zip(inputs, layout.inputs).enumerated() where buffer.format != format {
      throw LLVMError("input \(i) is \(buffer.format), the kernel was compiled for \(format)")
    }
    guard output.format == layout.output, output.width == inputs[0].width, output.height == inputs[0].height else {
      throw LLVMError(
        "the output must be \(inputs[0].width)×\(inputs[0].height) \(layout.output), got \(output.width)×\(output.height) \(output.format)")
    }
    guard uniforms.count >= kernel.uniformCount, uniforms.allSatisfy({ $0.isFinite }) else {
      throw LLVMError("the kernel needs \(kernel.uniformCount) finite uniform values, got \(uniforms)")
    }
    let intermediates = try kernel.intermediates.map { _ in
      try ImageBuffer(width: output.width, height: output.height, format: .rgba32f)
    }
    let buffers = inputs + intermediates + [output]
    var descriptors = buffers.map {
      BufferDescriptor(data: $0.data, rowBytes: Int64($0.rowBytes), width: Int32($0.width), height: Int32($0.height))
    }
    let values = uniforms.isEmpty ? [0] : uniforms
    let height = output.height, width = output.width
    descriptors.withUnsafeBytes { d in
      values.withUnsafeBufferPointer { u in
        let desc = d.baseAddress!, uni = u.baseAddress!
        for pass in passes {
          let bands = Swift.max(1, Swift.min(threads, height))
          if bands == 1 {
            pass(desc, uni, Int32(width), Int32(height), 0, Int32(height))
          } else {
            // Bands of 16 rows, taken in turn, so uneven rows cost (a wave, a vignette) spread evenly.
            let rows = 16, chunks = (height + rows - 1) / rows
            DispatchQueue.concurrentPerform(iterations: bands) { t in
              var c = t
              while c < chunks {
                pass(desc, uni, Int32(width), Int32(height), Int32(c * rows), Int32(Swift.min(height, (c + 1) * rows)))
                c += bands
              }
            }
          }
        }
      }
    }
    withExtendedLifetime(buffers) {}
  }
}
