import FX
import Foundation
import Testing

/// Every way a pipeline runs — one kernel, the streamed bands, scans,
/// reductions, geometry, resampling — reads a wrapped input with padded rows
/// and writes a wrapped output without touching its padding (issue 37: the
/// caller's own pixel memory, any row stride).
@Suite struct CallerMemoryPipelineTests {
  static let pad = 44  // bytes after each row, filled with 0xAB

  /// `image` copied into fresh memory with padded rows, wrapped.
  static func paddedCopy(_ image: ImageBuffer) throws -> ImageBuffer {
    let stride = image.rowDataBytes + pad
    let p = UnsafeMutableRawPointer.allocate(byteCount: stride * image.height, alignment: 16)
    p.initializeMemory(as: UInt8.self, repeating: 0xAB, count: stride * image.height)
    let wrapped = try ImageBuffer(
      wrapping: p, width: image.width, height: image.height, rowBytes: stride, format: image.format,
      deallocator: .custom { $0.deallocate() })
    wrapped.copyPixels(from: image)
    return wrapped
  }

  static func paddingIsUntouched(_ image: ImageBuffer) -> Bool {
    (0..<image.height).allSatisfy { y in
      (image.rowDataBytes..<image.rowBytes).allSatisfy { (image.data + y * image.rowBytes).load(fromByteOffset: $0, as: UInt8.self) == 0xAB }
    }
  }

  static let effects: [(String, Effect)] = [
    ("sepia | vignette", sepia() | vignette()),
    ("gaussianBlur exact", gaussianBlur(sigma: 2, method: .exact)),
    ("gaussianBlur recursive", gaussianBlur(sigma: 12, method: .recursive) | contrast(amount: 1.1)),
    ("boxBlur", boxBlur(radius: 20, method: .recursive)),
    ("autoLevels", autoLevels() | saturation(amount: 1.2)),
    ("resize", resize(width: 31) | sharpen()),
    ("crop, rotate", crop(x: 3, y: 2, width: 40, height: 20) | rotate(degrees: 90)),
    ("wave", wave(amplitude: 3, wavelength: 11)),
  ]

  @Test(arguments: effects.map(\.0))
  func aPaddedInputAndOutputGiveThePackedResult(_ name: String) throws {
    let effect = try #require(Self.effects.first { $0.0 == name }).1
    let input = randomImage(67, 29, seed: 8)
    let compiled = try Pipeline(effect).compile(cache: nil)
    for threads in [1, 2] {
      let expected = try compiled.run([input], threads: threads)
      let got = try compiled.run([try Self.paddedCopy(input)], threads: threads)
      #expect(maxDifference(got, expected) == 0, "\(name), \(threads) threads: padded input")
      let output = try Self.paddedCopy(try ImageBuffer(width: expected.width, height: expected.height, format: expected.format))
      try compiled.run([try Self.paddedCopy(input)], into: output, threads: threads)
      #expect(maxDifference(output, expected) == 0, "\(name), \(threads) threads: padded output")
      #expect(Self.paddingIsUntouched(output), "\(name): the output's padding was written")
    }
    // The interpreter reads and writes through the stride too.
    let interpreted = try Pipeline(effect).compile(backend: .interpreter, cache: nil)
    let reference = try interpreted.run([input])
    #expect(maxDifference(try interpreted.run([try Self.paddedCopy(input)]), reference) == 0, "\(name): interpreter")
  }
}
