// The input-listing fuzz target (issue 39): fuzz bytes become a directory
// tree of arbitrary names (control bytes, backslashes, bytes that are not
// UTF-8), a glob and a manifest, which `InputListing` (the code `fxc run`
// lists its inputs with) walks. It must not crash or read outside its
// buffers (run under AddressSanitizer by scripts/fuzz.sh), may only throw
// CommandFailure, and what it lists must hold: every name found in the
// tree exists, relative paths never climb out (no `..`, not absolute), no
// file is listed twice, and the display form of a name found in the tree
// holds no line break. libFuzzer's `main` drives it; compiled with -parse-as-library.
import FX
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInputs(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let records = UnsafeBufferPointer(start: data, count: count).split(separator: 0, omittingEmptySubsequences: false)
  var template = Array("/tmp/fxc-fuzz-inputs-XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { return 0 }
  let root = String(cString: made)
  defer { removeTree(root) }
  let glob = records.first.map { Array($0) } ?? []
  let manifest = records.count > 1 ? Array(records[1]) : []
  for record in records.dropFirst(2).prefix(64) { create(Array(record), under: root) }
  let manifestPath = root + "/.manifest"
  if !manifest.isEmpty { write(manifest, to: manifestPath) }
  var arguments = [root]
  if !glob.isEmpty { arguments.append(root + "/" + PathBytes.string(fromBytes: glob.prefix(80))) }
  let listing = InputListing(recursive: count % 2 == 0)
  let found: [BatchInput]
  do {
    found = try listing.list(arguments, manifest: manifest.isEmpty ? nil : manifestPath)
  } catch is CommandFailure {
    return 0
  } catch {
    fatalError("not a CommandFailure: \(type(of: error)): \(error)")
  }
  var seen = Set<[UInt8]>()
  for input in found {
    let bytes = PathBytes.bytes(of: input.path)
    precondition(seen.insert(PathBytes.bytes(of: InputListing.normalized(input.path))).inserted, "listed twice: \(input.path)")
    let components = InputListing.components(input.relativePath)
    precondition(!components.contains(".."), "a relative path climbs out: \(input.relativePath)")
    precondition(!InputListing.isAbsolute(input.relativePath), "an absolute relative path: \(input.relativePath)")
    // A manifest's line, or the second argument when it is no glob, is listed as given (missing or not: the batch
    // reports it); the rest was found in the tree.
    guard bytes.starts(with: Array(root.utf8)), arguments.count < 2 || input.path != arguments[1] else { continue }
    var info = stat()
    precondition(PathBytes.withCString(input.path) { lstat($0, &info) } == 0, "listed but missing: \(PathBytes.display(input.path))")
    precondition(!PathBytes.display(input.path).contains("\n"), "a line break in a listed name's display form")
  }
  return 0
}

/// Makes the file `record` names below `root` (components split at `/`,
/// `.` and `..` left out, at most 3 deep), its directories first.
func create(_ record: [UInt8], under root: String) {
  let parts = record.split(separator: UInt8(ascii: "/")).map { Array($0.prefix(60)) }
    .filter { $0 != Array(".".utf8) && $0 != Array("..".utf8) }.prefix(3)
  guard !parts.isEmpty else { return }
  var path = Array(root.utf8)
  for (k, part) in parts.enumerated() {
    path += [UInt8(ascii: "/")] + part
    let c = path.map { CChar(bitPattern: $0) } + [0]
    if k < parts.count - 1 {
      _ = mkdir(c, 0o755)
    } else {
      let fd = open(c, O_WRONLY | O_CREAT | O_EXCL, 0o644)
      if fd >= 0 {
        _ = Glibc.write(fd, "x", 1)
        close(fd)
      }
    }
  }
}

func write(_ bytes: [UInt8], to path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  guard fd >= 0 else { return }
  _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
  close(fd)
}

/// Removes `path` and everything below it, names as bytes.
func removeTree(_ path: String) {
  var info = stat()
  guard PathBytes.withCString(path, { lstat($0, &info) }) == 0 else { return }
  if info.st_mode & S_IFMT == S_IFDIR {
    for name in (try? Directory.names(path)) ?? [] { removeTree(path + "/" + name) }
    _ = PathBytes.withCString(path) { rmdir($0) }
  } else {
    _ = PathBytes.withCString(path) { unlink($0) }
  }
}
