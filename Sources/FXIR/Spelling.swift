/// Typo suggestions for names a user wrote: effects, parameters, Metal
/// identifiers, commands. One distance and one rule, used by every front end.
public enum Spelling {
  /// The candidate nearest to `word` (case ignored), when it is within
  /// `max(2, word.count / 3)` edits and fewer edits than the word has letters;
  /// ties go to the earlier candidate.
  ///
  ///     Spelling.suggestion(for: "sepai", among: ["blur", "sepia"])  // "sepia"
  public static func suggestion(for word: String, among candidates: [String]) -> String? {
    let limit = max(2, word.count / 3)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let d = distance(word.lowercased(), candidate.lowercased())
      guard d <= limit, d < word.count else { continue }
      if best == nil || d < best!.distance { best = (candidate, d) }
    }
    return best?.candidate
  }

  /// The optimal-string-alignment distance between `a` and `b`: the fewest
  /// insertions, deletions, substitutions and swaps of adjacent characters
  /// (Damerau's four edits, no substring edited twice), by the Wagner–Fischer table.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var d = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          d = min(d, table[i - 2][j - 2] + 1)
        }
        table[i][j] = d
      }
    }
    return table[a.count][b.count]
  }
}
