import FXPasses
import Testing

@testable import FXLLVM

@Suite struct TargetTests {
  let host = Target.host

  @Test func detectsTheHost() {
    #expect(!host.triple.isEmpty)
    #expect(!host.cpuName.isEmpty)
    #expect(!host.features.isEmpty)
    #expect(!host.summary.isEmpty)
    #expect(host.summary.contains("\(host.lanes) × fp32 lanes"))
    #expect(host.description.contains(host.triple))
  }

  @Test func lanesFollowFeatures() {
    if host.has("avx512f") {
      #expect(host.lanes == 16)
    } else if host.has("avx2") || host.has("avx") {
      #expect(host.lanes == 8)
    } else {
      #expect(host.lanes == 4)
    }
  }

  @Test func featureQueriesMatchWholeEntries() {
    let target = Target(
      triple: "x86_64-pc-linux-gnu", cpuName: "test", features: "+avx,-avx2,+fma,-avx512f")
    #expect(target.has("avx"))
    #expect(target.has("fma"))
    #expect(!target.has("avx2"))
    #expect(!target.has("avx512f"))
    #expect(!target.has("av"))
    #expect(target.lanes == 8)
    #expect(target.summary == "test: AVX, FMA, 8 × fp32 lanes")
    let avx512 = Target(
      triple: "x86_64-pc-linux-gnu", cpuName: "znver4", features: "+avx2,+avx512f,+fma")
    #expect(avx512.lanes == 16)
    #expect(avx512.summary == "znver4: AVX-512, FMA, 16 × fp32 lanes")
    let neon = Target(
      triple: "aarch64-unknown-linux-gnu", cpuName: "neoverse-n1", features: "+neon,+fp-armv8")
    #expect(neon.lanes == 4)
    #expect(neon.summary == "neoverse-n1: NEON, 4 × fp32 lanes")
  }
}
