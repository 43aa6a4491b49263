// libFuzzer harness: a podcast directory's search answer (the iTunes
// Search API's or Podcast Index's JSON, or Podcast Index's answer to a
// guid; the first byte picks which: even, odd, 3 mod 4), read
// into results. Built by scripts/fuzz with the PodsDirectory sources that
// read answers and the PodsHTTP sources.
import Foundation

public func fuzzDirectoryAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Data(bytes: data + 1, count: size - 1)
    if data[0] % 4 == 3 {
        _ = (try? DirectoryAnswers.decode(DirectoryAnswers.PodcastIndexByGuid.self, body, directory: "fuzz"))?.feedURL
    } else if data[0] % 2 == 0 {
        if let answer = try? DirectoryAnswers.decode(DirectoryAnswers.ITunes.self, body, directory: "fuzz") {
            _ = DirectoryAnswers.results(of: answer.results)
        }
    } else if let answer = try? DirectoryAnswers.decode(DirectoryAnswers.PodcastIndex.self, body, directory: "fuzz") {
        _ = DirectoryAnswers.results(of: answer)
    }
    return 0
}
