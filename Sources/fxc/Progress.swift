import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The progress bar `fxc run` draws on standard error when it is a terminal:
///
///     [##########··········]  123/500 files  45.6 Mpixel/s  12.3 files/s  ETA 0:31  2 errors
///
/// Lines printed while it shows (errors) go above it. Not thread-safe: the
/// batch calls it under its own lock.
final class ProgressBar {
  let total: Int
  private var shown = false
  private var lastDraw: UInt64 = 0

  init(total: Int) { self.total = total }

  /// Whether standard error is a terminal, the only place a bar is drawn.
  static var isTerminal: Bool { isatty(STDERR_FILENO) != 0 }

  /// Redraws at most ten times a second, unless `force`.
  func draw(_ s: BatchCounts, elapsed: Double, force: Bool = false) {
    let now = DispatchTime.now().uptimeNanoseconds
    guard force || now - lastDraw > 100_000_000 else { return }
    lastDraw = now
    let done = s.finished
    let rate = elapsed > 0 ? Double(s.written) / elapsed : 0
    let remaining = max(0, total - done)
    let eta = rate > 0 && s.written > 0 ? clock(Double(remaining) / rate) : "--:--"
    var text = "\(done)/\(total) files  \(fixed(s.megapixels / max(elapsed, 1e-9))) Mpixel/s"
    text += "  \(fixed(rate)) files/s  ETA \(eta)"
    if s.failed > 0 { text += "  \(s.failed) error\(s.failed == 1 ? "" : "s")" }
    let columns = Self.columns()
    let barWidth = max(10, min(40, columns - text.count - 5))
    let filled = total == 0 ? barWidth : barWidth * done / total
    let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: barWidth - filled) + "]  "
    let line = String((bar + text).prefix(max(1, columns - 1)))
    FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    shown = true
  }

  /// Clears the bar so that a line can be printed in its place.
  func clear() {
    guard shown else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    shown = false
    lastDraw = 0
  }

  private func clock(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
  }

  private static func columns() -> Int {
    var size = winsize()
    if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 80
  }
}
