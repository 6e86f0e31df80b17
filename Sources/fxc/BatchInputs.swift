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
/// - A directory gives the image files in it (by extension, any case: ``imageExtensions``);
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
///
/// Names are bytes (``PathBytes``): every name a directory holds is listed,
/// UTF-8 or not, directories and globs sort by the names' bytes, and two
/// names are the same only when their bytes are (Swift's `String` equality
/// would take `é` and `e` + U+0301, two files, for one).
struct InputListing {
  var recursive: Bool
  /// A directory a walk leaves out (the output directory, when it lies inside
  /// an input directory: its outputs must not become the next run's inputs).
  var skipping: String? = nil

  /// Extensions a directory walk picks up.
  static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "webp", "gif", "heic", "heif", "avif"]

  func list(_ arguments: [String], manifest: String?) throws -> [BatchInput] {
    var found: [BatchInput] = []
    for argument in arguments { try expand(argument, into: &found) }
    if let manifest { found += try Self.readManifest(manifest) }
    var seen = Set<[UInt8]>()
    return found.filter { seen.insert(PathBytes.bytes(of: Self.normalized($0.path))).inserted }
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
      entries = try Directory.names(directory)
    } catch {
      throw CommandFailure(description: "error: cannot list the directory \(directory): \(error)")
    }
    for entry in entries where !Self.isHidden(entry) {
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

  /// Whether `directory` is ``skipping`` (the same file, however named: `.`, `..` and links do not fool it).
  func isSkipped(_ directory: String) -> Bool {
    guard let skipping, let skipped = FileIdentity(skipping) else { return false }
    return FileIdentity(directory) == skipped
  }

  /// A name starting with a `.` byte (a `.` followed by a combining mark is one Character, but still hidden).
  static func isHidden(_ name: String) -> Bool { name.utf8.first == UInt8(ascii: ".") }

  static func isImageName(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: ".") else { return false }
    return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  // MARK: Globs

  static func isGlob(_ text: String) -> Bool { text.unicodeScalars.contains { "*?[".unicodeScalars.contains($0) } }

  /// The files matching `pattern`, sorted; the fixed leading directories are the root.
  static func glob(_ pattern: String) throws -> [BatchInput] {
    let absolute = isAbsolute(pattern)
    let components = Self.components(pattern)
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
    let entries = (try? Directory.names(directory)) ?? []
    let tail = Array(rest.dropFirst())
    if head == "**" {
      // Zero directories, then each visible subdirectory in turn.
      match(tail, in: directory, relative: relative, into: &matches)
      for entry in entries where !isHidden(entry) {
        let path = join(directory, entry)
        if FileKind.of(path, followLinks: false) == .directory {
          match(rest, in: path, relative: relative.isEmpty ? entry : relative + "/" + entry, into: &matches)
        }
      }
      return
    }
    for entry in entries where nameMatches(entry, head) {
      let path = join(directory, entry), rel = relative.isEmpty ? entry : relative + "/" + entry
      let kind = FileKind.of(path)
      if tail.isEmpty {
        if kind == .file || kind == .special { matches.append(BatchInput(path: rel, relativePath: rel)) }
      } else if kind == .directory {
        match(tail, in: path, relative: rel, into: &matches)
      }
    }
  }

  /// Whether the name `entry` matches the glob component `pattern`, byte by byte (`fnmatch` in the C locale).
  private static func nameMatches(_ entry: String, _ pattern: String) -> Bool {
    PathBytes.withCString(pattern) { pattern in PathBytes.withCString(entry) { fnmatch(pattern, $0, FNM_PERIOD) } } == 0
  }

  // MARK: Manifests

  /// The lines of a manifest, split at `\n` bytes (a `\r` before it is
  /// dropped), each decoded by ``PathBytes``, so any name can be listed.
  static func readManifest(_ source: String) throws -> [BatchInput] {
    let data: Data
    if source == "-" {
      data = StandardStreams.input
    } else {
      let fd = PathBytes.withCString(source) { open($0, O_RDONLY | O_CLOEXEC) }
      let read = fd < 0 ? nil : try? FileHandle(fileDescriptor: fd, closeOnDealloc: true).readToEnd() ?? Data()
      guard let read else { throw CommandFailure(description: "error: cannot read the manifest \(source)") }
      data = read
    }
    return [UInt8](data).split(separator: UInt8(ascii: "\n")).compactMap {
      let line = PathBytes.string(fromBytes: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0, escapingControls: true)
      guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
      let clean = normalized(line)
      let keepsTree = !isAbsolute(line) && !components(clean).contains("..")
      return BatchInput(path: line, relativePath: keepsTree ? clean : name(of: line))
    }
  }

  // MARK: Paths

  /// The parts of `path` between its slashes, empty ones left out. Split by
  /// code point, not by Character: a combining mark after a `/` makes one
  /// Character of the two, and must not hide the slash.
  static func components(_ path: String) -> [String] {
    path.unicodeScalars.split(separator: "/").map(String.init)
  }

  /// `a/./b//c` → `a/b/c`, without touching the file system (`..` is kept).
  static func normalized(_ path: String) -> String {
    let joined = components(path).filter { $0 != "." }.joined(separator: "/")
    if isAbsolute(path) { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }

  /// Whether `path` starts with a `/` byte (a `/` followed by a combining mark is one Character).
  static func isAbsolute(_ path: String) -> Bool { path.utf8.first == UInt8(ascii: "/") }

  static func name(of path: String) -> String {
    // A path of slashes alone (`/`, a manifest's `////`) or ending in `..` names no file: `.`,
    // never the path itself (absolute) or `..`, which would put an output outside --out-dir
    // (both found by scripts/fuzz.sh inputs).
    guard let last = components(path).last, last != ".." else { return "." }
    return last
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
    var status = PathBytes.withCString(path) { followLinks ? stat($0, &info) : lstat($0, &info) }
    // A link is judged by what it points to, except that a walk does not enter linked directories.
    if status == 0, !followLinks, info.st_mode & S_IFMT == S_IFLNK {
      status = PathBytes.withCString(path) { stat($0, &info) }
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

/// Directory listings, by the names' bytes.
enum Directory {
  /// Why a directory cannot be listed: an errno, described in plain words.
  struct Failure: Error, CustomStringConvertible {
    var code: Int32
    var description: String { String(cString: strerror(code)).lowercased() }
  }

  /// The names in `directory` (all but `.` and `..`; hidden ones too),
  /// sorted by their bytes and decoded by ``PathBytes``: every name the
  /// directory holds, UTF-8 or not (Foundation's listing leaves out the others).
  /// Where `d_name` begins in a `dirent`.
  private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

  static func names(_ directory: String) throws(Failure) -> [String] {
    guard let stream = PathBytes.withCString(directory, { opendir($0) }) else { throw Failure(code: errno) }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else { break }
      // The name is read in place, up to its NUL: a record is only as long as
      // its name (d_reclen), so copying the struct (`entry.pointee`) reads
      // past the end of the last record in the buffer.
      let field = UnsafeRawPointer(entry) + Self.nameOffset
      let name = Array(UnsafeRawBufferPointer(start: field, count: strlen(field.assumingMemoryBound(to: CChar.self))))
      if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
    }
    if errno != 0 { throw Failure(code: errno) }
    return names.sorted { $0.lexicographicallyPrecedes($1) }.map { PathBytes.string(fromBytes: $0, escapingControls: true) }
  }
}

/// A file's device and inode: the same file, whatever path names it.
struct FileIdentity: Hashable {
  var device: UInt64
  var inode: UInt64

  init?(_ path: String) {
    var info = stat()
    guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}
