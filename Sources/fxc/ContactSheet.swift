import FX
import Foundation

/// The contact sheet of `fxc effects --sheet`: every catalogue entry applied to
/// one photo (its `example` chain, JIT-compiled), in a labelled grid. The first
/// cell is the photo itself; transitions go from the photo to a blue-toned mirror
/// image of it. Cells are drawn over a gray checkerboard so transparency shows.
struct ContactSheet {
  var photo: ImageBuffer
  var cellWidth: Int
  var columns: Int

  static let margin = 8
  static let labelHeight = 2 * (BitmapFont.height + 2) + 2
  static let background = SIMD4<Float>(0.12, 0.12, 0.12, 1)
  static let ink = SIMD4<Float>(0.92, 0.92, 0.92, 1)

  /// What went into one cell.
  struct Cell {
    var title: String
    var detail: String
    var image: ImageBuffer
  }

  /// Renders every entry of `effects`; `progress` reports each as it is done.
  func render(_ effects: [EffectSpec], progress: (String) -> Void = { _ in }) throws -> ImageBuffer {
    let thumb = try downscale(photo, toWidth: cellWidth)
    let other = try Pipeline(gradientMap(colors: [Color(rgb: 0x0b1a40), Color(rgb: 0x2e86de), Color(rgb: 0xf6f9ff)]))
      .apply(to: mirrored(thumb))
    var cells = [Cell(title: "original", detail: "", image: thumb)]
    for spec in effects {
      var effect = try ChainSyntax.parse(spec.example).resolve().effect
      if spec.changesSize {  // shown fitted into the cell
        effect = effect | resize(width: cellWidth, height: thumb.height, fit: .contain, filter: .box)
      }
      let pipeline = try Pipeline(effect)
      let inputs = Array([thumb, other].prefix(pipeline.graph.inputs.count))
      let compiled = try pipeline.compile(
        inputFormats: inputs.map(\.format), outputFormat: .rgba8)
      let args = spec.example.dropFirst(spec.name.count)
      cells.append(Cell(title: spec.name, detail: String(args), image: try compiled.run(inputs, threads: 2)))
      progress(spec.name)
    }
    return try layout(cells, cellHeight: thumb.height)
  }

  /// The cells in a grid, each labelled underneath.
  func layout(_ cells: [Cell], cellHeight: Int) throws -> ImageBuffer {
    let m = Self.margin
    let rows = (cells.count + columns - 1) / columns
    let sheet = try ImageBuffer(
      width: columns * (cellWidth + m) + m, height: rows * (cellHeight + Self.labelHeight + m) + m, format: .rgba8)
    fill(sheet, 0, 0, sheet.width, sheet.height, Self.background)
    for (index, cell) in cells.enumerated() {
      let x = m + (index % columns) * (cellWidth + m)
      let y = m + (index / columns) * (cellHeight + Self.labelHeight + m)
      blit(cell.image, into: sheet, x, y)
      draw(cell.title, into: sheet, x, y + cellHeight + 3)
      draw(cell.detail, into: sheet, x, y + cellHeight + 3 + BitmapFont.height + 2)
    }
    return sheet
  }

  /// `image` over a checkerboard of 8-pixel squares, copied with its top-left corner at (x, y).
  func blit(_ image: ImageBuffer, into sheet: ImageBuffer, _ x: Int, _ y: Int) {
    for j in 0..<image.height {
      for i in 0..<image.width {
        let c = image[i, j]
        let checker: Float = (i / 8 + j / 8) % 2 == 0 ? 0.55 : 0.4
        let under = SIMD4<Float>(checker, checker, checker, 1)
        sheet[x + i, y + j] = c + under * (1 - c.w)
      }
    }
  }

  /// `text` in the bitmap font with its top-left corner at (x, y), cut to the cell's width.
  func draw(_ text: String, into sheet: ImageBuffer, _ x: Int, _ y: Int) {
    let fits = (cellWidth + 1) / BitmapFont.advance
    let shown = text.count <= fits ? text : String(text.prefix(max(fits - 2, 0))) + ".."
    for (n, character) in shown.enumerated() {
      for fy in 0..<BitmapFont.height {
        for fx in 0..<BitmapFont.width where BitmapFont.ink(character, fx, fy) {
          let px = x + n * BitmapFont.advance + fx, py = y + fy
          if px < sheet.width && py < sheet.height { sheet[px, py] = Self.ink }
        }
      }
    }
  }

  func fill(_ sheet: ImageBuffer, _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ color: SIMD4<Float>) {
    for j in y..<(y + h) { for i in x..<(x + w) { sheet[i, j] = color } }
  }

  /// `image` scaled to `width` pixels wide (height in proportion) by averaging
  /// the source pixels whose centers fall in each output pixel (premultiplied).
  func downscale(_ image: ImageBuffer, toWidth width: Int) throws -> ImageBuffer {
    let scale = Double(image.width) / Double(width)
    guard scale > 1 else { return image }
    let height = max(Int((Double(image.height) / scale).rounded()), 1)
    let out = try ImageBuffer(width: width, height: height, format: .rgba32f)
    func span(_ o: Int, _ limit: Int) -> Range<Int> {
      let lo = Int((Double(o) * scale).rounded(.up)), hi = Int((Double(o + 1) * scale).rounded(.up))
      return min(lo, limit - 1)..<max(min(hi, limit), min(lo, limit - 1) + 1)
    }
    for y in 0..<height {
      let ys = span(y, image.height)
      for x in 0..<width {
        let xs = span(x, image.width)
        var sum = SIMD4<Float>.zero
        for j in ys { for i in xs { sum += image[i, j] } }
        out[x, y] = sum / Float(xs.count * ys.count)
      }
    }
    return out
  }

  /// `image` mirrored left to right.
  func mirrored(_ image: ImageBuffer) throws -> ImageBuffer {
    let out = try ImageBuffer(width: image.width, height: image.height, format: image.format)
    for y in 0..<image.height { for x in 0..<image.width { out[x, y] = image[image.width - 1 - x, y] } }
    return out
  }
}
