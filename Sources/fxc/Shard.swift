import FX

/// `--shard K/N`: this process takes the inputs whose stable hash is K modulo N.
///
/// The hash is of the input's path relative to its input root (the directory
/// walked, the fixed part of a glob, or the file's own directory), never of its
/// position in the listing: adding, removing or re-ordering other inputs does
/// not move a file to another shard, and every machine of a Slurm array or a
/// Kubernetes Indexed Job agrees on the split without talking to the others.
/// K counts from 0, as `SLURM_ARRAY_TASK_ID` (with `--array=0-N-1`) and
/// `JOB_COMPLETION_INDEX` do.
struct Shard: Equatable, CustomStringConvertible {
  var index: Int
  var count: Int

  /// Parses `K/N` with 0 ≤ K < N.
  init(_ text: String) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
      throw UsageError("option '--shard' expects K/N, like 0/4, got '\(text)'")
    }
    guard n >= 1, (0..<n).contains(k) else {
      throw UsageError("option '--shard' needs 0 ≤ K < N (K counts from 0), got '\(text)'")
    }
    index = k
    count = n
  }

  var description: String { "\(index)/\(count)" }

  /// Whether the input at `relativePath` belongs to this shard.
  func contains(_ relativePath: String) -> Bool {
    Int(Self.stableHash(relativePath) % UInt64(count)) == index
  }

  /// FNV-1a over the path's bytes (``PathBytes``: its UTF-8, unless it is
  /// a name that is not UTF-8), then the SplitMix64 finaliser so that nearby
  /// names spread evenly. Fixed forever: changing it would move files between
  /// shards of a batch half done.
  static func stableHash(_ text: String) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in PathBytes.bytes(of: text) {
      h ^= UInt64(byte)
      h = h &* 0x0000_0100_0000_01b3
    }
    h ^= h >> 30
    h = h &* 0xbf58_476d_1ce4_e5b9
    h ^= h >> 27
    h = h &* 0x94d0_49bb_1331_11eb
    h ^= h >> 31
    return h
  }
}
