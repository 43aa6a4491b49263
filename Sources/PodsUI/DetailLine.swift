import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser

/// One line of the details pane; some lines do something on Enter.
public struct DetailLine: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        /// Opens the link with `xdg-open`.
        case open(String)
        /// Jumps to the chapter (from 1) of the episode shown.
        case chapter(Int)
        /// Subscribes to the feed (a search result).
        case subscribe(String)
        /// Plays the episode shown from this many seconds (a soundbite).
        case playFrom(Double)
        /// Plays audio that is no episode (a show's trailer).
        case playURL(String)
    }

    public enum Kind: Equatable, Sendable { case title, heading, text, facts }

    public var text: String
    public var kind: Kind
    public var action: Action?

    public init(_ text: String, _ kind: Kind = .text, action: Action? = nil) {
        self.text = text
        self.kind = kind
        self.action = action
    }
}
