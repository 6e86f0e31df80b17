#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Refuses images that ``ImageBuffer`` could not hold or that declare more
/// than `maxPixels`, from the header, before anything is allocated.
func checkImageSize(width: Int, height: Int, maxPixels: Int) throws {
  if width > ImageBuffer.maxDimension || height > ImageBuffer.maxDimension {
    throw ImageFileFailure(
      "image too large: \(width)×\(height) px (the limit is \(ImageBuffer.maxDimension) px per side)")
  }
  if width * height > min(maxPixels, ImageBuffer.maxPixels) {
    throw ImageFileFailure(
      "image too large: \(width)×\(height) px is \(width * height) pixels, over the limit of "
        + "\(min(maxPixels, ImageBuffer.maxPixels)) (raise it with --max-pixels or ImageReadOptions.maxPixels)")
  }
}

/// The buffer a decoder fills, its failure to allocate a message that names
/// the size: "not enough memory for 46340×46340 px (8.6 GB)".
func decodeBuffer(width: Int, height: Int, format: PixelFormat, zeroFilled: Bool = false) throws -> ImageBuffer {
  do {
    return try ImageBuffer(width: width, height: height, format: format, zeroFilled: zeroFilled)
  } catch ImageBufferError.outOfMemory {
    let gigabytes = Double(width * height * format.bytesPerPixel) / 1e9
    let size = gigabytes >= 0.1 ? "\((gigabytes * 10).rounded() / 10) GB" : "\(Int((gigabytes * 1000).rounded())) MB"
    throw ImageFileFailure("not enough memory for \(width)×\(height) px (\(size))")
  }
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

/// Bytes in a buffer allocated with malloc (by the C side, or here,
/// failably); freed on deinit.
final class MallocBytes {
  private(set) var pointer: UnsafeMutableRawPointer
  /// Bytes in use.
  var count: Int
  /// Bytes allocated.
  private(set) var capacity: Int

  init(pointer: UnsafeMutableRawPointer, count: Int) {
    self.pointer = pointer
    self.count = count
    capacity = count
  }

  /// An empty buffer of `capacity` bytes.
  /// - Throws: ``ImageFileFailure`` when there is not enough memory.
  init(capacity: Int) throws {
    guard let p = malloc(max(capacity, 1)) else { throw Self.noMemory(capacity) }
    pointer = p
    count = 0
    self.capacity = max(capacity, 1)
  }

  /// Makes room for `capacity` bytes, keeping the contents.
  func grow(to capacity: Int) throws {
    guard let p = realloc(pointer, capacity) else { throw Self.noMemory(capacity) }
    pointer = p
    self.capacity = capacity
  }

  private static func noMemory(_ bytes: Int) -> ImageFileFailure {
    ImageFileFailure("not enough memory to read the file (\(bytes >> 20) MiB)")
  }

  deinit { free(pointer) }

  /// Calls `body` with the bytes in use, kept alive until it returns (a
  /// pointer taken out of this object would dangle once it is released).
  func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try withExtendedLifetime(self) { try body(UnsafeRawBufferPointer(start: pointer, count: count)) }
  }

  /// A copy of the bytes in use.
  var array: [UInt8] { withBytes { Array($0) } }
}

/// What a codec decoded: the pixels as stored (straight alpha; CMYK samples
/// for a CMYK JPEG), what the file says about them, and its metadata blocks,
/// for ``ImageFile`` to finish (profiles, orientation).
struct Decoded {
  var image: ImageBuffer
  var info: ImageFileInfo
  /// The embedded ICC profile, as stored.
  var icc: [UInt8]? = nil
  /// The EXIF block (a TIFF structure), as stored.
  var exif: [UInt8]? = nil
  /// The XMP packet, as stored.
  var xmp: [UInt8]? = nil
  /// Set for a CMYK or YCCK JPEG: the buffer holds C, M, Y, K bytes.
  var cmyk: CMYK? = nil

  struct CMYK {
    /// Adobe's convention (an APP14 marker): the samples are 255 − ink.
    var inverted: Bool
  }
}

