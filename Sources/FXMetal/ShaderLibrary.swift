import FXDSL
import FXIR
import Foundation

/// The `[[ stitchable ]]` functions of a Metal file, loaded as SwiftUI's
/// `ShaderLibrary` loads them, so code reads the same on both sides:
///
///     let shaders = try ShaderLibrary(url: URL(fileURLWithPath: "Ripple.metal"))
///     let ripple = try shaders.ripple(.float(12), .size)   // a Shader
///     let pipeline = try Pipeline(ripple.effect | vignette())
///
/// Arguments bind positionally, as `Shader.Argument`s do (``ShaderArgument``).
/// By default everything is computed in fp32: `half` is float here, so
/// results can differ from an Apple GPU by half-precision rounding; with
/// ``HalfPrecision/metal`` every `half` result is rounded to fp16 as the GPU
/// rounds it. `layer.sample(p)` reads bilinearly with clamp-to-edge outside
/// the image (DESIGN §3).
@dynamicMemberLookup
public final class ShaderLibrary: @unchecked Sendable {
  /// The stitchable functions that compile, in source order.
  public let functions: [ShaderFunction]
  /// The stitchable functions that do not (an unsupported construct, a
  /// signature SwiftUI does not call, an error in the body), each with its
  /// diagnostic, in source order. Calling one throws its diagnostic.
  public let unavailable: [(name: String, diagnostic: MetalDiagnostic)]
  /// The path of the main file, as given.
  public let path: String
  /// Warnings of the functions that compile, lowered with default arguments
  /// (zeros, empty arrays): each loop that may be cut off at its iteration
  /// limit, `file.metal:line:col: warning: …`. A loop whose bound is an
  /// argument warns only when bound to a uniform (``Shader/warnings``).
  public let warnings: [MetalDiagnostic]

  /// Loads, preprocesses, parses and checks the file at `url`.
  ///
  /// - Throws: ``MetalDiagnostic`` (`file.metal:line:col: error: …`) for a
  ///   file that cannot be read, a syntax error, or an error at file scope
  ///   (a struct or constant); an `#include "…"` is read relative to the
  ///   including file. A function that does not compile does not fail the
  ///   file: it is listed in ``unavailable``.
  ///   `half`: how `half` arithmetic is computed (``HalfPrecision``; fp32 by default).
  public convenience init(url: URL, half: HalfPrecision = .float) throws {
    let text: String
    do { text = try String(contentsOf: url, encoding: .utf8) } catch {
      throw MetalDiagnostic(
        file: url.relativePath, line: 0, column: 0, message: "cannot read the file: \(error.localizedDescription)", sourceLine: "")
    }
    try self.init(source: text, path: url.relativePath, url: url, half: half)
  }

  /// Loads Metal source text; `path` names it in diagnostics, `url` (if any)
  /// is where local `#include`s are found. Throws as ``init(url:half:)``.
  public convenience init(source: String, path: String = "shader.metal", url: URL? = nil, half: HalfPrecision = .float) throws {
    try self.init(sources: [(source, path, url)], half: half)
  }

  /// Loads several `.metal` files as one library, as Xcode builds the
  /// default library of a target from all of its `.metal` files: a function
  /// one file declares (in a shared header, say) and another defines is
  /// linked (``MetalProgram/init(unit:files:half:linked:)``); each file's
  /// macros are its own. ``path`` lists the files.
  ///
  /// - Throws: as ``init(url:half:)``, for any file; ``MetalDiagnostic`` when
  ///   two files define stitchable functions of one name (Xcode's linker refuses them too).
  public convenience init(urls: [URL], half: HalfPrecision = .float) throws {
    let sources = try urls.map { url -> (String, String, URL?) in
      do { return (try String(contentsOf: url, encoding: .utf8), url.relativePath, url) } catch {
        throw MetalDiagnostic(
          file: url.relativePath, line: 0, column: 0, message: "cannot read the file: \(error.localizedDescription)", sourceLine: "")
      }
    }
    try self.init(sources: sources, half: half)
  }

