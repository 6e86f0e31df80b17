import FX
import Foundation

// fxc — apply fused, JIT-compiled effect chains to images. The commands and
// their options are declared in their CommandSpecs; FXC dispatches to them.

// File descriptors before anything else: Dispatch traps (SIGILL) when it
// cannot make its epoll descriptor, so a limit too low to run is a clean
// exit here, and a low soft limit is raised to the hard one (as Go's runtime
// does), so that a batch does not fail file after file with EMFILE.
if let problem = FileDescriptors.ensure(atLeast: 16) {
  FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
  exit(1)
}

// The arguments as bytes (PathBytes): CommandLine.arguments replaces bytes
// that are not UTF-8, so a file named in Latin-1 could not be opened.
let arguments = (1..<Int(CommandLine.argc)).map { PathBytes.string(fromCString: CommandLine.unsafeArgv[$0]!) }
exit(FXC.main(arguments))
