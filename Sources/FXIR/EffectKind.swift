/// The three kinds of effect, as in SwiftUI's shader modifiers and Core Image's kernels (DESIGN §2).
public enum EffectKind: String, Sendable, Hashable {
  /// `(position, color) -> float4` — CIColorKernel.
  case color
  /// `(position) -> float2`, where to sample the input — CIWarpKernel.
  case distortion
  /// `(position, layer) -> float4`, sampling the input anywhere — CIKernel.
  case layer
}
