// libFuzzer harness: show notes read for chapters ("12:34 Topic" lines),
// as podsd reads an episode's notes when no source has chapters. The
// first byte picks the episode's length (none, or up to 255 minutes).
// Built by scripts/fuzz with the PodsChapters sources.
import Foundation

public func fuzzShowNoteChapters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let duration: Double? = data[0] == 0 ? nil : Double(data[0]) * 60
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let chapters = ShowNoteChapters.chapters(in: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                                             duration: duration)
    for (index, chapter) in chapters.enumerated() where index > 0 {
        precondition(chapter.start > chapters[index - 1].start, "chapters from notes rise")
    }
    return 0
}
