import Foundation
import Testing

@testable import FX

/// `Pipeline.apply(to:)` compiles once per input format and opacity and then
/// reuses that kernel, with each image getting the pixels of a fresh compile
/// for its own format and opacity.
struct PipelineApplyTests {
  @Test func applyCompilesOncePerFormatAndOpacity() throws {
    let pipeline = try Pipeline(gaussianBlur(sigma: 2) | sepia())
    let images = [
      opaqueImage(20, 11, seed: 1, format: .rgba8),
      opaqueImage(9, 30, seed: 2, format: .rgba8),  // another size: the same kernel
      randomImage(13, 7, seed: 3, format: .rgba8),  // translucent: its own kernel
      opaqueImage(12, 12, seed: 4, format: .rgba16),  // another format: its own kernel
      opaqueImage(20, 11, seed: 1, format: .rgba8),
    ]
    let copy = pipeline  // copies share what was compiled
    for (i, image) in images.enumerated() {
      let applied = try (i % 2 == 0 ? pipeline : copy).apply(to: image)
      var options = LoweringOptions()
      if image.isOpaque { options.opaqueInputs = [0] }
      let fresh = try pipeline.compile(
        inputFormats: [image.format], outputFormat: image.format, options: options, cache: nil
      ).run([image])
      #expect(memcmp(fresh.data, applied.data, fresh.byteCount) == 0, "image \(i)")
    }
    #expect(pipeline.applied.count == 3)
  }
}
