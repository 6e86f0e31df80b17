import FX
import Foundation

/// `fxc effects`: the catalogue with parameters, defaults, ranges and units; with
/// `--sheet OUT.png`, a contact sheet of every effect applied to a photo.
struct EffectsCommand: Command {
  static let spec = CommandSpec(
    name: "effects", abstract: "list the effects with their parameters, defaults and ranges",
    usage: ["[NAME]...", "--shaders FILE.metal [NAME]...", "--sheet OUT.png [--image PHOTO] [--cell 64…1024] [--columns 1…64] [--overwrite]"],
    discussion: """
      Lists every effect with its parameters: default, accepted values (numbers with their range and \
      unit, colors #rrggbb[aa], choices a|b|c) and what it does; with names, only those effects, \
      each with an example chain. With --sheet, renders every effect \
      (its example chain, JIT-compiled) on a photo into a labelled grid. Transitions go from the \
      photo to a blue-toned mirror image of it.
      """,
    options: [
      .positional("NAME", help: "effects to describe (default: all)"),
      .repeatable(
        "--shaders", value: "FILE.metal",
        help:
          "list the [[ stitchable ]] functions of a Metal file (a directory, or the option repeated: its .metal files linked) instead: kind, Metal signature, parameters as chains give them"
      ),
      .option("--sheet", value: "OUT.png", help: "write a contact sheet of every effect instead of the list"),
      .option("--image", value: "PHOTO", help: "the photo of the sheet", default: "the bundled examples/rocket.jpg"),
      .option("--cell", value: "64…1024", help: "width of a cell in pixels", default: "200"),
      .option("--columns", value: "1…64", help: "cells across", default: "6"),
      .flag("--overwrite", help: "replace an existing sheet"),
    ])

  var sheet: String?
  var shaders: String?
  var shaderURLs: [URL] = []
  var image: String?
  var cellWidth: Int
  var columns: Int
  var overwrite: Bool
  /// The effects to describe; empty for all.
  var names: [String]

  init(_ argv: [String]) throws {
    var args = try CommandArguments(argv, Self.spec)
    sheet = try args.option("--sheet")
    let shaderPaths = try args.options("--shaders")
    shaders = shaderPaths.isEmpty ? nil : shaderPaths.joined(separator: ", ")
    shaderURLs = shaderPaths.isEmpty ? [] : try shaderFiles(shaderPaths)
    if shaders != nil, sheet != nil { throw UsageError("--shaders lists a Metal file's functions; --sheet renders the catalogue: give one") }
    image = try args.option("--image")
    cellWidth = try args.intOption("--cell", range: 64...1024) ?? 200
    columns = try args.intOption("--columns", range: 1...64) ?? 6
    overwrite = args.flag("--overwrite")
    names = try args.remaining()
    if sheet != nil, !names.isEmpty { throw UsageError("--sheet renders every effect; it takes no names (got \(names.joined(separator: " ")))") }
    if sheet == nil, image != nil || overwrite {
      throw UsageError("--image and --overwrite go with --sheet OUT.png")
    }
  }

  func execute() throws {
    if let shaders {
      let library = try ShaderLibrary(urls: shaderURLs)
      for failing in library.unavailable { FileHandle.standardError.write(Data("\(failing.diagnostic)\n".utf8)) }
      for warning in library.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
      if library.functions.isEmpty, !library.unavailable.isEmpty {
        throw CommandFailure(description: "error: \(shaders): none of its \(library.unavailable.count) stitchable functions compiles")
      }
      if !names.isEmpty { return print(try described(library.functions.map(\.effectSpec), run: "fxc run --shaders \(shaders)")) }
      print(library.functions.isEmpty ? "\(shaders): no [[ stitchable ]] functions" : effectsListing(library.functions.map(\.effectSpec)))
      if !library.unavailable.isEmpty {
        let names = library.unavailable.map(\.name).joined(separator: ", ")
        print(
          "\(shaders): \(library.functions.count) of \(library.functions.count + library.unavailable.count) stitchable functions compile; not \(names) (errors above)"
        )
      }
      return
    }
    guard let sheet else {
      print(names.isEmpty ? effectsListing() : try described(Catalogue.effects))
      return
    }
    if !overwrite && FileKind.of(sheet) != .missing {
      throw CommandFailure(description: "error: \(sheet) exists (use --overwrite to replace it)")
    }
    let path = image ?? bundledPhoto()
    guard FileKind.of(path) != .missing else {
      throw CommandFailure(description: "error: \(path) not found; give a photo with --image FILE")
    }
    // Upright, as every viewer shows the photo (its EXIF orientation applied).
    let photo = try Picture(contentsOf: path).image
    let renderer = ContactSheet(photo: photo, cellWidth: cellWidth, columns: columns)
    let result = try renderer.render(Catalogue.effects)
    try ImageFile.write(result, to: sheet, format: .png, layout: .rgb)
    say("\(sheet): \(Catalogue.effects.count) effects on \(path), \(result.width)×\(result.height)")
  }
}

extension EffectsCommand {
  /// The listing of the effects ``names`` names among `effects`, each followed by its example chain (run by `run`).
  /// - Throws: ``CommandFailure`` for a name that is not among them, with the nearest name.
  func described(_ effects: [EffectSpec], run: String = "fxc run") throws -> String {
    let chosen = try names.map { name in
      guard let spec = effects.first(where: { $0.name == name }) else {
        let hint = ChainSyntax.suggestion(for: name, among: effects.map(\.name)).map { " — did you mean '\($0)'?" } ?? ""
        throw CommandFailure(description: "error: no effect named '\(name)'\(hint) (see 'fxc effects')")
      }
      return spec
    }
    let listing = effectsListing(chosen).components(separatedBy: "\n\n")
    return zip(listing, chosen).map { text, spec in
      text.trimmingCharacters(in: .newlines) + "\n  example: \(run) -c '\(spec.example)' photo.jpg -o out.png"
    }.joined(separator: "\n\n")
  }
}

/// Parses a chain and resolves it against the catalogue (and a `--shaders`
/// file's functions), checking its calls and printing their warnings on standard error.
func resolveChain(_ text: String, registry: EffectRegistry = .builtIn) throws -> Effect {
  let resolved = try ChainSyntax.parse(text).resolve(registry: registry)
  try checkChainCalls(resolved)
  return resolved.effect
}
