import ArgumentParser
import Foundation
import PodsClient

/// Runs `body` with a client of the session bus's podsd; a failure is one
/// line on stderr and exit status 1.
func withPlayer(_ body: (PlayerClient) async throws(PlayerClient.Failure) -> Void) async throws {
    do {
        let client = try await PlayerClient.session()
        defer { client.connection.close() }
        try await body(client)
    } catch {
        printError(error.description)
        throw ExitCode.failure
    }
}
