import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `--name`: how an output file is named, from its input.
///
/// `{name}` is the input's file name, `{stem}` that name without its
/// extension, `{ext}` the output's extension (the input's own, unless
/// `--format` asks for another), `{index}` the input's 1-based position in the
/// whole listing (before `--shard`), and with `--frames`, `{frame}` the frame
/// number. `{index:W}` and `{frame:W}` pad with zeros to W digits; `{frame}`
/// pads to 4 (more when there are more frames).
struct NameTemplate {
  enum Piece: Equatable {
    case text(String)
    case name, stem, ext
    case index(width: Int)
    case frame(width: Int?)
  }

  var pieces: [Piece]
  static let batchDefault = "{stem}.{ext}"
  static let framesDefault = "frame_{frame}.png"

  init(_ text: String, frames: Bool) throws {
    var pieces: [Piece] = []
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "{") {
      if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
      guard let close = rest[open...].firstIndex(of: "}") else {
        throw UsageError("'{' without '}' in the name template '\(text)'")
      }
      let field = rest[rest.index(after: open)..<close]
      let parts = field.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      let width = parts.count == 2 ? Int(parts[1]) : nil
      if parts.count == 2 && (width == nil || !(1...12).contains(width!)) {
        throw UsageError("'{\(field)}' in the name template: the width after ':' must be 1…12")
      }
      switch (String(parts[0]), parts.count) {
      case ("name", 1): pieces.append(.name)
      case ("stem", 1): pieces.append(.stem)
      case ("ext", 1): pieces.append(.ext)
      case ("index", _): pieces.append(.index(width: width ?? 1))
      case ("frame", _) where frames: pieces.append(.frame(width: width))
      default:
        let valid = "{name}, {stem}, {ext}, {index}" + (frames ? ", {frame}" : "")
        throw UsageError("unknown field '{\(field)}' in the name template '\(text)' (valid: \(valid))")
      }
      rest = rest[rest.index(after: close)...]
    }
    if !rest.isEmpty { pieces.append(.text(String(rest))) }
    if frames && !pieces.contains(where: { if case .frame = $0 { true } else { false } }) {
      throw UsageError("with --frames, the output name needs '{frame}' so that frames do not overwrite each other")
    }
    self.pieces = pieces
    if InputListing.components(text).contains("..") || InputListing.isAbsolute(text) {
      throw UsageError("the name template '\(text)' must stay inside the output directory (no '..', no leading '/')")
    }
  }

  func render(name: String, ext: String, index: Int, frame: Int = 0, frameCount: Int = 1) -> String {
    let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
    func padded(_ n: Int, _ width: Int) -> String {
      let digits = String(n)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return pieces.map { piece in
      switch piece {
      case .text(let t): t
      case .name: name
      case .stem: stem.isEmpty ? name : stem
      case .ext: ext
      case .index(let w): padded(index, w)
      case .frame(let w): padded(frame, w ?? max(4, String(frameCount).count))
      }
    }.joined()
  }
}

/// One output to produce: which input, where it goes, and how.
struct BatchJob {
  /// 1-based position in the whole listing (before sharding).
  var number: Int
  var input: BatchInput
  var destination: String
  var format: ImageFileFormat
  /// 1-based frame number and the uniform values of this frame (`--frames`).
  var frame: Int?
  var uniforms: [Param: Float] = [:]
  var disposition: Disposition = .process

  enum Disposition: Equatable {
    case process
    /// `--skip-existing` and the output is there.
    case skip
    /// Known to fail before any work: the reason.
    case fail(String)
  }
}

/// Where every output goes, decided before any work, and what may not be written.
struct BatchDestinations {
  var outDir: String?
  var output: String?
  var template: NameTemplate
  var format: ImageFileFormat?
  var overwrite: Bool
  var skipExisting: Bool

  /// The output extension for an input called `name`: its own when it names
  /// the format asked for (or none was asked for), else the format's usual
  /// one. A GIF input (a format fxc reads but does not write) becomes PNG.
  func outputExtension(for name: String) -> String {
    let own = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
    guard let format else { return ImageFileFormat(pathExtension: own) == .gif ? "png" : own }
    if ImageFileFormat(pathExtension: own) == format { return own }
    return format.preferredExtension
  }

