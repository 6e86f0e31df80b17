internal import CGIF

/// GIF through giflib (see Sources/CGIF), read only: the first frame.
enum GIFCodec {
  /// Decodes the first frame onto the canvas as `.rgba8`, straight alpha.
  static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws -> Decoded {
    var message = CMessage()
    var reader: OpaquePointer?
    var width: UInt32 = 0, height: UInt32 = 0
    let opened = message.withBuffer { fx_gif_reader_open(bytes.baseAddress, bytes.count, &reader, &width, &height, $0, $1) }
    guard opened == FX_GIF_OK, let reader else { throw ImageFileFailure("corrupt GIF data: \(message.text)") }
    defer { fx_gif_reader_close(reader) }
    let w = Int(width), h = Int(height)
    try checkImageSize(width: w, height: h, maxPixels: maxPixels)
    // Zero-filled (free for fresh memory, which is zero already): a file that
    // declares a large canvas and then has no frame touches none of it.
    let image = try decodeBuffer(width: w, height: h, format: .rgba8, zeroFilled: true)
    var transparent: Int32 = 0
    let status = message.withBuffer { fx_gif_reader_decode(reader, image.data, image.rowBytes, &transparent, $0, $1) }
    guard status == FX_GIF_OK else { throw ImageFileFailure("corrupt or truncated GIF data: \(message.text)") }
    return Decoded(
      image: image, info: ImageFileInfo(format: .gif, layout: transparent != 0 ? .rgba : .rgb, bitDepth: 8, width: w, height: h))
  }
}
