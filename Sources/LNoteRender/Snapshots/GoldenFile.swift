// One golden file held against one rendered page: how it is read, compared, and how the images
// beside it are written. `snapshot` (SnapshotRunner) and `assertSnapshot` (LNoteSnapshotTesting)
// differ in how goldens are named and what they report, not in this.

import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat

/// A golden read from disk and compared with a page's pixels.
public struct GoldenComparison: Sendable {
    /// The golden file's bytes, as read (copied as-is when it is renamed or kept as an artifact).
    public var bytes: [UInt8]
    public var expected: Bitmap
    public var result: ComparisonResult
    /// The renderer version the golden says it was recorded by; nil when it does not say.
    public var rendererVersion: String?

    /// Whether the golden was recorded by another renderer version than `version`.
    public func recordedByAnother(than version: String) -> Bool { rendererVersion.map { $0 != version } ?? false }

    /// The diff image of a failed comparison as a PNG; nil when it would be too large or cannot be
    /// encoded.
    public func diffPNG(actual: Bitmap) -> [UInt8]? {
        guard let diff = ImageComparison.diffImage(expected: expected, actual: actual,
                                                   channelTolerance: result.tolerance.channelTolerance) else { return nil }
        return try? PNGEncoder.encode(diff)
    }
}

public enum GoldenFile {
    /// The largest golden file read.
    public static let maxBytes = 1 << 30

    /// Reads and decodes the golden at `path` and compares `actual` with it; `tolerance` is given
    /// the golden's pixel count (an allowance in percent needs it). Throws a message naming the
    /// file when it cannot be read or decoded.
    public static func compare(_ actual: Bitmap, withGoldenAt path: String,
                               tolerance: (_ goldenPixels: Int) -> ComparisonTolerance) throws(GoldenFileError) -> GoldenComparison {
        let bytes: [UInt8], expected: Bitmap
        do {
            bytes = try FileIO.readRegularFile(atPath: path, display: path, maxBytes: maxBytes)
            expected = try ImageDecoder.decode(bytes)
        } catch {
            throw GoldenFileError(message: "the golden \(path) cannot be read: \(error)")
        }
        let result = ImageComparison.compare(expected: expected, actual: actual, tolerance: tolerance(expected.width * expected.height))
        return GoldenComparison(bytes: bytes, expected: expected, result: result,
                                rendererVersion: GoldenMetadata.textChunks(ofPNG: bytes)[GoldenMetadata.rendererVersionKeyword])
    }

    /// Writes `bytes` atomically to `path`, creating its directory; the reason on failure.
    public static func write(_ bytes: [UInt8], to path: String) -> String? {
        do {
            let dir = AtomicFile.split(path).dir
            if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            try AtomicFile.write(bytes, toPath: path, display: path)
            return nil
        } catch let error as LNoteError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}

public struct GoldenFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
