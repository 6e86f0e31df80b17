// --param (uniforms set at run time), --frames (a sweep, one compiled kernel),
// --to (transitions), and the progress bar.

import FX
import Foundation
import Testing

@Suite("fxc run: parameters, frames and progress")
struct BatchFramesTests {
  static func read(_ dir: BatchScratch, _ name: String) throws -> ImageBuffer { try ImageFile.read(dir.file(name)).0 }

  @Test func framesSweepAParameterWithOneKernel() throws {
    let dir = try BatchScratch()
    try dir.image("in.png")
    let result = try BatchFXC.run(
      [
        "run", "-c", "sepia | vignette(intensity: 0.5)", "in.png", "--frames", "5", "--param", "sepia.amount=0...1",
        "--out-dir", "anim", "-v", "-j", "2",
      ],
      in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("anim") == (1...5).map { "frame_000\($0).png" })
    let compiles = result.stdout.components(separatedBy: ", compile ").count - 1
    #expect(compiles == 1, "one kernel for every frame: \(result)")
    for (frame, amount) in [(1, "0"), (3, "0.5"), (5, "1")] {
      let reference = try BatchFXC.run(
        ["run", "-c", "sepia(amount: \(amount)) | vignette(intensity: 0.5)", "in.png", "-o", "ref\(frame).png"], in: dir.path)
      #expect(reference.status == 0, "\(reference)")
      let d = batchMaxDifference(try Self.read(dir, "anim/frame_000\(frame).png"), try Self.read(dir, "ref\(frame).png"))
      #expect(d <= 1.0 / 255 + 1e-6, "frame \(frame) should be sepia(amount: \(amount)): differs by \(d)")
    }
  }

  /// Issue 14: a blur's σ is a uniform like any other parameter — one kernel
  /// for σ 1…40, each frame the blur of its own σ (within 1 level).
  @Test func framesSweepABlurRadiusWithOneKernel() throws {
    let dir = try BatchScratch()
    try dir.image("in.png", width: 24, height: 12)
    let result = try BatchFXC.run(
      ["run", "-c", "gaussianBlur", "in.png", "--frames", "4", "--param", "gaussianBlur.sigma=1...40", "--out-dir", "anim", "-v"],
      in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.components(separatedBy: ", compile ").count - 1 == 1, "one kernel for every frame: \(result)")
    for (frame, sigma) in [(1, "1"), (2, "14"), (4, "40")] {
      let reference = try BatchFXC.run(["run", "-c", "gaussianBlur(\(sigma), method: exact)", "in.png", "-o", "ref\(frame).png"], in: dir.path)
      #expect(reference.status == 0, "\(reference)")
      let d = batchMaxDifference(try Self.read(dir, "anim/frame_000\(frame).png"), try Self.read(dir, "ref\(frame).png"))
      #expect(d <= 1.0 / 255 + 1e-6, "frame \(frame) should be gaussianBlur(\(sigma)): differs by \(d)")
    }
  }

  @Test func framesNamedByTheOutputTemplate() throws {
    let dir = try BatchScratch()
    try dir.image("in.png", width: 8, height: 8)
    let result = try BatchFXC.run(
      ["run", "-c", "vignette", "in.png", "--frames", "3", "--param", "intensity=0...1", "-o", "anim/f_{frame:2}.png"],
      in: dir.path)
    #expect(result.status == 0, "\(result)")
    #expect(dir.tree("anim") == ["f_01.png", "f_02.png", "f_03.png"])
  }

  /// A bare parameter name works when one effect of the chain has it.
  @Test func paramSetsAUniform() throws {
    let dir = try BatchScratch()
    try dir.image("in.png")
    let set = try BatchFXC.run(["run", "-c", "sepia | vignette", "in.png", "-o", "set.png", "--param", "amount=0.3"], in: dir.path)
    let constant = try BatchFXC.run(["run", "-c", "sepia(amount: 0.3) | vignette", "in.png", "-o", "constant.png"], in: dir.path)
    #expect(set.status == 0 && constant.status == 0, "\(set)\n\(constant)")
    #expect(batchMaxDifference(try Self.read(dir, "set.png"), try Self.read(dir, "constant.png")) <= 1.0 / 255 + 1e-6)
  }

