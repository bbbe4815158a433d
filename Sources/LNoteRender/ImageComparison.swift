import LNoteBitmap

#if canImport(Glibc)
import Glibc
#endif

/// How much two renders may differ and still count as the same picture.
public struct ComparisonTolerance: Sendable, Equatable {
    /// A pixel "differs" when any channel differs by more than this (0…255).
    public var channelTolerance: Int
    /// At most this many pixels may differ (by more than `channelTolerance`).
    public var maxDifferingPixels: Int

    public init(channelTolerance: Int = 0, maxDifferingPixels: Int = 0) {
        self.channelTolerance = channelTolerance
        self.maxDifferingPixels = maxDifferingPixels
    }

    public static let exact = ComparisonTolerance()
}

/// How many pixels may differ: a count, or a percentage of the expected image's pixels
/// (`diff --max-differing`, `snapshot --max-differing`, the snapshot override files).
public enum PixelAllowance: Sendable, Equatable, CustomStringConvertible {
    case pixels(Int)
    case percent(Double)

    /// Why a text is not an allowance.
    public struct ParseError: Error, Sendable, Equatable {
        public let message: String
    }

    /// `N` (0 or more) or `P%` (0% to 100%).
    public init(parsing text: String) throws(ParseError) {
        if text.hasSuffix("%") {
            guard let p = Double(text.dropLast()), p.isFinite, (0...100).contains(p) else {
                throw ParseError(message: "'\(text)' is not a percentage from 0% to 100%")
            }
            self = .percent(p)
        } else {
            guard let n = Int(text), n >= 0 else {
                throw ParseError(message: "'\(text)' is not a pixel count (0 or more) or a percentage (0.5%)")
            }
            self = .pixels(n)
        }
    }

    /// The allowance in pixels for an image of `total` pixels (a percentage rounds down).
    public func pixels(of total: Int) -> Int {
        switch self {
        case .pixels(let n): return n
        case .percent(let p): return Int((Double(total) * p / 100).rounded(.down))
        }
    }

    public var description: String {
        switch self {
        case .pixels(let n): return String(n)
        case .percent(let p): return (p == p.rounded() ? String(Int(p)) : String(p)) + "%"
        }
    }
}

/// The statistics of comparing an expected image with an actual one.
public struct ComparisonResult: Sendable, Equatable, CustomStringConvertible {
    public var expectedSize: (width: Int, height: Int)
    public var actualSize: (width: Int, height: Int)
    /// Pixels with any channel differing by more than the tolerance.
    public var differingPixels: Int
    /// Pixels with any difference at all.
    public var changedPixels: Int
    public var totalPixels: Int
    /// The largest per-channel difference (0…255).
    public var maxChannelDifference: Int
    /// Mean absolute per-channel difference (0…255).
    public var meanChannelDifference: Double
    /// Peak signal-to-noise ratio over all channels, in dB; infinite for identical images.
    public var psnr: Double
    public var tolerance: ComparisonTolerance

    public var sizesMatch: Bool { expectedSize == actualSize }
    public var identical: Bool { sizesMatch && changedPixels == 0 }
    public var passes: Bool { sizesMatch && differingPixels <= tolerance.maxDifferingPixels }

    public static func == (a: ComparisonResult, b: ComparisonResult) -> Bool {
        a.description == b.description
    }

    public var description: String {
        guard sizesMatch else {
            return "size differs: expected \(expectedSize.width)×\(expectedSize.height), actual \(actualSize.width)×\(actualSize.height)"
        }
        let share = totalPixels == 0 ? 0 : Double(differingPixels) / Double(totalPixels) * 100
        let psnrText = psnr.isInfinite ? "inf" : String(format1: psnr)
        return "\(differingPixels) of \(totalPixels) pixels (\(String(format3: share))%) differ by more than "
            + "\(tolerance.channelTolerance)/255 (allowed \(tolerance.maxDifferingPixels)); "
            + "\(changedPixels) changed at all; max channel difference \(maxChannelDifference); "
            + "mean \(String(format3: meanChannelDifference)); PSNR \(psnrText) dB"
    }
}

