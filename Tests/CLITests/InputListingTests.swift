import Testing

@testable import fxc

/// What scripts/fuzz.sh inputs found (issue 39): a manifest line that names
/// no file — slashes alone, or ending in `..` — had itself (absolute) or
/// `..` as its relative path, which would put an output outside --out-dir.
struct InputListingTests {
  @Test func aPathThatNamesNoFileHasNoNameThatClimbsOut() {
    for path in ["/", "////", "..", "a/..", "../..", "/x/.."] {
      let name = InputListing.name(of: path)
      #expect(name == ".", "\(path) → \(name)")
    }
    #expect(InputListing.name(of: "a/b.png") == "b.png")
    #expect(InputListing.name(of: "../x/c.jpg") == "c.jpg")
  }
}
