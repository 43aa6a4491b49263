import PodsDBus
import PodsLibrary
import PodsProtocol

extension LibraryMethod {
    /// This method's row in `org.pods.Library2`'s table: `body` decodes, calls the session and encodes.
    func handler(_ body: @escaping @Sendable ([DBusValue]) async throws(DBusError) -> [DBusValue]) -> DBusMethod {
        exported { arguments in try await body(arguments) }
    }
}

/// The shapes of `org.pods.Library2`'s answers that its topics share:
/// pages by position, and lists bounded to one reply.
enum LibraryReplies {
    /// A page of a list paged by position, from its `(s cursor, u limit)`;
    /// `rows(offset, limit)` reads up to `limit` rows from `offset`.
    static func offsetPaged<Row>(
        _ arguments: [DBusValue], of method: LibraryMethod, item: (Row) -> DBusValue,
        rows: (_ offset: Int, _ limit: Int) async throws(DBusError) -> [Row]
    ) async throws(DBusError) -> [DBusValue] {
        let text = arguments[0].stringValue ?? ""
        guard let offset = ReplyPage.offset(from: text) else {
            throw DBusError.invalidArgs("'\(text.prefix(80))' is not a cursor of \(method.name)")
        }
        let count = LibraryPaging.itemCount(for: UInt32(clamping: arguments[1].int64Value ?? 0))
        var page = ReplyPage(count: count)
        for row in try await rows(offset, count + 1) where !page.add({ item(row) }) { break }
        return page.reply { lastIndex in ReplyPage.offsetCursor(offset + lastIndex + 1) }
    }

    /// An `aa{sv}` of as many items as fit one reply.
    static func boundedList<T>(_ values: [T], item: (T) -> DBusValue) -> DBusValue {
        ReplyPage.bounded(values, item: item).list
    }
}
