import PodsDBus

/// One page of a list as it came over the bus (`aa{sv}` items, then the
/// next cursor), read where it lies: `ItemJSON.items(_:_:)` writes it as
/// JSON without building a `DBusValue` for every key.
public struct ItemPage: Sendable {
    public let body: DBusReplyBody
    /// How many of its items to use (the rest lie past a `--limit`).
    public let count: Int

    /// The items in the page and the cursor after it, read by skipping from item to item.
    static func countAndNext(_ body: DBusReplyBody) throws(DBusError) -> (count: Int, next: String) {
        var reader = body.reader()
        let end = try reader.arrayEnd(elementAlignment: 4)
        var count = 0
        while reader.offset < end {
            try reader.move(to: try reader.arrayEnd(elementAlignment: 8))
            count += 1
        }
        return (count, try reader.string())
    }
}
