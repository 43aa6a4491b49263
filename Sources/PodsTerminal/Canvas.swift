/// What a piece of the screen means; the terminal picks its colours (or,
/// without colour, its attributes).
public enum Role: Int, Sendable, CaseIterable {
    case normal, dim, title, accent, selected, selectedElsewhere, playing, bar, barFill, error, border, header
}

/// A role and the attributes over it.
public struct Style: Hashable, Sendable {
    public var role: Role
    public var bold: Bool

    public init(_ role: Role = .normal, bold: Bool = false) {
        self.role = role
        self.bold = bold
    }

    public static let normal = Style()
}

/// One screen's contents: a grid of cells, each a character (or the second
/// half of a wide one) with its style. Made by pure code and handed to a
/// `Terminal` whole; tests read it back as text.
public struct Canvas: Sendable {
    public struct Cell: Equatable, Sendable {
        /// One character; "" for the column a wide character's second half takes.
        public var text: String
        public var style: Style
    }

    public let rows: Int
    public let columns: Int
    public private(set) var cells: [[Cell]]

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: Array(repeating: Cell(text: " ", style: .normal), count: self.columns), count: self.rows)
    }

    /// Writes `text` (sanitized first) at `row`, `column`, within `width`
    /// columns (to the edge when nil); a wide character that would not fit
    /// is left out. Returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: Style = .normal) -> Int {
        guard row >= 0, row < rows, column >= 0, column < columns else { return 0 }
        let end = min(columns, column + (width ?? columns))
        var at = column
        for character in DisplayText.sanitized(text) {
            let characterWidth = DisplayText.width(of: character)
            if characterWidth == 0 {
                if at > column { cells[row][at - 1 - (cells[row][at - 1].text.isEmpty ? 1 : 0)].text.append(character) }
                continue
            }
            guard at + characterWidth <= end else { break }
            cells[row][at] = Cell(text: String(character), style: style)
            if characterWidth == 2 { cells[row][at + 1] = Cell(text: "", style: style) }
            at += characterWidth
        }
        return at - column
    }

    /// Paints `width` columns of `row` from `column` with spaces in `style`.
    public mutating func fill(row: Int, column: Int = 0, width: Int? = nil, style: Style) {
        guard row >= 0, row < rows else { return }
        let start = max(0, column)
        let end = min(columns, column + (width ?? columns))
        guard start < end else { return }
        for at in start..<end { cells[row][at] = Cell(text: " ", style: style) }
    }

    /// Row `row` as text (wide characters once), for tests and logs.
    public func text(row: Int) -> String {
        cells[row].map(\.text).joined()
    }
}
