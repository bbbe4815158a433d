// lnote-render: the command-line tool. All behaviour lives in LNoteCLI so it can be tested.
import Foundation
import LNoteCLI

exit(LNoteTool.run(Array(CommandLine.arguments.dropFirst()), console: .standard()))
