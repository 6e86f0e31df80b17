import FX
import Foundation

// fxc — apply fused, JIT-compiled effect chains to images. The commands and
// their options are declared in their CommandSpecs; FXC dispatches to them.

// The arguments as bytes (PathBytes): CommandLine.arguments replaces bytes
// that are not UTF-8, so a file named in Latin-1 could not be opened.
let arguments = (1..<Int(CommandLine.argc)).map { PathBytes.string(fromCString: CommandLine.unsafeArgv[$0]!) }
exit(FXC.main(arguments))
