/// A fast, deterministic 128-bit hash of bytes, used to fingerprint the inputs of a thumbnail.
///
/// Not cryptographic: it guards against stale derived data, not against an adversary (a
/// collision would only leave a thumbnail stale, never touch a source file). Two independent
/// 64-bit lanes, each a multiply–xorshift mix over 8-byte words, with the length folded in,
/// so that different inputs almost never share a fingerprint. Stable across runs, processes
/// and machines (no per-process seed, unlike Swift's `Hasher`).
public struct ContentHasher: Sendable {
    private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private var length: UInt64 = 0

    public init() {}

    private static let m1: UInt64 = 0xFF51_AFD7_ED55_8CCD
    private static let m2: UInt64 = 0xC4CE_B9FE_1A85_EC53

    @inline(__always)
    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* Self.m1
        a ^= a >> 29
        b = (b &+ word) &* Self.m2
        b ^= b >> 31
        b = b &+ a
    }

    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            mix(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        // The tail word also carries its own length so "ab" and "ab\0" differ.
        mix(tail ^ (UInt64(n & 7) << 56) ^ 0xA5)
    }

    public mutating func combine(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { combine($0) }
    }

    public mutating func combine(_ text: String) {
        var t = text
        t.withUTF8 { combine(UnsafeRawBufferPointer($0)) }
    }

    public mutating func combine(_ value: Int) {
        var v = UInt64(bitPattern: Int64(value))
        withUnsafeBytes(of: &v) { combine($0) }
    }

    /// 32 lowercase hexadecimal digits.
    public func finalize() -> String {
        var x = a ^ (length &* 0x9E37_79B9_7F4A_7C15)
        var y = b ^ length
        x = (x ^ (x >> 33)) &* Self.m1
        x ^= x >> 33
        y = (y ^ (y >> 33)) &* Self.m2
        y ^= y >> 33
        x = x &+ y
        y = y &+ x
        return Self.hex(x) + Self.hex(y)
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The hash of one byte sequence.
    public static func hash(_ bytes: [UInt8]) -> String {
        var h = ContentHasher()
        h.combine(bytes)
        return h.finalize()
    }
}