  private init(sources: [(text: String, path: String, url: URL?)], half: HalfPrecision) throws {
    path = sources.map(\.path).joined(separator: ", ")
    let files = SourceFiles()
    do {
      let units = try sources.map { try MetalProgram.parse($0.text, path: $0.path, url: $0.url, files: files) }
      var working: [ShaderFunction] = []
      var failing: [(name: String, diagnostic: MetalDiagnostic)] = []
      var warnings: [MetalDiagnostic] = []
      var seen: [String: SourceLocation] = [:]
      for (k, unit) in units.enumerated() {
        let others = units.indices.filter { $0 != k }.map { units[$0] }
        let program = try MetalProgram(unit: unit, files: files, half: half, linked: others)
        for syntax in unit.functions where syntax.isStitchable && !syntax.body.isEmpty {
          if let earlier = seen[syntax.name] {
            let (first, again) = (MetalError("", at: earlier).diagnostic(files), MetalError("", at: syntax.location).diagnostic(files))
            if (first.file, first.line) == (again.file, again.line) { continue }  // one header included by two files
            throw MetalError(
              "stitchable function '\(syntax.name)' is defined twice (first at \(first.file):\(first.line))", at: syntax.location)
          }
          seen[syntax.name] = syntax.location
          do {
            guard let f = try ShaderFunction.classify(syntax, in: program) else { continue }
            for w in try Self.check(f) where !warnings.contains(w) { warnings.append(w) }
            working.append(f)
          } catch let e as MetalError {
            failing.append((syntax.name, e.diagnostic(files)))
          }
        }
      }
      functions = working
      unavailable = failing
      self.warnings = warnings
    } catch let e as MetalError {
      throw e.diagnostic(files)
    }
  }

  /// Lowers every function once with default arguments, so that errors in a
  /// body surface when the library is loaded, not when an effect is used.
  /// Returns the warnings that translator gives.
  private static func check(_ f: ShaderFunction) throws -> [MetalDiagnostic] {
    let (_, warnings) = try ShaderBinding(function: f, arguments: f.parameters.map(\.defaultArgument)).effectAndWarnings()
    return warnings.map { $0.diagnostic(f.program.files, severity: .warning) }
  }

  /// The function called `name`.
  ///
  /// - Throws: the function's diagnostic when it is ``unavailable``;
  ///   ``MetalDiagnostic`` naming the stitchable functions when there is none called `name`.
  public func function(named name: String) throws -> ShaderFunction {
    if let f = functions.first(where: { $0.name == name }) { return f }
    if let failing = unavailable.first(where: { $0.name == name }) { throw failing.diagnostic }
    let names = functions.map(\.name)
    let hint = suggestion(for: name, among: names).map { "; did you mean '\($0)'?" } ?? ""
    throw MetalDiagnostic(
      file: path, line: 0, column: 0,
      message: "no stitchable function '\(name)'\(hint) (functions: \(names.joined(separator: ", ")))", sourceLine: "")
  }

  /// `shaders.ripple`: the function called `ripple`, to call with arguments.
  public subscript(dynamicMember name: String) -> ShaderCall { ShaderCall(library: self, name: name) }
}

/// `shaders.name(arguments…)`: looks the function up when called, so an
/// unknown name is a thrown ``MetalDiagnostic``, not a trap.
@dynamicCallable
public struct ShaderCall {
  let library: ShaderLibrary
  let name: String

  /// - Throws: ``MetalDiagnostic`` for an unknown function or arguments that do not bind.
  public func dynamicallyCall(withArguments arguments: [ShaderArgument]) throws -> Shader {
    try bind(arguments)
  }

  /// The same as calling it: `shaders.ripple.bind([.float(12)])`.
  public func bind(_ arguments: [ShaderArgument]) throws -> Shader {
    try library.function(named: name).bind(arguments)
  }
}

extension ShaderParameter {
  /// The argument used to check a function when it is loaded: the
  /// signature's default where it declares one, else zeros, an empty array,
  /// the input as the image.
  var defaultArgument: ShaderArgument {
    if let lanes = defaultValue { return ShaderArgument(storage: .floats(lanes.map { Expr($0) })) }
    switch kind {
    case .float(let n): return ShaderArgument(storage: .floats(Array(repeating: Expr(Float(0)), count: n)))
    case .color: return ShaderArgument(storage: .color(Array(repeating: Expr(Float(0)), count: 4)))
    case .floatArray: return .floatArray([Float]())
    case .colorArray: return ShaderArgument(storage: .colorArray([]))
    case .image: return .image(Image.input(1))
    }
  }
}
