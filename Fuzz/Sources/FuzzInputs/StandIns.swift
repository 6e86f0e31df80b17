// What Sources/fxc/BatchInputs.swift (compiled into this target through a
// symbolic link) needs from the rest of the `fxc` executable, which a fuzz
// target cannot import: the error it throws and standard input.
import Foundation

struct CommandFailure: Error, CustomStringConvertible {
  var description: String
  var status: Int32 = 1
}

enum StandardStreams {
  static let input = Data()
}
