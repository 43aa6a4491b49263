internal import CLibCrypto

/// SHA-1, from the system's libcrypto (OpenSSL, already there as
/// libcurl's): Podcast Index signs its requests with it. Not for secrets.
public enum SHA1 {
    /// The digest of `bytes`, as 40 lowercase hex digits ("" if libcrypto
    /// cannot make one: a broken system library, and a request signed with
    /// it is refused by the server, one clear error).
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let made = Array(bytes).withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha1(), nil)
        }
        guard made == 1, length == 20 else { return "" }
        return digest.prefix(20).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }
}
