#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The POSIX file operations behind ``ImageFile``: whole-file reads and
/// atomic replacement. Failures are ``ImageFileFailure``s in plain words.
/// Paths are ``PathBytes`` strings: every call is given their bytes.
public enum FileSystem {
  /// The whole contents of the image file at `path`. Reads until end of file
  /// rather than trusting the size `fstat` reports (0 for /proc files).
  ///
  /// Only a regular file is read — a FIFO, device or socket is refused
  /// before any read (opened without blocking, so a FIFO with no writer does
  /// not hang), so `/dev/zero` named as an input cannot fill memory — and the
  /// first bytes must be an image signature fxc knows before the rest is read, so a
  /// huge file that is not an image (a sparse 30 GB `a.png`) is refused at
  /// once. A file of more than `maxBytes` is refused from its size, and the
  /// memory for it is allocated failably: no read traps.
  static func readAll(_ path: String, maxBytes: Int) throws -> MallocBytes {
    let (fd, size) = try openRegularFile(path)
    defer { close(fd) }
    let buffer = try MallocBytes(capacity: 1 << 16)
    var count = try readSome(fd, into: buffer, from: 0, upTo: 16)
    guard count == 0 || ImageFileFormat(sniffing: UnsafeRawBufferPointer(start: buffer.pointer, count: count)) != nil
    else { throw ImageFileFailure(ImageFileFormat.unsupported) }
    if size > maxBytes { throw tooLarge(size, maxBytes) }
    // One byte more than the size, so that one read normally also sees the end.
    if size >= buffer.capacity { try buffer.grow(to: size + 1) }
    while true {
      if count == buffer.capacity {
        guard count <= maxBytes else { throw tooLarge(count, maxBytes) }
        try buffer.grow(to: 2 * count)
      }
      let n = try readSome(fd, into: buffer, from: count, upTo: buffer.capacity)
      if n == 0 { break }
      count += n
    }
    if count > maxBytes { throw tooLarge(count, maxBytes) }
    buffer.count = count
    return buffer
  }

  /// Opens `path` for reading as ``readAll(_:maxBytes:)`` does: a regular
  /// file only (a FIFO is opened without blocking and refused). Returns the
  /// descriptor, for the caller to close, and the size `fstat` reports (0
  /// when it reports none).
  static func openRegularFile(_ path: String) throws -> (fd: Int32, size: Int) {
    let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
    guard fd >= 0 else { throw ImageFileFailure("cannot open the file: \(describe(errno))") }
    var info = stat()
    let known = fstat(fd, &info) == 0
    if known && info.st_mode & S_IFMT == S_IFDIR {
      close(fd)
      throw ImageFileFailure("is a directory, not an image file")
    }
    if known && info.st_mode & S_IFMT != S_IFREG {
      close(fd)
      throw ImageFileFailure("is not a regular file (\(kind(info.st_mode))); only files are read as images")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return (fd, known && info.st_size > 0 ? Int(info.st_size) : 0)
  }

  private static func tooLarge(_ bytes: Int, _ maxBytes: Int) -> ImageFileFailure {
    ImageFileFailure(
      "the file is too large (\(bytes >> 20) MiB): no image within the pixel limit needs more than \(maxBytes >> 20) MiB")
  }

  /// One `read` into `buffer[offset..<end]` (retried on EINTR); 0 at end of file.
  private static func readSome(_ fd: Int32, into buffer: MallocBytes, from offset: Int, upTo end: Int) throws -> Int {
    while true {
      let n = read(fd, buffer.pointer + offset, end - offset)
      if n >= 0 { return n }
      if errno != EINTR { throw ImageFileFailure("cannot read the file: \(describe(errno))") }
    }
  }

  /// What a file that is not regular is, for messages.
  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    default: "not a regular file"
    }
  }

  /// Writes `bytes` to a new temporary file next to `path`, flushes it and
  /// renames it over `path`. On any failure the temporary file is removed and
  /// `path` is untouched. A new file gets mode 0644; a replaced regular file
  /// keeps its mode. `beforeRename` lets tests fail at the last moment.
  static func writeAtomically(
    _ bytes: UnsafeRawBufferPointer, to path: String, replacing: Bool = true, beforeRename: () throws -> Void = {}
  ) throws {
    let file = try AtomicFile(path)
    var done = 0
    while done < bytes.count {
      let n = write(file.fd, bytes.baseAddress! + done, bytes.count - done)
      if n < 0 {
        if errno == EINTR { continue }
        throw ImageFileFailure("cannot write: \(describe(errno))")
      }
      done += n
    }
    try file.commit(replacing: replacing, beforeRename: beforeRename)
  }

  /// The name of a temporary file that will become `name`, for `mkstemp`:
  /// `.NAME.tmp-PID-XXXXXX`, the writing process's id in it, so that a run
  /// that finds it can tell whether its owner is still alive
  /// (``temporaryOwnerIsGone(_:)``) and leave another live run's file alone.
  public static func temporaryName(for name: String) -> String { ".\(name).tmp-\(getpid())-XXXXXX" }

  /// For a temporary file's name (the part after `.NAME.tmp-`): false while
  /// the process that is writing it runs, true when it has ended or the name
  /// carries no owner (an older fxc's `.NAME.tmp-XXXXXX`).
  public static func temporaryOwnerIsGone(_ suffix: [UInt8]) -> Bool {
    guard let dash = suffix.firstIndex(of: UInt8(ascii: "-")), dash > 0, suffix.count - dash == 7,
      suffix[..<dash].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let pid = Int32(String(decoding: suffix[..<dash], as: UTF8.self))
    else { return true }
    if pid == getpid() { return false }
    return kill(pid, 0) != 0 && errno == ESRCH
  }

  /// The directory part (`.` when there is none) and the last component,
  /// split at the last `/` code point (a combining mark after it must not hide it).
  static func split(_ path: String) -> (directory: String, name: String) {
    let scalars = path.unicodeScalars
    guard let slash = scalars.lastIndex(of: "/") else { return (".", path) }
    let directory = String(scalars[..<slash])
    return (directory.isEmpty ? "/" : directory, String(scalars[scalars.index(after: slash)...]))
  }

  static func cannotCreate(in directory: String, errno e: Int32) -> String {
    switch e {
    case ENOENT:
      // procfs and the like: the directory is there, but no file can be made in it.
      isDirectory(directory)
        ? "cannot write: files cannot be created in the directory \"\(directory)\""
        : "cannot write: the directory \"\(directory)\" does not exist"
    case ENOTDIR: "cannot write: \"\(directory)\" is not a directory"
    case EACCES, EPERM: "cannot write: permission denied in the directory \"\(directory)\""
    case EROFS: "cannot write: the directory \"\(directory)\" is on a read-only file system"
    default: "cannot write: cannot create a file in \"\(directory)\": \(describe(e))"
    }
  }

  static func isDirectory(_ path: String) -> Bool {
    var s = stat()
    return PathBytes.withCString(path) { stat($0, &s) } == 0 && (s.st_mode & S_IFMT) == S_IFDIR
  }

  /// An errno in plain lower-case words.
  static func describe(_ e: Int32) -> String {
    switch e {
    case ENOENT: "no such file or directory"
    case EACCES, EPERM: "permission denied"
    case EISDIR: "is a directory"
    case ENOTDIR: "a component of the path is not a directory"
    case ENOSPC: "no space left on device"
    case EROFS: "read-only file system"
    case EIO: "input/output error"
    default: String(cString: strerror(e)).lowercased()
    }
  }
}

