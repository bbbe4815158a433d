import CCodecShim
import Glibc  // Double.rounded() needs libm linked; without Glibc the link fails (round, rint undefined)
import LNoteBitmap

/// What to write, and how hard to compress.
public struct PNGEncodeOptions: Sendable {
    /// zlib/libpng settings. `.fast` is the measured choice for rendered pages; the others
    /// exist for comparison and special cases.
    public enum Compression: Sendable, Equatable {
        /// zlib level 1, per-row NONE-or-UP filter chosen by content, 64 KiB IDAT buffer.
        /// Measured on a 1668×2388 handwriting page: about a quarter of the time of libpng's
        /// level 6 with default filters, and a 23 % smaller file (NONE suits paper and ink,
        /// whose exact repeats deflate finds; UP suits photo rows).
        case fast
        /// libpng's defaults (all filters with its heuristic, Z_FILTERED) at a zlib level:
        /// `.zlibDefault(level: 6)` is what most tools write.
        case zlibDefault(level: Int)
        /// Everything explicit.
        case custom(PNGTuning)
    }

    /// RGBA (alpha kept, premultiplied input is unpremultiplied) or RGB (the alpha channel is
    /// not written: encoders never composite, so a transparent canvas is flattened onto its
    /// paper first, as an explicit pipeline step: `Bitmap.flattened(onto:)` in LNoteRaster).
    public var includeAlpha: Bool
    /// Written as pHYs in pixels per metre (rounded); nil writes no pHYs.
    public var pixelsPerInch: Double?
    /// tEXt chunks. Characters outside printable Latin-1 are replaced ("?" in values, "_" in
    /// keywords); keywords are trimmed to libpng's 1-79 characters.
    public var text: [(keyword: String, value: String)]
    /// Writes an sRGB chunk (perceptual intent): the pixels are sRGB-encoded.
    public var sRGB: Bool
    public var compression: Compression

    public init(includeAlpha: Bool = false, pixelsPerInch: Double? = nil,
                text: [(keyword: String, value: String)] = [], sRGB: Bool = true,
                compression: Compression = .fast) {
        self.includeAlpha = includeAlpha
        self.pixelsPerInch = pixelsPerInch
        self.text = text
        self.sRGB = sRGB
        self.compression = compression
    }
}

/// The libpng filter types, as libpng's PNG_FILTER_* mask bits.
public struct PNGFilterSet: OptionSet, Sendable, Equatable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let none = PNGFilterSet(rawValue: 0x08)
    public static let sub = PNGFilterSet(rawValue: 0x10)
    public static let up = PNGFilterSet(rawValue: 0x20)
    public static let average = PNGFilterSet(rawValue: 0x40)
    public static let paeth = PNGFilterSet(rawValue: 0x80)
    public static let all: PNGFilterSet = [.none, .sub, .up, .average, .paeth]
}

/// Explicit compression settings; nil means libpng's default for that setting.
public struct PNGTuning: Sendable, Equatable {
    public enum Filters: Sendable, Equatable {
        case libpngDefault
        /// Per row: NONE where at least half the pixels repeat their left neighbour, else UP.
        case adaptiveNoneOrUp
        case only(PNGFilterSet)
    }
    /// zlib strategies (zlib.h values).
    public enum Strategy: Int32, Sendable {
        case defaultStrategy = 0, filtered = 1, huffmanOnly = 2, rle = 3, fixed = 4
    }
    public var level: Int
    public var filters: Filters
    public var strategy: Strategy?
    public var memLevel: Int?
    public var windowBits: Int?
    public var bufferSize: Int?

    public init(level: Int, filters: Filters, strategy: Strategy? = nil, memLevel: Int? = nil,
                windowBits: Int? = nil, bufferSize: Int? = nil) {
        self.level = level
        self.filters = filters
        self.strategy = strategy
        self.memLevel = memLevel
        self.windowBits = windowBits
        self.bufferSize = bufferSize
    }

    /// The settings behind `Compression.fast`.
    public static let fast = PNGTuning(level: 1, filters: .adaptiveNoneOrUp, bufferSize: 65536)
}