/// A copy of the bytes a C getter points at (`(pointer, size) -> found`), or nil.
func copy(_ getter: (inout UnsafeRawPointer?, inout Int) -> Int32) -> [UInt8]? {
  var pointer: UnsafeRawPointer?
  var size = 0
  guard getter(&pointer, &size) != 0, let pointer, size > 0 else { return nil }
  return Array(UnsafeRawBufferPointer(start: pointer, count: size))
}

/// What a C encoder is handed: the packed rows, their stride, and the ICC
/// profile to embed (nil and 0 for none).
struct EncoderInput {
  var rows: UnsafeRawPointer?
  var rowBytes: Int
  var icc: UnsafeRawPointer?
  var iccCount: Int
  /// The EXIF block and XMP packet to write (nil and 0 for none).
  var exif: UnsafeRawPointer? = nil
  var exifCount = 0
  var xmp: UnsafeRawPointer? = nil
  var xmpCount = 0
  /// The density to write (JPEG's JFIF, PNG's pHYs), or nil.
  var resolution: ImageResolution? = nil
}

/// The EXIF block (a TIFF structure) and XMP packet an encoder writes, as
/// ``ImageMetadata/blocks(orientation:format:)`` composes them.
struct MetadataBlocks {
  var exif: [UInt8]? = nil
  var xmp: [UInt8]? = nil
  var resolution: ImageResolution? = nil
}

/// Packs `image` into `layout`'s rows (``Packing/pack(_:layout:bitDepth:bigEndian:)``)
/// and runs a C encoder on them: `encode` gets the input, the pointer and size
/// it sets to its malloc'd file, and a message buffer, and returns whether it
/// succeeded.
/// - Throws: ``ImageFileFailure`` "cannot encode `name`: …" when it fails.
func encodeRows(
  _ image: ImageBuffer, layout: ChannelLayout, bitDepth: Int, bigEndian: Bool = true, iccProfile: [UInt8]?,
  metadata: MetadataBlocks = MetadataBlocks(), name: String,
  _ encode: (EncoderInput, inout UnsafeMutableRawPointer?, inout Int, UnsafeMutablePointer<CChar>, Int) -> Bool
) throws -> MallocBytes {
  let (rows, rowBytes) = try Packing.pack(image, layout: layout, bitDepth: bitDepth, bigEndian: bigEndian)
  return try withExtendedLifetime(rows) {
    try runEncoder(rows: UnsafeRawPointer(rows.pointer), rowBytes: rowBytes, iccProfile: iccProfile, metadata: metadata, name: name, encode)
  }
}

/// Runs a C encoder on rows already in the layout it takes (which must stay
/// alive for the call), as ``encodeRows(_:layout:bitDepth:bigEndian:iccProfile:name:_:)`` does after packing.
func runEncoder(
  rows: UnsafeRawPointer, rowBytes: Int, iccProfile: [UInt8]?, metadata: MetadataBlocks = MetadataBlocks(), name: String,
  _ encode: (EncoderInput, inout UnsafeMutableRawPointer?, inout Int, UnsafeMutablePointer<CChar>, Int) -> Bool
) throws -> MallocBytes {
  var message = CMessage()
  var out: UnsafeMutableRawPointer?
  var size = 0
  let icc = iccProfile ?? [], exif = metadata.exif ?? [], xmp = metadata.xmp ?? []
  let ok = icc.withUnsafeBytes { icc in
    exif.withUnsafeBytes { exif in
      xmp.withUnsafeBytes { xmp in
        message.withBuffer { msg, cap in
          let input = EncoderInput(
            rows: rows, rowBytes: rowBytes, icc: icc.isEmpty ? nil : icc.baseAddress, iccCount: icc.count,
            exif: exif.isEmpty ? nil : exif.baseAddress, exifCount: exif.count, xmp: xmp.isEmpty ? nil : xmp.baseAddress,
            xmpCount: xmp.count, resolution: metadata.resolution)
          return encode(input, &out, &size, msg, cap)
        }
      }
    }
  }
  guard ok, let out else { throw ImageFileFailure("cannot encode \(name): \(message.text)") }
  return MallocBytes(pointer: out, count: size)
}
