import CCrypto

// SHA-256 (FIPS 180-4): the content hash of stored assets. A standard hash, so anyone can check
// an asset with `sha256sum`, and strong enough that two different images never share a row
// (assets are stored once per content, keyed by this hash). Computed by OpenSSL's libcrypto
// (EVP_Digest), the system's owner of it.

public enum SHA256 {
    /// The digest as 64 lowercase hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in digest(bytes) { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 32-byte digest.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var md = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            md.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        // EVP_Digest fails only when the digest cannot be set up (no memory, a broken OpenSSL):
        // not an input error, and nothing sensible to return instead.
        precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return md
    }
}
