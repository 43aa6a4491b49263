import PodsDBus
import PodsProtocol
import PodsSession

/// A page of `aa{sv}` items and its next cursor, written straight into the
/// reply's wire bytes as rows are read (no `DBusValue` per key): filled
/// until `LibraryPaging.maxBytes` or the page's item count, whichever comes
/// first (at least one item), like `ReplyPage`.
package struct WireReplyPage: ItemFields {
    private var writer = DBusWireWriter(capacity: LibraryPaging.maxBytes + (16 << 10))
    private let items: DBusWireWriter.ArrayMark
    private let itemsStart: Int
    private let limit: Int
    private(set) var count = 0
    /// Set when a row came that the page has no room for: a page follows.
    private(set) var hasMore = false

    package init(count: Int) {
        limit = count
        items = writer.beginArray(elementAlignment: 4)
        itemsStart = writer.count
    }

    /// Adds the item `write` writes; false (setting `hasMore`) when it does
    /// not fit, and then the page takes nothing more.
    package mutating func add(_ write: (inout WireReplyPage) -> Void) -> Bool {
        guard !hasMore, count < limit else {
            hasMore = true
            return false
        }
        let start = writer.count
        let item = writer.beginArray(elementAlignment: 8)
        write(&self)
        writer.endArray(item)
        if count > 0, writer.count - itemsStart > LibraryPaging.maxBytes {
            writer.truncate(to: start)
            hasMore = true
            return false
        }
        count += 1
        return true
    }

    /// The reply's body: the items, then `next` when a page follows (else
    /// the empty cursor).
    package mutating func body(next: () -> String) -> DBusWireBody {
        writer.endArray(items)
        writer.string(hasMore && count > 0 ? next() : LibraryPaging.start)
        return writer.body(signature: "aa{sv}s")
    }

    /// A page with no items and no page after it.
    package static var empty: DBusWireBody {
        var page = WireReplyPage(count: 0)
        return page.body { LibraryPaging.start }
    }

    // MARK: - ItemFields (inside `add`)

    package mutating func set(_ key: String, _ text: String?) {
        guard let text else { return }
        entry(key, "s") { $0.string(ItemBuilder.bounded(text)) }
    }

    package mutating func set(_ key: String, _ number: Int64?) {
        guard let number else { return }
        entry(key, "x") { $0.int64(number) }
    }

    package mutating func set(_ key: String, _ number: Int?) {
        guard let number else { return }
        entry(key, "i") { $0.int32(Int32(clamping: number)) }
    }

    package mutating func set(_ key: String, _ number: Double?) {
        guard let number, number.isFinite else { return }
        entry(key, "d") { $0.double(number) }
    }

    package mutating func set(_ key: String, _ flag: Bool?) {
        guard let flag else { return }
        entry(key, "b") { $0.bool(flag) }
    }

    /// One `{sv}` entry.
    private mutating func entry(_ key: String, _ signature: StaticString, _ value: (inout DBusWireWriter) -> Void) {
        writer.beginStruct()
        writer.string(key)
        writer.signature(signature)
        value(&writer)
    }
}
