import Testing

@testable import FXCodegen

@Suite struct HostTargetTests {
  let host = HostTarget.host

  @Test func detectsTheHost() {
    #expect(!host.triple.isEmpty)
    #expect(!host.cpuName.isEmpty)
    #expect(!host.features.isEmpty)
    #expect(!host.summary.isEmpty)
    #expect(host.summary.contains("\(host.vectorWidth) × fp32 lanes"))
    #expect(host.description.contains(host.triple))
  }

  @Test func vectorWidthFollowsFeatures() {
    if host.has("avx512f") {
      #expect(host.vectorWidth == 16)
    } else if host.has("avx2") || host.has("avx") {
      #expect(host.vectorWidth == 8)
    } else {
      #expect(host.vectorWidth == 4)
    }
  }

  @Test func featureQueriesMatchWholeEntries() {
    let target = HostTarget(
      triple: "x86_64-pc-linux-gnu", cpuName: "test", features: "+avx,-avx2,+fma,-avx512f")
    #expect(target.has("avx"))
    #expect(target.has("fma"))
    #expect(!target.has("avx2"))
    #expect(!target.has("avx512f"))
    #expect(!target.has("av"))
    #expect(target.vectorWidth == 8)
    #expect(target.summary == "test: AVX, FMA, 8 × fp32 lanes")
    let avx512 = HostTarget(
      triple: "x86_64-pc-linux-gnu", cpuName: "znver4", features: "+avx2,+avx512f,+fma")
    #expect(avx512.vectorWidth == 16)
    #expect(avx512.summary == "znver4: AVX-512, FMA, 16 × fp32 lanes")
    let neon = HostTarget(
      triple: "aarch64-unknown-linux-gnu", cpuName: "neoverse-n1", features: "+neon,+fp-armv8")
    #expect(neon.vectorWidth == 4)
    #expect(neon.summary == "neoverse-n1: NEON, 4 × fp32 lanes")
  }
}
