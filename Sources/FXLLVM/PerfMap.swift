internal import CLLVM
import Foundation

/// Linux `perf`'s map of JIT'd code (`/tmp/perf-<pid>.map`, one
/// `START SIZE NAME` line per function, hexadecimal), so `perf report` names
/// kernel passes instead of bare addresses. Written only when the environment
/// variable `FXC_PERF_MAP` is set (to anything): a developer's profiling aid.
/// The format is perf's (tools/perf/Documentation/jit-interface.txt).
/// Lines are only appended: when a released kernel's address range is reused
/// by a later one (`fxc bench` compiles several), perf may show the earlier
/// name, so profile one chain per process.
public enum PerfMap {
  /// Whether `FXC_PERF_MAP` asks for the map.
  public static let isEnabled = ProcessInfo.processInfo.environment["FXC_PERF_MAP"] != nil

  private static let lock = NSLock()

  /// The sizes in bytes of the function symbols an ELF object defines, by
  /// name; empty when LLVM cannot read `object`.
  public static func functionSizes(inObject object: [UInt8]) -> [String: UInt64] {
    let buffer = object.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { LLVMCreateMemoryBufferWithMemoryRangeCopy($0.baseAddress, $0.count, "fxc-object")! }
    }
    defer { LLVMDisposeMemoryBuffer(buffer) }
    var message: UnsafeMutablePointer<CChar>?
    guard let binary = LLVMCreateBinary(buffer, nil, &message) else {
      LLVMDisposeMessage(message)
      return [:]
    }
    defer { LLVMDisposeBinary(binary) }
    let symbols = LLVMObjectFileCopySymbolIterator(binary)!
    defer { LLVMDisposeSymbolIterator(symbols) }
    var sizes: [String: UInt64] = [:]
    while LLVMObjectFileIsSymbolIteratorAtEnd(binary, symbols) == 0 {
      if let name = LLVMGetSymbolName(symbols), LLVMGetSymbolSize(symbols) > 0 {
        sizes[String(cString: name)] = LLVMGetSymbolSize(symbols)
      }
      LLVMMoveToNextSymbol(symbols)
    }
    return sizes
  }

  /// Appends one line per function (`address`, `size`, `name`) to this
  /// process's map.
  public static func record(_ functions: [(address: UnsafeRawPointer, size: UInt64, name: String)]) {
    let lines = functions.map { String(format: "%lx %lx %@\n", UInt(bitPattern: $0.address), $0.size, $0.name) }.joined()
    lock.lock()
    defer { lock.unlock() }
    guard let file = FileHandle(forWritingAtPath: path) ?? create() else { return }
    defer { try? file.close() }
    _ = try? file.seekToEnd()
    try? file.write(contentsOf: Data(lines.utf8))
  }

  private static var path: String { "/tmp/perf-\(getpid()).map" }

  private static func create() -> FileHandle? {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return FileHandle(forWritingAtPath: path)
  }
}
