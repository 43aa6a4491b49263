// MARK: - The JSON contract (`pods inspect --json`, docs/json.md)

extension Feed {
    /// The feed as the JSON contract writes it: every key, in order.
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("title")
        json.string(title)
        json.key("link")
        json.string(link)
        json.key("description")
        json.string(description)
        json.key("descriptionHTML")
        json.string(descriptionHTML)
        json.key("author")
        json.string(author)
        json.key("artworkURL")
        json.string(artworkURL)
        json.key("language")
        json.string(language)
        json.key("type")
        json.string(type)
        json.key("explicit")
        json.bool(explicit)
        json.key("newFeedURL")
        json.string(newFeedURL)
        json.key("fundingURL")
        json.string(fundingURL)
        json.key("locked")
        json.bool(locked)
        json.key("categories")
        json.array(categories) { json, path in json.array(path) { $0.string($1) } }
        json.key("episodes")
        json.array(episodes) { json, episode in episode.writeJSON(to: &json) }
        json.raw("}")
    }
}

extension Episode {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("guid")
        json.string(guid)
        json.key("title")
        json.string(title)
        json.key("link")
        json.string(link)
        json.key("description")
        json.string(description)
        json.key("descriptionHTML")
        json.string(descriptionHTML)
        json.key("published")
        json.string(published.map(FeedDates.iso8601))
        json.key("duration")
        json.number(duration)
        json.key("enclosures")
        json.array(enclosures) { json, enclosure in enclosure.writeJSON(to: &json) }
        json.key("artworkURL")
        json.string(artworkURL)
        json.key("season")
        json.integer(season)
        json.key("number")
        json.integer(number)
        json.key("episodeType")
        json.string(episodeType)
        json.key("explicit")
        json.bool(explicit)
        json.key("author")
        json.string(author)
        json.key("chapters")
        json.array(chapters) { json, chapter in chapter.writeJSON(to: &json) }
        json.key("chaptersURL")
        json.string(chaptersURL)
        json.key("transcriptURL")
        json.string(transcriptURL)
        json.key("persons")
        json.array(persons) { json, person in person.writeJSON(to: &json) }
        json.raw("}")
    }
}

extension Enclosure {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("url")
        json.string(url)
        json.key("type")
        json.string(type)
        json.key("length")
        json.integer(length)
        json.raw("}")
    }
}

extension Chapter {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("start")
        json.number(start)
        json.key("title")
        json.string(title)
        json.key("url")
        json.string(url)
        json.key("image")
        json.string(image)
        json.raw("}")
    }
}

extension Person {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("name")
        json.string(name)
        json.key("role")
        json.string(role)
        json.key("group")
        json.string(group)
        json.key("url")
        json.string(url)
        json.key("image")
        json.string(image)
        json.raw("}")
    }
}

extension Array where Element == Enclosure {
    /// The list as JSON text (how the library stores it).
    public var jsonText: String { JSONWriter.text { json in json.array(self) { json, item in item.writeJSON(to: &json) } } }
}

extension Array where Element == Chapter {
    public var jsonText: String { JSONWriter.text { json in json.array(self) { json, item in item.writeJSON(to: &json) } } }
}

extension Array where Element == Person {
    public var jsonText: String { JSONWriter.text { json in json.array(self) { json, item in item.writeJSON(to: &json) } } }
}

extension JSONWriter {
    /// What `write` writes, as a string.
    static func text(_ write: (inout JSONWriter) -> Void) -> String {
        var json = JSONWriter(capacity: 256)
        write(&json)
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
