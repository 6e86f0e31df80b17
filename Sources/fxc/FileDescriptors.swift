import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`).
enum FileDescriptors {
  /// Raises the soft limit to the hard one (at most 65,536) and checks that
  /// at least `minimum` descriptors may be open; the problem in words when not.
  static func ensure(atLeast minimum: Int) -> String? {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    let wanted = min(limit.rlim_max, 65_536)
    if limit.rlim_cur < wanted {
      var raised = limit
      raised.rlim_cur = wanted
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    guard limit.rlim_cur >= minimum else {
      return "fxc needs at least \(minimum) open files, and this process may open only \(limit.rlim_cur) (ulimit -n)"
    }
    return nil
  }
}
