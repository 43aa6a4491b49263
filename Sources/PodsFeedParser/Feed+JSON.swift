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
        json.string(details.funding.first?.url)
        json.key("locked")
        json.bool(locked)
        json.key("categories")
        json.array(categories) { json, path in json.array(path) { $0.string($1) } }
        json.key("details")
        details.writeJSON(to: &json)
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
        json.key("seasonName")
        json.string(seasonName)
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
        json.key("soundbites")
        json.array(soundbites) { json, soundbite in soundbite.writeJSON(to: &json) }
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
        json.key("bitrate")
        json.number(bitrate)
        json.key("title")
        json.string(title)
        json.raw("}")
    }
}

extension Soundbite {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("start")
        json.number(start)
        json.key("duration")
        json.number(duration)
        json.key("title")
        json.string(title)
        json.raw("}")
    }
}

extension ChannelDetails {
    public func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        json.key("guid")
        json.string(guid)
        json.key("medium")
        json.string(medium)
        json.key("updateFrequency")
        if let updateFrequency {
            json.raw("{")
            json.key("text")
            json.string(updateFrequency.text)
            json.key("rule")
            json.string(updateFrequency.rule)
            json.key("complete")
            json.bool(updateFrequency.complete)
            json.raw("}")
        } else {
            json.raw("null")
        }
        json.key("funding")
        json.array(funding) { json, funding in
            json.raw("{")
            json.key("url")
            json.string(funding.url)
            json.key("text")
            json.string(funding.text)
            json.raw("}")
        }
        json.key("persons")
        json.array(persons) { json, person in person.writeJSON(to: &json) }
        json.key("trailers")
        json.array(trailers) { json, trailer in
            json.raw("{")
            json.key("url")
            json.string(trailer.url)
            json.key("title")
            json.string(trailer.title)
            json.key("type")
            json.string(trailer.type)
            json.key("length")
            json.integer(trailer.length)
            json.key("published")
            json.string(trailer.published.map(FeedDates.iso8601))
            json.key("season")
            json.integer(trailer.season)
            json.raw("}")
        }
        json.key("podroll")
        json.array(podroll) { json, item in
            json.raw("{")
            json.key("feedGuid")
            json.string(item.feedGuid)
            json.key("feedURL")
            json.string(item.feedURL)
            json.key("itemGuid")
            json.string(item.itemGuid)
            json.key("medium")
            json.string(item.medium)
            json.key("title")
            json.string(item.title)
            json.raw("}")
        }
        json.raw("}")
    }

    /// The details as JSON text (how the library stores them).
    public var jsonText: String { JSONWriter.text { json in writeJSON(to: &json) } }
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

extension Array where Element == Soundbite {
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
