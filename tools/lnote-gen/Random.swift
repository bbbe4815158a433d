import Foundation

// Deterministic pseudo-random numbers for lnote-gen.
//
// Every byte the generator writes is derived from the seed given on the command line, so
// the same command always produces byte-identical packages. The system RNG is never used.

/// xoshiro256** seeded through SplitMix64 (the seeding procedure its authors recommend).
struct Random {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    init(seed: UInt64) {
        var sm = seed
        func splitMix(_ x: inout UInt64) -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(&sm); s1 = splitMix(&sm); s2 = splitMix(&sm); s3 = splitMix(&sm)
    }

    /// A stream for one named use of a seed (each preset gets its own ids from the same seed).
    /// FNV-1a of the name: stable across runs, unlike Swift's randomly seeded Hasher.
    init(seed: UInt64, salt: String) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in salt.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        self.init(seed: seed ^ h)
    }

    /// An independent stream for a sub-task (a page, a document), so that changing how
    /// much one page consumes does not shift everything generated after it.
    mutating func fork(_ salt: UInt64) -> Random {
        Random(seed: next() ^ (salt &* 0xD1B5_4A32_D192_ED03))
    }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) <<< 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 <<< 45
        return result
    }

    /// Uniform in [0, 1).
    @inline(__always)
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [lo, hi).
    @inline(__always)
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * unit()
    }

    /// Uniform integer in the closed range.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        var u = unit()
        if u < 1e-300 { u = 1e-300 }
        let v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// A canonical upper-case version-4 UUID made from this stream.
    mutating func uuid() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = next(), b = next()
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i))) }
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex: [Character] = Array("0123456789ABCDEF")
        var out = ""
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append("-") }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return out
    }
}

infix operator <<< : BitwiseShiftPrecedence

@inline(__always)
private func <<< (x: UInt64, k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
