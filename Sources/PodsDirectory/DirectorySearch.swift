import Foundation

/// Searches every configured directory at once and merges what they found
/// (AntennaPod's `CombinedSearcher`): results are one per feed URL
/// (compared without scheme case, `www.`, or a trailing slash), ranked by
/// the sum of 1/(rank + 1) over the directories that found them; a
/// directory that fails leaves the others' results, unless all fail.
public enum DirectorySearch {
    public static func merge(_ lists: [[DirectoryResult]], limit: Int) -> [DirectoryResult] {
        var scores: [String: (score: Double, first: Int, result: DirectoryResult)] = [:]
        var order = 0
        for list in lists {
            for (rank, result) in list.enumerated() {
                let key = normalized(result.feedURL)
                order += 1
                if var entry = scores[key] {
                    entry.score += 1 / Double(rank + 1)
                    // Fill what the first directory lacked.
                    if entry.result.author == nil { entry.result.author = result.author }
                    if entry.result.artworkURL == nil { entry.result.artworkURL = result.artworkURL }
                    if entry.result.episodeCount == nil { entry.result.episodeCount = result.episodeCount }
                    scores[key] = entry
                } else {
                    scores[key] = (1 / Double(rank + 1), order, result)
                }
            }
        }
        return scores.values.sorted { $0.score != $1.score ? $0.score > $1.score : $0.first < $1.first }
            .prefix(max(0, limit)).map(\.result)
    }

    /// A feed URL as directories compare it.
    static func normalized(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespaces).lowercased()
        for scheme in ["https://", "http://"] where text.hasPrefix(scheme) { text.removeFirst(scheme.count) }
        if text.hasPrefix("www.") { text.removeFirst(4) }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
