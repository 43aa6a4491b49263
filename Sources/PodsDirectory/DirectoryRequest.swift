import Foundation
import PodsHTTP

extension HTTPClient {
    /// GETs a directory's JSON answer as `T`, each failure one line naming
    /// `directory`; `refused` names a 401 or 403 (a key the service turned down).
    func directoryAnswer<T: Decodable>(_ type: T.Type, from url: String, directory: String, refused: String? = nil,
                                       headers: [(name: String, value: String)] = []) async throws(DirectoryError) -> T {
        let response: HTTPResponse
        do { response = try await get(url, headers: headers) } catch {
            guard let status = error.status else { throw DirectoryError("\(directory) cannot be reached: \(error.message)") }
            if let refused, status == 401 || status == 403 { throw DirectoryError("\(refused) (\(status))") }
            throw DirectoryError("\(directory) answered \(status)")
        }
        guard (200..<300).contains(response.status) else { throw DirectoryError("\(directory) answered \(response.status)") }
        return try DirectoryAnswers.decode(T.self, response.body, directory: directory)
    }
}
