// libFuzzer harness: text from outside as the terminal shows it (pods ui,
// pods show): sanitising, widths, truncating and wrapping to every width
// the first byte picks, and the picture protocol's chunks. Built by
// scripts/fuzz with the PodsTerminal sources. Nothing a terminal acts on
// survives sanitising; no line is wider than asked.
import Foundation

public func fuzzTerminal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let columns = Int(bytes[0]) - 8  // -8 to 247: zero and negative widths too
    let text = DisplayText.sanitized(String(decoding: bytes.dropFirst(), as: UTF8.self))
    precondition(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    let truncated = DisplayText.truncated(text, to: columns)
    precondition(columns <= 0 ? truncated.isEmpty : DisplayText.width(of: truncated) <= columns)
    for line in DisplayText.wrapped(text, to: columns) {
        // A single character wider than the line (two columns in one) is the one exception.
        precondition(DisplayText.width(of: line) <= max(columns, 2))
    }
    let picture = TerminalPictures.show(png: Array(bytes), id: UInt32(size), columns: max(columns, 1), rows: 12)
    precondition(picture.starts(with: Array("\u{1B}_G".utf8)))
    return 0
}