/// Pixel-by-pixel comparison of two RGBA images, as used by the golden-image tests and
/// `lnote-render diff`. Both images are compared in straight alpha.
public enum ImageComparison {
    public static func compare(expected: Bitmap, actual: Bitmap,
                               tolerance: ComparisonTolerance = .exact) -> ComparisonResult {
        var result = ComparisonResult(
            expectedSize: (expected.width, expected.height), actualSize: (actual.width, actual.height),
            differingPixels: 0, changedPixels: 0, totalPixels: expected.width * expected.height,
            maxChannelDifference: 0, meanChannelDifference: 0, psnr: .infinity, tolerance: tolerance)
        guard result.sizesMatch else {
            result.differingPixels = max(result.totalPixels, actual.width * actual.height)
            result.psnr = 0
            return result
        }
        let e = expected.unpremultiplied().pixels
        let a = actual.unpremultiplied().pixels
        var sumAbs = 0
        var sumSquares = 0
        for i in stride(from: 0, to: e.count, by: 4) {
            var worst = 0
            for c in 0..<4 {
                let d = abs(Int(e[i + c]) - Int(a[i + c]))
                sumAbs += d
                sumSquares += d * d
                worst = max(worst, d)
            }
            if worst > 0 { result.changedPixels += 1 }
            if worst > tolerance.channelTolerance { result.differingPixels += 1 }
            result.maxChannelDifference = max(result.maxChannelDifference, worst)
        }
        let samples = Double(e.count)
        result.meanChannelDifference = Double(sumAbs) / samples
        if sumSquares > 0 {
            let mse = Double(sumSquares) / samples
            result.psnr = 10 * log10(255 * 255 / mse)
        }
        return result
    }

    /// The most pixels a difference image may have: the renderer's page limit. Two images of
    /// one size are each within the decoder's limit, so only very different shapes exceed it
    /// (1000000×100 and 100×1000000 would ask for 4 TB).
    public static let maxDiffImagePixels = RenderOptions.defaultMaxPixels

    /// The size of the difference image of two images: the larger width by the larger height.
    public static func diffImageSize(expected: Bitmap, actual: Bitmap) -> (width: Int, height: Int) {
        (max(expected.width, actual.width), max(expected.height, actual.height))
    }

    /// Whether the difference image of two images stays within `maxDiffImagePixels`.
    public static func diffImageFits(expected: Bitmap, actual: Bitmap) -> Bool {
        let size = diffImageSize(expected: expected, actual: actual)
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        return !overflow && pixels <= maxDiffImagePixels
    }

    /// A picture of where two same-size images differ: the expected image faded to a light
    /// grey, with every changed pixel painted — red when over the tolerance, yellow when within
    /// it — and stronger the larger the difference, so a reviewer sees both where and how much.
    /// Nil, with nothing allocated, when it would exceed `maxDiffImagePixels` (`diffImageFits`).
    public static func diffImage(expected: Bitmap, actual: Bitmap, channelTolerance: Int) -> Bitmap? {
        guard diffImageFits(expected: expected, actual: actual) else { return nil }
        let (width, height) = diffImageSize(expected: expected, actual: actual)
        var out = Bitmap(width: width, height: height, fill: 255, isPremultiplied: false)
        let e = expected.unpremultiplied()
        let a = actual.unpremultiplied()
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let inE = x < e.width && y < e.height
                let inA = x < a.width && y < a.height
                guard inE && inA else {
                    // Outside one of the images: magenta marks the size mismatch.
                    out.pixels[o] = 255; out.pixels[o + 1] = 0; out.pixels[o + 2] = 255
                    continue
                }
                let ei = (y * e.width + x) * 4
                let ai = (y * a.width + x) * 4
                var worst = 0
                for c in 0..<4 { worst = max(worst, abs(Int(e.pixels[ei + c]) - Int(a.pixels[ai + c]))) }
                if worst == 0 {
                    // Luma of the expected pixel over white, faded toward white.
                    let alpha = Int(e.pixels[ei + 3])
                    let luma = (Int(e.pixels[ei]) * 77 + Int(e.pixels[ei + 1]) * 150 + Int(e.pixels[ei + 2]) * 29) >> 8
                    let onWhite = (luma * alpha + 255 * (255 - alpha)) / 255
                    let faded = UInt8(200 + onWhite * 55 / 255)
                    out.pixels[o] = faded; out.pixels[o + 1] = faded; out.pixels[o + 2] = faded
                } else {
                    let strength = UInt8(min(255, 96 + worst * 4))
                    if worst > channelTolerance {
                        out.pixels[o] = strength; out.pixels[o + 1] = 0; out.pixels[o + 2] = 0
                    } else {
                        out.pixels[o] = strength; out.pixels[o + 1] = strength; out.pixels[o + 2] = 0
                    }
                }
            }
        }
        return out
    }
}

extension String {
    init(format1 v: Double) { self = Self.fixed(v, digits: 1) }
    init(format3 v: Double) { self = Self.fixed(v, digits: 3) }

    /// Fixed-point formatting without Foundation's `String(format:)`.
    static func fixed(_ v: Double, digits: Int) -> String {
        guard v.isFinite else { return String(v) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        let whole = Int(scaled / scale)
        let frac = Int(scaled - Double(whole) * scale)
        var fracText = String(frac)
        while fracText.count < digits { fracText = "0" + fracText }
        return (v < 0 && scaled != 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + fracText : "")
    }
}