  /// The destination of `input` (or of one of its frames) and its format.
  func destination(of input: BatchInput, number: Int, frame: Int = 0, frameCount: Int = 1) throws -> (
    String, ImageFileFormat
  ) {
    let path: String
    if let output, frame == 0 {
      path = output
    } else {
      let name = InputListing.name(of: input.relativePath)
      let rendered = template.render(
        name: name, ext: outputExtension(for: name), index: number, frame: frame, frameCount: frameCount)
      let directory = InputListing.components(input.relativePath).dropLast().joined(separator: "/")
      let base = outDir ?? "."
      path = InputListing.join(base, directory.isEmpty ? rendered : directory + "/" + rendered)
    }
    let ext = path.lastIndex(of: ".").map { String(path[path.index(after: $0)...]) } ?? ""
    let byExtension = ImageFileFormat(pathExtension: ext)
    if let format, let byExtension, byExtension != format {
      throw UsageError("the output '\(path)' has the extension .\(ext) but --format asks for \(format.rawValue)")
    }
    if let byExtension, format == nil, !byExtension.isWritable {
      throw UsageError("cannot write '\(path)': fxc reads GIF files but does not write them; use .png or .webp")
    }
    guard let chosen = format ?? byExtension else {
      throw UsageError(
        "cannot tell the output format of '\(path)' from its extension; use .png, .jpg, .tif, .webp, .heic, .avif or --format")
    }
    return (path, chosen)
  }

  /// Checks the whole batch (every shard) for two inputs that would be written
  /// to the same file; a usage error before anything is written.
  static func checkClashes(_ jobs: [BatchJob]) throws {
    // By bytes: outputs named `é` and `e` + U+0301 are two files.
    var claimed: [[UInt8]: String] = [:]
    for job in jobs {
      let key = PathBytes.bytes(of: InputListing.normalized(job.destination))
      if let other = claimed[key] {
        throw UsageError("'\(other)' and '\(job.input.path)' would both be written to \(job.destination)")
      }
      claimed[key] = job.input.path
    }
  }

  /// Decides, for this shard's jobs, which existing outputs to skip or refuse.
  /// An output that is an input of the batch (any shard, by file identity, so
  /// links and `..` do not fool it) is never written, even with `--overwrite`.
  func decide(_ jobs: inout [BatchJob], allInputs: [BatchInput]) {
    var inputIdentities: Set<FileIdentity>? = nil
    for i in jobs.indices {
      guard let existing = FileIdentity(jobs[i].destination) else { continue }
      if inputIdentities == nil { inputIdentities = Set(allInputs.compactMap { FileIdentity($0.path) }) }
      let job = jobs[i]
      if inputIdentities!.contains(existing) {
        jobs[i].disposition = .fail("\(job.input.path): refusing to overwrite the input \(job.destination)")
      } else if skipExisting {
        jobs[i].disposition = .skip
      } else if !overwrite {
        jobs[i].disposition = .fail(
          "\(job.input.path): \(job.destination) exists (use --overwrite to replace it, or --skip-existing to keep it)")
      }
    }
  }

  /// Removes the atomic writer's temporary files (`.NAME.tmp-PID-XXXXXX`) that a
  /// killed run left next to outputs of these jobs: only those whose writer
  /// has ended (``FileSystem/temporaryOwnerIsGone(_:)``), so a run beside this
  /// one keeps the file it is writing; another shard's are left alone. The
  /// names are compared as bytes (``PathBytes``), so any output name is matched.
  static func removeStaleTemporaries(of jobs: [BatchJob]) {
    var names: [[UInt8]: (directory: String, names: Set<[UInt8]>)] = [:]
    for job in jobs {
      let (directory, name) = split(job.destination)
      names[PathBytes.bytes(of: directory), default: (directory, [])].names.insert(PathBytes.bytes(of: name))
    }
    let marker = Array(".tmp-".utf8)  // then the owner's pid, a dash and mkstemp's six characters
    for (directory, mine) in names.values {
      guard let entries = try? Directory.names(directory) else { continue }
      for entry in entries where InputListing.isHidden(entry) {
        // The last ".tmp-": mkstemp's characters are letters and digits.
        let bytes = PathBytes.bytes(of: entry)
        guard bytes.count > marker.count + 7,
          let end = (1...(bytes.count - marker.count - 6)).reversed().first(where: {
            bytes[$0..<($0 + marker.count)].elementsEqual(marker)
          })
        else { continue }
        let suffix = Array(bytes[(end + marker.count)...])
        if mine.contains(Array(bytes[1..<end])), FileSystem.temporaryOwnerIsGone(suffix) {
          PathBytes.withCString(InputListing.join(directory, entry)) { _ = unlink($0) }
        }
      }
    }
  }

  /// The directory part (`.` when there is none) and the last component,
  /// split at the last `/` code point (a combining mark after it must not hide it).
  static func split(_ path: String) -> (directory: String, name: String) {
    let scalars = path.unicodeScalars
    guard let slash = scalars.lastIndex(of: "/") else { return (".", path) }
    let directory = String(scalars[..<slash])
    return (directory.isEmpty ? "/" : directory, String(scalars[scalars.index(after: slash)...]))
  }
}