/// A file written in place of `path` atomically: the bytes go to a new
/// temporary file next to it (``fd``), which ``commit(beforeRename:)``
/// flushes and renames over `path`. Until then `path` is untouched, and a
/// file never committed is removed when this object goes away: a failure
/// anywhere leaves no partial output. A new file gets mode 0644; a replaced
/// regular file keeps its mode.
final class AtomicFile {
  let path: String
  /// The temporary file, open for writing.
  let fd: Int32
  private var temporary: [CChar]
  private var isOpen = true
  private var committed = false

  /// - Throws: ``ImageFileFailure`` naming why no file can be made there.
  init(_ path: String) throws {
    let (directory, name) = FileSystem.split(path)
    guard !name.isEmpty else { throw ImageFileFailure("cannot write: the path names a directory") }
    // The temporary file's name stays bytes: mkstemp fills in its X's.
    temporary = PathBytes.bytes(of: "\(directory)/\(FileSystem.temporaryName(for: name))").map { CChar(bitPattern: $0) } + [0]
    fd = temporary.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw ImageFileFailure(FileSystem.cannotCreate(in: directory, errno: errno)) }
    self.path = path
    var existing = stat()
    let replacing = PathBytes.withCString(path) { stat($0, &existing) } == 0 && existing.st_mode & S_IFMT == S_IFREG
    _ = fchmod(fd, replacing ? existing.st_mode & 0o7777 : 0o644)
  }

  /// Flushes the temporary file to disk and renames it over `path`; with
  /// `replacing: false`, links it at `path` only if no file is there (a
  /// hard link fails atomically on a taken name) and removes the temporary.
  /// A file system without hard links (EPERM, ENOTSUP) gets the rename after
  /// a check that `path` is free, which two racing processes may both pass.
  /// - Throws: ``ImageFileFailure`` when flushing or renaming fails (the
  ///   temporary file is then removed; `destinationExists` is set when
  ///   `replacing` is false and a file is at `path`), or what `beforeRename` throws.
  func commit(replacing: Bool = true, beforeRename: () throws -> Void = {}) throws {
    guard fsync(fd) == 0 else { throw ImageFileFailure("cannot write: \(FileSystem.describe(errno))") }
    isOpen = false
    guard close(fd) == 0 else { throw ImageFileFailure("cannot write: \(FileSystem.describe(errno))") }
    try beforeRename()
    if !replacing {
      let exists = ImageFileFailure("cannot write: a file exists at this path", destinationExists: true)
      if PathBytes.withCString(path, { link(temporary, $0) }) == 0 {
        committed = true
        unlink(temporary)
        return
      }
      let e = errno
      guard e == EPERM || e == ENOTSUP || e == EOPNOTSUPP else {
        throw e == EEXIST ? exists : ImageFileFailure("cannot write: could not link the new file into place: \(FileSystem.describe(e))")
      }
      var info = stat()
      if PathBytes.withCString(path, { lstat($0, &info) }) == 0 { throw exists }
    }
    guard PathBytes.withCString(path, { rename(temporary, $0) }) == 0 else {
      let e = errno
      throw ImageFileFailure(
        e == EISDIR || e == ENOTEMPTY || e == EEXIST
          ? "cannot write: a directory exists at this path"
          : "cannot write: could not move the new file into place: \(FileSystem.describe(e))")
    }
    committed = true
  }

  deinit {
    if isOpen { close(fd) }
    if !committed { unlink(temporary) }
  }
}
