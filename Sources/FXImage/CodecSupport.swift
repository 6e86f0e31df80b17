#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Refuses images that ``ImageBuffer`` could not hold, before anything is allocated.
func checkImageSize(width: Int, height: Int) throws {
  guard
    width > ImageBuffer.maxDimension || height > ImageBuffer.maxDimension
      || width * height > ImageBuffer.maxPixels
  else { return }
  throw ImageFileFailure(
    "image too large: \(width)×\(height) pixels (the limit is \(ImageBuffer.maxDimension) per side "
      + "and \(ImageBuffer.maxPixels) pixels in all)")
}

/// A C message buffer filled by the shims.
struct CMessage {
  private var storage = [CChar](repeating: 0, count: 512)

  mutating func withBuffer<R>(_ body: (UnsafeMutablePointer<CChar>, Int) -> R) -> R {
    storage.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
  }

  var text: String {
    storage.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }
}

/// Bytes in a buffer that the C side allocated with malloc; freed on deinit.
final class MallocBytes {
  let pointer: UnsafeMutableRawPointer
  let count: Int

  init(pointer: UnsafeMutableRawPointer, count: Int) {
    self.pointer = pointer
    self.count = count
  }

  deinit { free(pointer) }

  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }
}
