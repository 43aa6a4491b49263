import GRDB

// MARK: - The queue ("up next")

extension Library {
    /// The queued episodes, in order.
    public func queue() throws(LibraryError) -> [LibraryEpisode] {
        try reading { db in
            try Row.fetchAll(db, sql: Self.episodeSelect + " JOIN queueItem ON queueItem.episodeId = episode.id ORDER BY queueItem.rank")
                .map(Self.episode(from:))
        }
    }

    /// Adds episodes at the end (or at `index`); one already queued moves
    /// there, and one named twice is queued once (where it first appears).
    public func enqueue(_ ids: [Int64], at index: Int? = nil) throws(LibraryError) {
        var seen: Set<Int64> = []
        let ids = ids.filter { seen.insert($0).inserted }
        try writing { db in
            for id in ids { _ = try Self.episode(id, db) }
            var order = try Int64.fetchAll(db, sql: "SELECT episodeId FROM queueItem ORDER BY rank").filter { !ids.contains($0) }
            let position = min(max(index ?? order.count, 0), order.count)
            order.insert(contentsOf: ids, at: position)
            try Self.storeQueue(order, db)
        }
    }

    public func dequeue(_ id: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM queueItem WHERE episodeId = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError(.notFound, "episode \(id) is not in the queue") }
        }
    }

    public func clearQueue() throws(LibraryError) {
        try writing { db in try db.execute(sql: "DELETE FROM queueItem") }
    }

    /// Moves a queued episode to `index` (0 is next).
    public func moveInQueue(_ id: Int64, to index: Int) throws(LibraryError) {
        try writing { db in
            var order = try Int64.fetchAll(db, sql: "SELECT episodeId FROM queueItem ORDER BY rank")
            guard let from = order.firstIndex(of: id) else { throw LibraryError(.notFound, "episode \(id) is not in the queue") }
            order.remove(at: from)
            order.insert(id, at: min(max(index, 0), order.count))
            try Self.storeQueue(order, db)
        }
    }

    private static func storeQueue(_ order: [Int64], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM queueItem")
        for (rank, id) in order.enumerated() {
            try db.execute(sql: "INSERT INTO queueItem (episodeId, rank) VALUES (?, ?)", arguments: [id, rank])
        }
    }
}
