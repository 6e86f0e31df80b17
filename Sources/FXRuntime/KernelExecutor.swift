import FXCodegen
import FXIR
import FXImage
import FXLLVM
import FXPasses

/// What runs a compiled kernel on one kind of target: native code on this
/// CPU (``CompiledKernel``) or a module on a CUDA device (``CUDAKernel``).
/// Both take and give host images, so a pipeline, a benchmark or the fuzzer
/// runs either the same way; each follows its ``KernelPlan`` (the target's
/// schedule: strips on a CPU, a grid on a GPU).
public protocol KernelExecutor: AnyObject, Sendable {
  /// The kernel compiled.
  var kernel: Kernel { get }
  /// The buffer formats it was compiled for.
  var layout: KernelLayout { get }
  /// The plan its code follows.
  var plan: KernelPlan { get }
  /// Time spent making the code (or loading it from a cache), in milliseconds.
  var compileMilliseconds: Double { get }
  /// That time by phase, where the back end measures phases.
  var phaseMilliseconds: [String: Double] { get }
  /// How intermediates are held at run time, for `fxc dump`.
  var runtimeSchedule: String { get }

  /// Runs the kernel over `inputs` into `output` (input 0's size, the
  /// compiled output format), with one value per uniform of the graph.
  /// `threads` is the CPU threads a CPU executor may use.
  /// - Throws: ``FXLLVM/LLVMError`` describing a format, size or count
  ///   mismatch, or the device's failure; `output` is then not written, or
  ///   not wholly.
  func run(inputs: [ImageBuffer], output: ImageBuffer, uniforms: [Float], threads: Int) throws
}

extension CompiledKernel: KernelExecutor {}

extension KernelExecutor {
  /// Checks what a run is given against what the kernel was compiled for:
  /// one input per layout input in its format, an output of input 0's size
  /// in the output format, a finite value for every uniform.
  /// - Throws: ``FXLLVM/LLVMError`` naming the first mismatch.
  func checkArguments(inputs: [ImageBuffer], output: ImageBuffer, uniforms: [Float]) throws {
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
  }
}
