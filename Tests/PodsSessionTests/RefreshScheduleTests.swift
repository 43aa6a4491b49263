import Foundation
import PodsFeedParser
@testable import PodsLibrary
@testable import PodsSession
import Testing

/// When the background refresh checks a podcast next: the interval, the
/// backoff, and what a show says of how often it comes out.
struct RefreshScheduleTests {
    static let last = Date(timeIntervalSince1970: 1_800_000_000)

    static func wait(interval: TimeInterval, _ frequency: UpdateFrequency?, failures: Int = 0) throws -> TimeInterval {
        var podcast = Podcast(id: 7, feedURL: "https://e.com/f.xml", title: "T", subscribedAt: last)
        podcast.lastRefreshedAt = last
        podcast.refreshFailures = failures
        podcast.details.updateFrequency = frequency
        return try #require(RefreshSchedule(interval: interval).next(for: podcast)).timeIntervalSince(last)
    }

    static func around(_ wait: TimeInterval, _ expected: TimeInterval) -> Bool {
        abs(wait - expected) <= expected * RefreshSchedule.jitter
    }

    @Test func aShowsUpdateFrequencyLengthensTheWaitUpToADay() throws {
        let hour: TimeInterval = 3600
        #expect(Self.around(try Self.wait(interval: hour, nil), hour))
        // Weekly: a quarter of a week is 42 h, so a day.
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=WEEKLY", complete: false)), 24 * hour))
        // Daily: six hours.
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=DAILY", complete: false)), 6 * hour))
        // Hourly, or a rule not understood, or words alone: the interval.
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=HOURLY", complete: false)), hour))
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=SECONDLY", complete: false)), hour))
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: "Weekly", rule: nil, complete: false)), hour))
        // Complete: a week.
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=DAILY", complete: true)), 7 * 24 * hour))
        // A listener's longer interval stands.
        #expect(Self.around(try Self.wait(interval: 2 * 24 * hour, UpdateFrequency(text: nil, rule: "FREQ=DAILY", complete: false)),
                            2 * 24 * hour))
        // Failures double the wait the show set, up to the longer of a day and that wait.
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=DAILY", complete: false), failures: 1),
                            12 * hour))
        #expect(Self.around(try Self.wait(interval: hour, UpdateFrequency(text: nil, rule: "FREQ=DAILY", complete: false), failures: 9),
                            24 * hour))
    }
}
