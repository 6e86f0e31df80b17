// --shard K/N: N processes, each with its own K, together produce every
// output exactly once, and a file's shard does not depend on the listing.

import FX
import Foundation
import Testing

@Suite("fxc run: sharding a batch")
struct BatchShardTests {
  /// Three shard processes at once into one output directory, as a Slurm
  /// array or GNU parallel would start them.
  @Test func shardUnionIsTheWholeBatch() throws {
    let dir = try BatchScratch()
    var all: [String] = []
    for i in 1...30 {
      let name = "in/\(i % 3 == 0 ? "sub/" : "")f\(i).png"
      try dir.image(name, width: 16, height: 12, seed: UInt32(i))
      all.append("out/" + name.dropFirst(3))
    }
    let n = 3
    let running = try (0..<n).map { k in
      try BatchFXC.Running(
        ["run", "-c", "sepia", "in", "-r", "--out-dir", "out", "-j", "1", "--shard", "\(k)/\(n)", "--report", "r\(k).json"],
        in: dir.path)
    }
    let outcomes = try running.map { try $0.wait() }
    for (k, outcome) in outcomes.enumerated() {
      #expect(outcome.status == 0, "shard \(k): \(outcome)")
      #expect(outcome.stdout.contains("shard \(k)/\(n): "), "\(outcome)")
    }
    let written = try (0..<n).map { try BatchReportFile(dir.file("r\($0).json")).outputs("ok") }
    #expect(written.allSatisfy { !$0.isEmpty && $0.count < all.count }, "each shard takes a part: \(written.map(\.count))")
    #expect(written.flatMap { $0 }.sorted() == all.sorted(), "every output exactly once across the shards")
    #expect(dir.tree("out") == all.map { String($0.dropFirst(4)) }.sorted())
  }

  /// A file's shard follows its path below its root, not its place in the
  /// listing: another order and more files leave every file where it was.
  @Test func shardOfAFileIsStableUnderReordering() throws {
    let dir = try BatchScratch()
    var names = (1...12).map { "data/p\($0).png" }
    for name in names { try dir.image(name, width: 8, height: 8) }
    func members(_ listing: [String], _ k: Int) throws -> Set<String> {
      let report = "r-\(UUID().uuidString).json"
      let result = try BatchFXC.run(
        [
          "run", "-c", "sepia", "--manifest", "-", "--out-dir", "out-\(UUID().uuidString)", "--shard", "\(k)/4",
          "--report", report,
        ],
        in: dir.path, stdin: listing.joined(separator: "\n"))
      #expect(result.status == 0, "\(result)")
      return Set(try BatchReportFile(dir.file(report)).inputs("ok"))
    }
    var extra = (13...20).map { "data/p\($0).png" }
    for name in extra { try dir.image(name, width: 8, height: 8) }
    extra += names
    names.reverse()
    for k in 0..<4 {
      let before = try members(names, k)
      let after = try members(extra.shuffled(), k)
      #expect(before.isSubset(of: after), "shard \(k): \(before) moved")
      #expect(after.subtracting(before).allSatisfy { Int($0.dropFirst(6).dropLast(4))! > 12 })
    }
  }
}
