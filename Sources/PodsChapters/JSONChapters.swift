import Foundation

/// The Podcasting 2.0 JSON chapters format (`podcast:chapters`, version
/// 1.2): `{"version": "1.2.0", "chapters": [{"startTime": 0, "title": …,
/// "img": …, "url": …, "toc": false, "endTime": …}]}`.
public enum JSONChapters {
    /// Chapters kept at most from one file.
    static let maximumChapters = 5000

    /// Reads a chapters file; entries without a usable `startTime` are
    /// skipped, a document that is not a chapters file is an error.
    public static func parse(_ data: Data) throws(ChapterError) -> [EpisodeChapter] {
        guard (try? JSONSerialization.jsonObject(with: data)) != nil else {
            throw ChapterError("the chapters file is not JSON")
        }
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else {
            throw ChapterError("the JSON has no \"chapters\" list, so it is not a chapters file")
        }
        return document.chapters.prefix(maximumChapters).compactMap { entry in
            guard let start = EpisodeChapter.checkedSeconds(entry.startTime) else { return nil }
            let end = EpisodeChapter.checkedSeconds(entry.endTime).flatMap { $0 > start ? $0 : nil }
            return EpisodeChapter(start: start, end: end, title: entry.title ?? "", url: entry.url, image: entry.img,
                                  toc: entry.toc ?? true, source: .json)
        }
        .sorted { $0.start < $1.start }
    }

    private struct Document: Decodable {
        var chapters: [Entry]
    }

    /// One chapter, read leniently: a field of the wrong type is left out
    /// instead of failing the file.
    private struct Entry: Decodable {
        var startTime: Double?
        var endTime: Double?
        var title: String?
        var url: String?
        var img: String?
        var toc: Bool?

        enum CodingKeys: String, CodingKey { case startTime, endTime, title, url, img, toc }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startTime = Self.seconds(container, .startTime)
            endTime = Self.seconds(container, .endTime)
            title = try? container.decodeIfPresent(String.self, forKey: .title)
            url = (try? container.decodeIfPresent(String.self, forKey: .url)).flatMap { $0?.isEmpty == false ? $0 : nil }
            img = (try? container.decodeIfPresent(String.self, forKey: .img)).flatMap { $0?.isEmpty == false ? $0 : nil }
            toc = try? container.decodeIfPresent(Bool.self, forKey: .toc)
        }

        /// A number, or a numeric string (some generators quote them).
        private static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> Double? {
            if let value = try? container.decodeIfPresent(Double.self, forKey: key) { return value }
            return (try? container.decodeIfPresent(String.self, forKey: key)).flatMap { $0.flatMap(Double.init) }
        }
    }
}
