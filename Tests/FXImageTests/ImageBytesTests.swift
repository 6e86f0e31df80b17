import FXImage
import Testing

/// `ImageFile.read(bytes:name:)`: the decoder of `read(_:)` for bytes in
/// memory (issue 16: the entry point of the image fuzz target).
@Suite struct ReadBytes {
  @Test(arguments: ["rgba8.png", "basn6a16.png", "palette_trns.png", "rgb_interlaced.png", "color_dc.jpg"])
  func bytesDecodeAsTheFileDoes(name: String) throws {
    let path = fixture(name)
    let (fromFile, fileInfo) = try ImageFile.read(path)
    let (fromBytes, bytesInfo) = try ImageFile.read(bytes: try bytes(of: path))
    #expect(bytesInfo == fileInfo)
    #expect(pixels(fromBytes) == pixels(fromFile))
  }

  @Test func errorsNameTheData() throws {
    #expect(throws: ImageFileError(path: "upload", reason: "empty file (0 bytes)")) {
      try ImageFile.read(bytes: [], name: "upload")
    }
    do {
      _ = try ImageFile.read(bytes: Array("BM6 not a format fxc reads".utf8))
      Issue.record("a BMP decoded")
    } catch {
      #expect(isFileError(error, path: "(memory)", mentioning: "unsupported format"), "got: \(error)")
    }
  }
}
