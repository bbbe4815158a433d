// A stroke's samples as one immutable BLOB: 16 bytes per sample, little-endian.
//
//   offset  0  Int32  x   (0.1 pt, any 32-bit value)
//   offset  4  Int32  y   (0.1 pt, any 32-bit value)
//   offset  8  UInt32 r | p << 17
//                     r: bits 0-16  (0...100000 < 2^17, the spec's radius range)
//                     p: bits 17-26 (0...1000 < 2^10, the spec's pressure range)
//                     bits 27-31: zero
//   offset 12  Int32  t   (ms, any 32-bit value: decreasing and negative times are kept)
//
// Every valid sample (section 4 and 7 of the format) fits exactly: x, y and t take the whole
// 32-bit range the parser accepts, and r and p, whose ranges the parser enforces, need 17 and
// 10 bits. Decoding checks the same ranges and the unused bits, so a damaged BLOB is an error,
// never a different stroke.

import LNoteFormat

public enum SampleBlob {
    public static let bytesPerSample = 16
    static let radiusBits: UInt32 = 17
    static let radiusMask: UInt32 = (1 << 17) - 1
    static let pressureMask: UInt32 = (1 << 10) - 1

    /// The BLOB of a stroke's points (`x, y, r, p, t` per sample). The points must be valid
    /// (as parsed: r and p within their ranges); anything else is a programming error.
    public static func encode(_ points: [Int32]) -> [UInt8] {
        let samples = points.count / Stroke.fieldsPerSample
        var out = [UInt8](repeating: 0, count: samples * bytesPerSample)
        points.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBytes { dst in
                var i = 0, o = 0
                for _ in 0..<samples {
                    let r = UInt32(bitPattern: src[i + 2]), p = UInt32(bitPattern: src[i + 3])
                    precondition(r <= 100_000 && p <= 1000, "sample outside the format's ranges")
                    dst.storeBytes(of: src[i].littleEndian, toByteOffset: o, as: Int32.self)
                    dst.storeBytes(of: src[i + 1].littleEndian, toByteOffset: o + 4, as: Int32.self)
                    dst.storeBytes(of: (r | p << radiusBits).littleEndian, toByteOffset: o + 8, as: UInt32.self)
                    dst.storeBytes(of: src[i + 4].littleEndian, toByteOffset: o + 12, as: Int32.self)
                    i += 5
                    o += 16
                }
            }
        }
        return out
    }

    /// Why a BLOB is not a valid sample array.
    public struct DecodeError: Error, Sendable, Equatable {
        public var message: String
    }

    /// The points of a BLOB; an error when its length is not a multiple of 16, a sample has
    /// an unused bit set, or r or p is outside the format's range.
    public static func decode(_ blob: UnsafeRawBufferPointer) throws(DecodeError) -> [Int32] {
        guard blob.count % bytesPerSample == 0 else {
            throw DecodeError(message: "the samples BLOB has \(blob.count) bytes, not a multiple of 16")
        }
        let samples = blob.count / bytesPerSample
        var points = [Int32](repeating: 0, count: samples * Stroke.fieldsPerSample)
        var bad: Int? = nil
        points.withUnsafeMutableBufferPointer { dst in
            var i = 0, o = 0
            for s in 0..<samples {
                let packed = UInt32(littleEndian: blob.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self))
                let r = packed & radiusMask, p = packed >> radiusBits
                if r > 100_000 || p > 1000 { bad = s; break }
                dst[i] = Int32(littleEndian: blob.loadUnaligned(fromByteOffset: o, as: Int32.self))
                dst[i + 1] = Int32(littleEndian: blob.loadUnaligned(fromByteOffset: o + 4, as: Int32.self))
                dst[i + 2] = Int32(bitPattern: r)
                dst[i + 3] = Int32(bitPattern: p)
                dst[i + 4] = Int32(littleEndian: blob.loadUnaligned(fromByteOffset: o + 12, as: Int32.self))
                i += 5
                o += 16
            }
        }
        if let bad {
            throw DecodeError(message: "sample \(bad) of the BLOB has a radius or pressure outside the format's range, or unused bits set")
        }
        return points
    }

    public static func decode(_ blob: [UInt8]) throws(DecodeError) -> [Int32] {
        let result = blob.withUnsafeBytes { raw in Result { () throws(DecodeError) in try decode(raw) } }
        return try result.get()
    }
}
