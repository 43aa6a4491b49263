import Foundation
@testable import PodsSettings
import PodsTestSupport
import Testing

/// Title patterns match in time linear in the title, whatever the pattern
/// (ADVERSARIAL-5, finding 1: `(a+)+$` against a feed's 299-character title
/// held podsd at 100 % CPU for ten minutes), and mean what Swift's `Regex`
/// meant for the patterns listeners write.
@Suite struct TitlePatternTests {
    static let catastrophic = [#"(a+)+$"#, #"(\w+\s?)+$"#, #"(a|aa)+$"#, #"(a*)*b"#, #"(.*a){12}"#, #"((a+)+)+x"#, #"(\w+\s?)*sponsor"#]

    @Test(arguments: catastrophic)
    func aNestedQuantifierAnswersWithinTenMilliseconds(_ source: String) throws {
        let pattern = try TitlePattern(source)
        for title in [String(repeating: "a", count: 299) + "!", String(repeating: "a ", count: 150), String(repeating: "ab", count: 150)] {
            // The best of five: a busy machine's pauses are no cost of the pattern's (one that backtracks takes hours).
            let milliseconds = LinearTime.seconds(runs: 5, title) { _ = pattern.matches($0) } * 1000
            #expect(milliseconds < 10, "\(source) against \(title.prefix(8))…: \(milliseconds) ms")
        }
    }

    /// What listeners write, over titles such patterns meet: the same answers as Swift's `Regex`.
    @Test func ordinaryPatternsMeanWhatRegexMeant() throws {
        let patterns = [
            "^(ad|sponsor)", "sponsor", "^Ad break$", #"\bads?\b"#, "(?i)SPONSOR", "trailer|teaser", #"^\[bonus\]"#,
            #"part \d+"#, #"^\d{3,}"#, "[^a-z ]", "episode [0-9]{1,2}$", #"\s{2,}"#, "colou?r", "^.{0,5}$",
            #"(?:re)?run"#, #"\Wlive\W"#, "é", "ÉTÉ", #"q\.a"#, "^$", #"[\-_]"#, "x{2}", "a{2,}b", #"\Bnd\b"#,
            "(?<show>news) ?recap", #"^(?:(?:pre|post)-)?show"#,
        ]
        let titles = [
            "Ad break", "Sponsor: Acme", "Our sponsors", "ads and more", "AD", "The trailer", "[Bonus] Extra", "Part 12",
            "1234 Things", "12 Days", "episode 7", "Episode 123", "double  space", "color", "Colour", "short", "rerun",
            "a run", "(live) show", "Live!", "café", "été", "Q.A.", "QXA", "", "pre-show", "post-show", "show", "snake_case",
            "xx", "aab", "b", "band", "news recap", "NEWSrecap", "[",
        ]
        for source in patterns {
            let pattern = try TitlePattern(source)
            let regex = try Regex(source).ignoresCase()
            for title in titles {
                let expected = (try? regex.firstMatch(in: title)) != nil
                #expect(pattern.matches(title) == expected, "\(source) against \(title.debugDescription)")
            }
        }
    }

    @Test(arguments: [
        #"(a)\1"#, "(?=a)b", "(?!a)b", "(?<=a)b", "(?<!a)b", "(?>a)", "a++", "a{1001}", "(a", "a)", "[a", "*a", "a**",
        #"\p{L}"#, "[[:alpha:]]", "[z-a]", #"\k<x>"#, String(repeating: "(", count: 60) + String(repeating: ")", count: 60),
        "(a{1,200}){1,200}", String(repeating: "a", count: 201),
    ])
    func whatNeedsBacktrackingIsRefusedWithOneLine(_ source: String) {
        #expect(throws: SettingsError.self) { try TitlePattern(source) }
        #expect(TitlePattern.optional(source) == nil, "a stored pattern this Pods refuses matches nothing")
    }

    @Test func aTitleOfOneHugeCharacterIsReadOnlyInPart() throws {
        let pattern = try TitlePattern("x$")
        let huge = "e" + String(repeating: "\u{301}", count: 1_000_000) + "x"
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(!pattern.matches(huge))
        #expect(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < 1)
        #expect(pattern.matches(String(repeating: "y", count: 299) + "x"))
        #expect(!pattern.matches(String(repeating: "y", count: 300) + "x"), "only the first 300 characters are read")
    }
}
