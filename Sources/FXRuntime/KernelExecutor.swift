import FXCodegen
import FXIR
import FXImage
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
