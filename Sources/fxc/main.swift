import FX
import Foundation

// fxc — apply fused, JIT-compiled effect chains to images.

let usage = """
  usage: fxc <command> [options]

  commands:
    run      apply a chain to image files
             fxc run --chain 'sepia | vignette(intensity: 0.8)' IN... (-o OUT | --out-dir DIR)
                 [-r] [--manifest FILE] [--name TEMPLATE] [--format png|jpeg] [--quality 1…100]
                 [--overwrite | --skip-existing] [--param NAME=VALUE] [--frames N]
                 [--threads N] [--shard K/N] [--report FILE.json] [--backend jit|interp] [--check]
             (all options: fxc run --help)
    effects  list the effects with their parameters, defaults and ranges
    dump     print the graph, every pass, the kernel, LLVM IR and assembly of a chain
             fxc dump --chain CHAIN [--passes] [--ir] [--asm] [--no-split] [--opaque]
    bench    time the interpreter and the JIT on the same chain and image
             fxc bench [--chain CHAIN]... [--image FILE] [--threads N] [--json] [--clock wall|cpu]
                 [--seconds S] [--no-unsplit] [--no-opaque]
    fuzz     random graphs, interpreter vs lowered vs JIT: fxc fuzz --graphs N [--seed S] [--case SEED]

  Chains are effects separated by '|', applied left to right; see 'fxc effects'.
  """

/// A failure the user can act on: printed without a stack, exit status 1 (usage: 2).
struct CommandFailure: Error, CustomStringConvertible {
  var description: String
  var status: Int32 = 1
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
  FileHandle.standardError.write((usage + "\n").data(using: .utf8)!)
  exit(2)
}
arguments.removeFirst()

do {
  switch command {
  case "run": try RunCommand(arguments).execute()
  case "effects": try EffectsCommand(arguments).execute()
  case "dump": try DumpCommand(arguments).execute()
  case "bench": try BenchCommand(arguments).execute()
  case "fuzz": try FuzzCommand(arguments).execute()
  case "-h", "--help", "help": print(usage)
  default:
    let hint = ChainSyntax.suggestion(for: command, among: ["run", "effects", "dump", "bench"]).map { " — did you mean '\($0)'?" } ?? ""
    throw CommandFailure(description: "error: unknown command '\(command)'\(hint)\n\n\(usage)", status: 2)
  }
} catch let e as CommandFailure {
  FileHandle.standardError.write((e.description + "\n").data(using: .utf8)!)
  exit(e.status)
} catch let e as UsageError {
  FileHandle.standardError.write(("\(e)\n(see 'fxc --help')\n").data(using: .utf8)!)
  exit(2)
} catch let e as ChainSyntaxError {
  FileHandle.standardError.write(("\(e)\n").data(using: .utf8)!)
  exit(2)
} catch {
  FileHandle.standardError.write(("error: \(error)\n").data(using: .utf8)!)
  exit(1)
}
