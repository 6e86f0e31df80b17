import Foundation

// fxc — apply fused, JIT-compiled effect chains to images. The commands and
// their options are declared in their CommandSpecs; FXC dispatches to them.

exit(FXC.main(Array(CommandLine.arguments.dropFirst())))
