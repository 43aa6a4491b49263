import Foundation
import PodsTerminal

// Every text `pods` prints holds a feed's words somewhere (titles, notes,
// cue text, search snippets, errors that quote them), and a feed's words can
// hold terminal control sequences: an OSC 52 writes the clipboard, an OSC 0
// the window title, a CSI moves the cursor over what was printed (REVIEW-4,
// N5). So the module's `print` is this one, and each line it prints goes
// through `DisplayText.printable`: no command, path or later change can
// print around it. JSON (`--json`) goes out through `StandardOutput` as it
// is: its encoder escapes every control character.

/// Prints `items` as Swift's `print` does, with nothing a terminal acts on.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(DisplayText.printable(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// `pods: MESSAGE` on standard error, with nothing a terminal acts on.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("pods: \(DisplayText.printable(message))\n".utf8))
}

/// Text for `StandardOutput.write`, with nothing a terminal acts on.
func printable(_ text: String) -> String { DisplayText.printable(text) }
