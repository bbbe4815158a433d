import CXXHash

/// A fast, deterministic 128-bit hash of bytes, used to fingerprint the inputs of a thumbnail:
/// XXH3-128 (xxHash 0.8, the system's libxxhash), stable across runs, processes and machines.
///
/// Not cryptographic: it guards against stale derived data, not against an adversary (a
/// collision would only leave a thumbnail stale, never touch a source file).
///
/// `hash(_:)` of one byte sequence is its XXH3-128, written as `xxhsum -H2` writes it (32
/// lowercase hexadecimal digits, the canonical big-endian form), so an asset's recorded hash can
/// be checked with that command. A hash of several parts (`combine` each, then `finalize`) is
/// the XXH3-128 of, for each part in order, its length (8 bytes, little-endian) and its own
/// XXH3-128 (16 bytes, canonical): so parts never run into each other ("ab" + "c" is not
/// "a" + "bc"), and no part is copied.
public struct ContentHasher: Sendable {
    /// 24 bytes for each part combined so far.
    private var parts: [UInt8] = []

    public init() {}

    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var length = UInt64(bytes.count).littleEndian
        withUnsafeBytes(of: &length) { parts.append(contentsOf: $0) }
        Self.appendCanonical(XXH3_128bits(bytes.baseAddress, bytes.count), to: &parts)
    }

    public mutating func combine(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { combine($0) }
    }

    public mutating func combine(_ text: String) {
        var t = text
        t.withUTF8 { combine(UnsafeRawBufferPointer($0)) }
    }

    public mutating func combine(_ value: Int) {
        var v = UInt64(bitPattern: Int64(value)).littleEndian
        withUnsafeBytes(of: &v) { combine($0) }
    }

    /// 32 lowercase hexadecimal digits.
    public func finalize() -> String {
        parts.withUnsafeBytes { Self.hex(XXH3_128bits($0.baseAddress, $0.count)) }
    }

    /// The hash of one byte sequence: its XXH3-128, as `xxhsum -H2` prints it.
    public static func hash(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { hex(XXH3_128bits($0.baseAddress, $0.count)) }
    }

    /// The canonical form: the high 64 bits, then the low, each big-endian.
    private static func appendCanonical(_ h: XXH128_hash_t, to out: inout [UInt8]) {
        for word in [h.high64, h.low64] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
    }

    private static func hex(_ h: XXH128_hash_t) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { out in
            var i = 0
            for word in [h.high64, h.low64] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    out[i] = digits.utf8Start[Int((word >> UInt64(shift)) & 15)]
                    i += 1
                }
            }
            return 32
        }
    }
}
