import GRDB

// MARK: - A podcast's own settings

extension Library {
    /// The settings `podcastID` overrides, as text (`pods config` parses them).
    public func podcastSettings(_ podcastID: Int64) throws(LibraryError) -> [String: String] {
        try reading { db in
            var settings: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM podcastSetting WHERE podcastId = ?", arguments: [podcastID]) {
                settings[try row.decode(forColumn: "key")] = try row.decode(forColumn: "value") as String
            }
            return settings
        }
    }

    /// Sets (or with nil, removes) a podcast's own value of `key`.
    public func setPodcastSetting(_ podcastID: Int64, _ key: String, _ value: String?) throws(LibraryError) {
        try writing { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM podcast WHERE id = ?", arguments: [podcastID]) != nil else {
                throw LibraryError(.notFound, "no podcast has id \(podcastID)")
            }
            if let value {
                try db.execute(sql: """
                    INSERT INTO podcastSetting (podcastId, key, value) VALUES (?, ?, ?)
                    ON CONFLICT(podcastId, key) DO UPDATE SET value = excluded.value
                    """, arguments: [podcastID, key, value])
            } else {
                try db.execute(sql: "DELETE FROM podcastSetting WHERE podcastId = ? AND key = ?", arguments: [podcastID, key])
            }
        }
    }
}

extension Library {
    /// Every podcast's own values of `keys`, by podcast (one read for all of them).
    public func podcastSettings(keys: [String]) throws(LibraryError) -> [Int64: [String: String]] {
        let wanted = Set(keys)
        return try reading { db in
            var settings: [Int64: [String: String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT podcastId, key, value FROM podcastSetting") {
                let key: String = try row.decode(forColumn: "key")
                guard wanted.contains(key) else { continue }
                settings[try row.decode(forColumn: "podcastId"), default: [:]][key] = try row.decode(forColumn: "value") as String
            }
            return settings
        }
    }
}
