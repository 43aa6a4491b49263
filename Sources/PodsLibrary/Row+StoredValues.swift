import Foundation
import GRDB
import PodsFeedParser

/// What the library reads back is outside input: a row may hold what an
/// older, laxer Pods or a hand left there (1e300, NaN, −1, a time past
/// any episode), and a stored time turned into an Int or a `Duration`
/// traps. Every read of a stored time or date goes through here, so each
/// such value passes the check it passed when it was parsed: once, in one
/// place, whichever query reads it. A number out of range reads as none; a
/// value that is no number at all (a blob, text) is an error, as any
/// column of the wrong type is (`LibraryCorruptRowTests`).
extension Row {
    /// A time in an episode (seconds, `MediaSeconds`' range), else nil.
    func storedSeconds(_ column: String) throws -> Double? {
        MediaSeconds.checked(try decode(Double?.self, forColumn: column))
    }

    /// A moment (Unix seconds within 1e11 of 1970: the years −1200 to 5138, old
    /// radio shows' dates included), else nil.
    func storedDate(_ column: String) throws -> Date? {
        guard let seconds = try decode(Double?.self, forColumn: column), seconds.isFinite, abs(seconds) < Self.storedDateReach
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Unix seconds further from 1970 than this are no date a Pods wrote.
    static let storedDateReach: Double = 1e11
}