public enum PNGEncoder {
    /// Encodes `bitmap` as an 8-bit RGB or RGBA PNG in memory.
    public static func encode(_ bitmap: Bitmap, options: PNGEncodeOptions = PNGEncodeOptions()) throws(CodecError) -> [UInt8] {
        let tuning: PNGTuning
        switch options.compression {
        case .fast: tuning = .fast
        case .zlibDefault(let level): tuning = PNGTuning(level: level, filters: .libpngDefault)
        case .custom(let t): tuning = t
        }
        guard (0...9).contains(tuning.level) else {
            throw CodecError(.invalidArgument, "PNG encode: zlib level \(tuning.level) is not 0-9")
        }
        var cOptions = lnc_png_options()
        cOptions.level = Int32(tuning.level)
        switch tuning.filters {
        case .libpngDefault: cOptions.filters = -1
        case .adaptiveNoneOrUp: cOptions.filters = LNC_PNG_FILTER_ADAPTIVE_NONE_UP
        case .only(let set): cOptions.filters = set.rawValue
        }
        cOptions.strategy = tuning.strategy.map { $0.rawValue } ?? -1
        cOptions.mem_level = Int32(clamping: tuning.memLevel ?? 0)
        cOptions.window_bits = Int32(clamping: tuning.windowBits ?? 0)
        cOptions.buffer_size = Int32(clamping: tuning.bufferSize ?? 0)
        cOptions.srgb_intent = options.sRGB ? 0 : -1  // 0 = perceptual
        if let ppi = options.pixelsPerInch, ppi > 0 {
            // At least 1 (a tiny scale would round to 0, which the shim takes as "no pHYs"),
            // at most the 31 bits PNG allows, and never through Int(_:), which traps on huge values.
            cOptions.pixels_per_metre = UInt32(min(max((ppi / 0.0254).rounded(), 1), Double(Int32.max)))
        }

        // An opaque premultiplied bitmap is already straight: skip the copy for the common case.
        let source = options.includeAlpha && bitmap.isPremultiplied && !bitmap.isOpaque
            ? bitmap.unpremultiplied() : bitmap

        // All tEXt strings in one NUL-separated buffer, so their C pointers stay valid together.
        var strings: [CChar] = []
        var offsets: [(Int, Int)] = []
        for (keyword, value) in options.text {
            let key = latin1Keyword(keyword)
            guard !key.isEmpty else {
                throw CodecError(.invalidArgument, "PNG encode: tEXt keyword \"\(keyword)\" has no usable characters")
            }
            let keyStart = strings.count
            strings += key.map { CChar(bitPattern: $0) } + [0]
            let valueStart = strings.count
            strings += latin1Text(value).map { CChar(bitPattern: $0) } + [0]
            offsets.append((keyStart, valueStart))
        }

        var out: UnsafeMutablePointer<UInt8>? = nil
        var outSize = 0
        try source.pixels.withUnsafeBufferPointer { (pixels) throws(CodecError) in
            try strings.withUnsafeBufferPointer { (chars) throws(CodecError) in
                let texts = offsets.map { lnc_png_text(keyword: chars.baseAddress! + $0.0, text: chars.baseAddress! + $0.1) }
                try texts.withUnsafeBufferPointer { (textPointer) throws(CodecError) in
                    try shimCall("PNG encode") { msg, cap in
                        lnc_png_encode(pixels.baseAddress, UInt32(source.width), UInt32(source.height),
                                       source.bytesPerRow, options.includeAlpha ? 1 : 0, &cOptions,
                                       textPointer.baseAddress, Int32(texts.count), &out, &outSize, msg, cap)
                    }
                }
            }
        }
        return takeShimBuffer(out, outSize)
    }

    /// Printable Latin-1 (32-126, 161-255) without leading, trailing or double spaces, at most
    /// 79 bytes: what the PNG spec allows in a keyword. Anything else becomes "_".
    static func latin1Keyword(_ s: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in s.unicodeScalars {
            let v = scalar.value
            let b: UInt8 = (v >= 32 && v <= 126) || (v >= 161 && v <= 255) ? UInt8(v) : UInt8(ascii: "_")
            if b == 32 && (bytes.isEmpty || bytes.last == 32) { continue }
            bytes.append(b)
            if bytes.count == 79 { break }
        }
        while bytes.last == 32 { bytes.removeLast() }
        return bytes
    }

    /// Latin-1 text for a tEXt value: printable Latin-1 and line feeds; anything else is "?".
    static func latin1Text(_ s: String) -> [UInt8] {
        s.unicodeScalars.map { scalar in
            let v = scalar.value
            return (v >= 32 && v <= 126) || (v >= 160 && v <= 255) || v == 10 ? UInt8(v) : UInt8(ascii: "?")
        }
    }
}
