import FX
import Foundation
import Testing

/// One wrong program per diagnostic (Fixtures/metal/errors/NAME.metal): the
/// library refuses it, or lists the function that does not compile as
/// unavailable (and the ones that do as loaded), with `NAME.metal:line:col:
/// error: …`, the source line and a caret, exactly as NAME.txt says; a
/// program that compiles with warnings (warning-*.metal) has them, `warning: …`, instead. `FXC_UPDATE_GOLDEN=1` rewrites the goldens.
struct MetalDiagnosticTests {
  static let directory = MetalSupport.fixtures.appendingPathComponent("errors")
  static let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    .filter { $0.hasSuffix(".metal") }.map { String($0.dropLast(6)) }.sorted()

  @Test func thereIsOneProgramPerDiagnostic() {
    #expect(Self.names.count >= 30)
  }

  @Test(arguments: names)
  func diagnostic(_ name: String) throws {
    let url = Self.directory.appendingPathComponent(name + ".metal")
    let source = try String(contentsOf: url, encoding: .utf8)
    let golden = Self.directory.appendingPathComponent(name + ".txt")
    var message = "(no error)"
    do {
      // A function that does not compile is listed, with its diagnostic; the file still loads.
      let library = try ShaderLibrary(source: source, path: name + ".metal", url: url)
      if let d = library.unavailable.first?.diagnostic {
        message = d.description
        #expect(d.line > 0, "\(name): the diagnostic has a line")
        if !library.functions.isEmpty { message += "\n(loaded: \(library.functions.map(\.name).joined(separator: ", ")))" }
      }
      // Warnings follow: a program that compiles with a warning is a golden of its own (warning-*.metal).
      for w in library.warnings {
        message = (message == "(no error)" ? "" : message + "\n") + w.description
        #expect(w.line > 0 && w.severity == .warning, "\(name): the warning has a line")
      }
    } catch let d as MetalDiagnostic {
      message = d.description
      #expect(d.line > 0, "\(name): the diagnostic has a line")
    }
    if ProcessInfo.processInfo.environment["FXC_UPDATE_GOLDEN"] == "1" {
      try (message + "\n").write(to: golden, atomically: true, encoding: .utf8)
      return
    }
    let expected = try String(contentsOf: golden, encoding: .utf8)
    #expect(message + "\n" == expected, "\(name)")
  }
}