  struct UsageCase: CustomTestStringConvertible, Sendable {
    var chain: String
    var arguments: [String]
    var fragment: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let usageCases = [
    UsageCase(chain: "sepia | saturation", arguments: ["--param", "amount=0.5"], fragment: "several effects have it"),
    UsageCase(chain: "sepia", arguments: ["--param", "radius=0.5"], fragment: "no effect in the chain has a parameter 'radius'"),
    UsageCase(chain: "sepia", arguments: ["--param", "sepia.amount=2"], fragment: "0…1, got 2"),
    UsageCase(chain: "sepia", arguments: ["--param", "sepia.amount"], fragment: "NAME=VALUE"),
    UsageCase(chain: "sepia", arguments: ["--param", "sepia.amount=nan"], fragment: "must be a finite number in 0…1, got nan"),
    UsageCase(chain: "sepia", arguments: ["--frames", "2", "--param", "amount=0...inf"], fragment: "0…1, got inf"),
    UsageCase(chain: "sepia", arguments: ["--param", "amount=half"], fragment: "'half' is not a number"),
    UsageCase(chain: "sepia", arguments: ["--param", "sepia.amount=0...1"], fragment: "add --frames N"),
    UsageCase(chain: "sepia", arguments: ["--frames", "3", "--param", "sepia.amount=0...1.5"], fragment: "got 1.5"),
    UsageCase(chain: "sepia", arguments: ["--to", "in.png"], fragment: "this chain reads one image"),
    UsageCase(chain: "gaussianBlur", arguments: ["--frames", "2", "--param", "sigma=1...201"], fragment: "0…200 px, got 201"),
  ]

  @Test(arguments: usageCases)
  func parameterMistakesAreUsageErrors(_ c: UsageCase) throws {
    let dir = try BatchScratch()
    try dir.image("in.png")
    let result = try BatchFXC.run(["run", "-c", c.chain, "in.png", "--out-dir", "out"] + c.arguments, in: dir.path)
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains(c.fragment), "missing '\(c.fragment)' in \(result)")
    #expect(!dir.exists("out"))
  }

  @Test func framesNeedOneInputAndAFrameField() throws {
    let dir = try BatchScratch()
    try dir.image("a.png")
    try dir.image("b.png")
    let two = try BatchFXC.run(["run", "-c", "sepia", "a.png", "b.png", "--frames", "2", "--out-dir", "o"], in: dir.path)
    #expect(two.status == 2 && two.stderr.contains("--frames animates one input"), "\(two)")
    let noField = try BatchFXC.run(["run", "-c", "sepia", "a.png", "--frames", "2", "-o", "f.png"], in: dir.path)
    #expect(noField.status == 2 && noField.stderr.contains("{frame}"), "\(noField)")
  }

  /// On a terminal (a pseudo-terminal from `script`), a progress bar on standard error; elsewhere none.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func progressBarOnlyOnATerminal() throws {
    let dir = try BatchScratch()
    for i in 1...6 { try dir.image("in/f\(i).png", width: 64, height: 48, seed: UInt32(i)) }
    try dir.write(Data("bad".utf8), to: "in/zz.png")
    let fxc = try #require(BatchFXC.executable)
    let command = "'\(fxc)' run -c 'wave | vignette' in --out-dir out -j 2"
    let tty = try BatchFXC.run(["-q", "-e", "-c", command, "/dev/null"], in: dir.path, program: "/usr/bin/script")
    #expect(tty.status == 1, "\(tty)")
    #expect(tty.stdout.contains("/7 files") && tty.stdout.contains("files/s") && tty.stdout.contains("ETA"), "\(tty)")
    #expect(tty.stdout.contains("1 error"), "\(tty)")
    #expect(tty.stdout.contains("error: in/zz.png: "), "\(tty)")

    let plain = try BatchFXC.run(["run", "-c", "wave | vignette", "in", "--out-dir", "out2", "-j", "2"], in: dir.path)
    #expect(plain.status == 1, "\(plain)")
    #expect(!plain.stderr.contains("ETA") && !plain.stderr.contains("\r"), "\(plain)")
    #expect(plain.stdout.contains("6 written, 0 skipped, 1 failed of 7 files"), "\(plain)")
  }
}
