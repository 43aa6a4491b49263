/// One scrolling list: its rows (as loaded so far), the selection, the
/// first row shown and a filter typed with `/`.
public struct ListState<Row: Sendable>: Sendable {
    public var rows: [Row] = []
    /// Index into `visible`.
    public var selected = 0
    public var top = 0
    public var filter = ""
    /// Every page is loaded (a paged list fetches more as the selection nears its end).
    public var complete = true
    /// A request for the next page is on its way.
    public var loading = false
    /// The cursor of the next page, for paged lists.
    public var next: String?

    public init() {}

    /// The rows the filter lets through (`selected` and `top` index these).
    public func visible(matching: (Row, String) -> Bool) -> [Row] {
        filter.isEmpty ? rows : rows.filter { matching($0, filter) }
    }

    /// Moves the selection by `delta` within `count` rows, keeping it on
    /// screen in a window of `height` rows.
    public mutating func move(by delta: Int, count: Int, height: Int) {
        guard count > 0 else { selected = 0; top = 0; return }
        select(selected + delta, count: count, height: height)
    }

    public mutating func select(_ index: Int, count: Int, height: Int) {
        guard count > 0 else { selected = 0; top = 0; return }
        selected = min(max(0, index), count - 1)
        let height = max(1, height)
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = min(top, max(0, count - height))
    }

    /// Replaces the rows, keeping the selection on the row with the same id when it is still there.
    public mutating func replace(_ new: [Row], id: (Row) -> Int64) {
        let keep = rows.indices.contains(selected) ? id(rows[selected]) : nil
        rows = new
        if let keep, let index = new.firstIndex(where: { id($0) == keep }) { selected = index }
        selected = min(selected, max(0, new.count - 1))
        top = min(top, selected)
    }
}
