/// A user name and password for HTTP authentication (Basic or Digest).
public struct HTTPCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}
