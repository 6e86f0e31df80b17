import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One input file of a batch: where it is, and where it sits in the tree it
/// came from. The output mirrors `relativePath` under `--out-dir`, and
/// `--shard` hashes it.
struct BatchInput: Equatable {
  /// The path to read, as given or as found under a directory.
  var path: String
  /// The path relative to its input root: `a/b.jpg` for `photos/a/b.jpg`
  /// found by walking `photos`, `b.jpg` for a file named on the command line.
  var relativePath: String
}

/// Turns the command line's inputs into a list of files, in a deterministic
/// order: arguments in the order given, each directory and glob sorted by name.
///
/// - A directory gives the PNG and JPEG files in it (by extension, any case);
///   with `recursive`, also those in its subdirectories, at any depth. Hidden
///   files and directories (and so the atomic writer's temporary files) are
///   left out, and symbolic links to directories are not followed. A
///   directory named like an image (`holiday.jpg/`) is a directory.
/// - A path that does not exist but has `*`, `?` or `[` in it is a glob (quote
///   it so the shell leaves it alone); `**` matches any number of directories.
///   Only files match; the fixed directories before the first wildcard are the
///   root, so `'photos/**/*.jpg'` mirrors the tree under `photos`.
/// - Anything else is a file, even when it is missing or not an image: the
///   batch reports it.
/// - A manifest lists one path per line (blank lines are skipped); `-` reads
///   it from standard input. A relative path without `..` keeps its
///   directories in the output; any other path keeps only its name.
///
/// The same file listed twice (by the same spelling) is processed once.
struct InputListing {
  var recursive: Bool
  /// A directory a walk leaves out (the output directory, when it lies inside
  /// an input directory: its outputs must not become the next run's inputs).
  var skipping: String? = nil

  /// Extensions a directory walk picks up.
  static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

  func list(_ arguments: [String], manifest: String?) throws -> [BatchInput] {
    var found: [BatchInput] = []
    for argument in arguments { try expand(argument, into: &found) }
    if let manifest { found += try Self.readManifest(manifest) }
    var seen = Set<String>()
    return found.filter { seen.insert(Self.normalized($0.path)).inserted }
  }

  private func expand(_ argument: String, into found: inout [BatchInput]) throws {
    switch FileKind.of(argument) {
    case .directory:
      try walk(argument, relative: "", into: &found, descend: true)
    case .missing where Self.isGlob(argument):
      let matches = try Self.glob(argument)
      if matches.isEmpty { throw CommandFailure(description: "error: no file matches '\(argument)'", status: 2) }
      found += matches
    default:
      found.append(BatchInput(path: argument, relativePath: Self.name(of: argument)))
    }
  }

  /// Appends the images under `directory`; `relative` is its path from the root.
  private func walk(_ directory: String, relative: String, into found: inout [BatchInput], descend: Bool) throws {
    let entries: [String]
    do {
      entries = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    } catch {
      throw CommandFailure(description: "error: cannot list the directory \(directory): \(error.localizedDescription)")
    }
    for entry in entries where !entry.hasPrefix(".") {
      let path = Self.join(directory, entry), rel = relative.isEmpty ? entry : relative + "/" + entry
      switch FileKind.of(path, followLinks: false) {
      case .directory:
        if recursive && descend && !isSkipped(path) { try walk(path, relative: rel, into: &found, descend: true) }
      case .file where Self.isImageName(entry), .special where Self.isImageName(entry):
        found.append(BatchInput(path: path, relativePath: rel))
      default:
        break
      }
    }
  }

  /// Whether `directory` is ``skipping`` (compared after resolving `.`, `..` and links).
  func isSkipped(_ directory: String) -> Bool {
    guard let skipping else { return false }
    func resolved(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path }
    return resolved(directory) == resolved(skipping)
  }

  static func isImageName(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: ".") else { return false }
    return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  // MARK: Globs

  static func isGlob(_ text: String) -> Bool { text.contains(where: { "*?[".contains($0) }) }

  /// The files matching `pattern`, sorted; the fixed leading directories are the root.
  static func glob(_ pattern: String) throws -> [BatchInput] {
    let absolute = pattern.hasPrefix("/")
    let components = pattern.split(separator: "/").map(String.init)
    let fixed = components.prefix { !isGlob($0) }
    let root = (absolute ? "/" : "") + fixed.joined(separator: "/")
    var matches: [BatchInput] = []
    match(Array(components.dropFirst(fixed.count)), in: root.isEmpty ? "." : root, relative: "", into: &matches)
    let prefix = root.isEmpty ? "" : (root == "/" ? "/" : root + "/")
    return matches.map { BatchInput(path: prefix + $0.path, relativePath: $0.relativePath) }
  }

  /// Matches the remaining pattern components below `directory`; paths are relative to the root.
  private static func match(_ rest: [String], in directory: String, relative: String, into matches: inout [BatchInput]) {
    guard let head = rest.first else { return }
    let entries = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    let tail = Array(rest.dropFirst())
    if head == "**" {
      // Zero directories, then each visible subdirectory in turn.
      match(tail, in: directory, relative: relative, into: &matches)
      for entry in entries where !entry.hasPrefix(".") {
        let path = join(directory, entry)
        if FileKind.of(path, followLinks: false) == .directory {
          match(rest, in: path, relative: relative.isEmpty ? entry : relative + "/" + entry, into: &matches)
        }
      }
      return
    }
    for entry in entries where fnmatch(head, entry, FNM_PERIOD) == 0 {
      let path = join(directory, entry), rel = relative.isEmpty ? entry : relative + "/" + entry
      let kind = FileKind.of(path)
      if tail.isEmpty {
        if kind == .file || kind == .special { matches.append(BatchInput(path: rel, relativePath: rel)) }
      } else if kind == .directory {
        match(tail, in: path, relative: rel, into: &matches)
      }
    }
  }

  // MARK: Manifests

  static func readManifest(_ source: String) throws -> [BatchInput] {
    let data: Data
    if source == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      guard let read = FileManager.default.contents(atPath: source) else {
        throw CommandFailure(description: "error: cannot read the manifest \(source)")
      }
      data = read
    }
    return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap {
      let line = String($0.hasSuffix("\r") ? $0.dropLast() : $0)
      guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
      let clean = normalized(line)
      let keepsTree = !line.hasPrefix("/") && !clean.split(separator: "/").contains("..")
      return BatchInput(path: line, relativePath: keepsTree ? clean : name(of: line))
    }
  }

  // MARK: Paths

  /// `a/./b//c` → `a/b/c`, without touching the file system (`..` is kept).
  static func normalized(_ path: String) -> String {
    let parts = path.split(separator: "/").filter { $0 != "." }
    let joined = parts.joined(separator: "/")
    if path.hasPrefix("/") { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }

  static func name(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  static func join(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }
}

/// What is at a path.
enum FileKind: Equatable {
  /// `special`: a FIFO, device or socket — listed by a walk when named like
  /// an image, so that reading it reports why it is not one.
  case missing, file, directory, special, other

  static func of(_ path: String, followLinks: Bool = true) -> FileKind {
    var info = stat()
    var status = followLinks ? stat(path, &info) : lstat(path, &info)
    // A link is judged by what it points to, except that a walk does not enter linked directories.
    if status == 0, !followLinks, info.st_mode & S_IFMT == S_IFLNK {
      status = stat(path, &info)
      if status == 0 && info.st_mode & S_IFMT == S_IFDIR { return .other }
    }
    guard status == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .file
    case S_IFDIR: return .directory
    case S_IFIFO, S_IFCHR, S_IFBLK, S_IFSOCK: return .special
    default: return .other
    }
  }
}
