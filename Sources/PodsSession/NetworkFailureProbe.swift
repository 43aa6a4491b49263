import PodsHTTP
import PodsPlayback

/// Why a network stream failed, asked of the server itself with one small
/// request: GStreamer's HTTP source says it differently with each plugin
/// set (with libsoup 3, as GNOME installs it, a refused connection, a name
/// that does not resolve and a failed TLS handshake all read "Internal data
/// stream error"), so the listener gets libcurl's reason instead, the same
/// on every desktop.
package enum NetworkFailureProbe {
    /// Limits of the one request: a dead or silent server is told in seconds.
    package static let options: HTTPClient.Options = {
        var options = HTTPClient.Options()
        options.connectTimeout = .seconds(5)
        options.lowSpeedTime = .seconds(5)
        options.deadline = .seconds(8)
        options.priority = .urgent
        return options
    }()

    /// The failure, or nil when the server answers (GStreamer's own message then stands).
    /// Blocks the calling thread (PlaybackEngine's bus thread) for up to `options.deadline`.
    /// The message leaves out the address: whoever shows it says what could not play.
    package static func explain(_ uri: String) -> PlaybackError? {
        var client = HTTPClient()
        client.options = options
        do throws(HTTPError) {
            try client.streamingGet(uri, range: 0..<1, head: { _ in false }, body: { _ in false })
            return nil
        } catch {
            switch (error.code, error.status) {
            case (.status, 404?), (.status, 410?): return PlaybackError(.notFound, "the server answered HTTP \(error.status ?? 404): not found")
            case (.status, let status?): return PlaybackError(.network, "the server answered HTTP \(status)")
            case (.timedOut, _): return PlaybackError(.network, "the server did not answer in time")
            default:
                // libcurl's reason, without the address HTTPClient puts before it.
                let reason = error.message.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? error.message
                return PlaybackError(.network, reason)
            }
        }
    }
}
