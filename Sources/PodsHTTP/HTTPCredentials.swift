import Foundation

/// A user name and password for HTTP authentication (Basic or Digest).
public struct HTTPCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `url` without a `user:password@` in it, and those credentials
    /// (percent-decoded); `url` as it is when it holds none.
    public static func splitting(_ url: String) -> (url: String, credentials: HTTPCredentials?) {
        guard var parts = URLComponents(string: url), let name = parts.user else { return (url, nil) }
        let credentials = HTTPCredentials(user: name.removingPercentEncoding ?? name,
                                          password: (parts.password ?? "").removingPercentEncoding ?? "")
        parts.user = nil
        parts.password = nil
        return (parts.string ?? url, credentials)
    }
}
