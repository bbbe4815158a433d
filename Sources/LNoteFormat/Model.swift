// The decoded form of a `.lnote` package (format version 1, see shared/lnote-format.md).
//
// These are plain values: the parser produces them, the rasterizer and the regenerator consume
// them. Units are the file's own (0.1 pt, thousandths) so nothing is lost in decoding; the
// rasterizer converts to pixels.

/// A UUID in canonical 8-4-4-4-12 hexadecimal form. Ids are compared case-insensitively, so the
/// stored form is upper-cased; `original` keeps the spelling found in the file.
public struct LNoteID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Upper-case canonical form, safe to use in a file name.
    public let canonical: String
    /// The id exactly as written in the file.
    public let original: String

    /// Nil unless `string` is a canonical UUID (36 characters, hyphens at 8, 13, 18 and 23, hex
    /// digits of either case elsewhere). Checked before any path is built from an id.
    public init?(_ string: String) {
        let bytes = Array(string.utf8)
        guard bytes.count == 36 else { return nil }
        var upper = [UInt8]()
        upper.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return nil }
                upper.append(b)
                continue
            }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                upper.append(b)
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                upper.append(b - 32)
            default:
                return nil
            }
        }
        self.canonical = String(decoding: upper, as: UTF8.self)
        self.original = string
    }

    public static func == (a: LNoteID, b: LNoteID) -> Bool { a.canonical == b.canonical }
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
    public static func < (a: LNoteID, b: LNoteID) -> Bool { a.canonical < b.canonical }
    public var description: String { original }
}

/// An sRGB colour with straight (not premultiplied) alpha, from `#RRGGBB` or `#RRGGBBAA`.
public struct Color: Hashable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (hex digits of either case); nil for anything else.
    public init?(hex: String) {
        // One pass over the UTF-8, no intermediate arrays (every stroke has a colour).
        var value: UInt32 = 0
        var count = 0
        for c in hex.utf8 {
            if count == 0 {
                guard c == UInt8(ascii: "#") else { return nil }
            } else {
                guard count < 9 else { return nil }
                let nibble: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(nibble)
            }
            count += 1
        }
        switch count {
        case 7:
            self.init(r: UInt8(value >> 16), g: UInt8(value >> 8 & 0xFF), b: UInt8(value & 0xFF), a: 255)
        case 9:
            self.init(r: UInt8(value >> 24), g: UInt8(value >> 16 & 0xFF), b: UInt8(value >> 8 & 0xFF), a: UInt8(value & 0xFF))
        default:
            return nil
        }
    }

    public static let white = Color(r: 255, g: 255, b: 255)
    /// The default colour of template lines and dots.
    public static let defaultLine = Color(r: 0xC8, g: 0xD2, b: 0xE0)

    /// `#RRGGBB`, or `#RRGGBBAA` when not opaque.
    public var hexString: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = [UInt8(ascii: "#")]
        for c in (a == 255 ? [r, g, b] : [r, g, b, a]) {
            out.append(digits[Int(c >> 4)]); out.append(digits[Int(c & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The drawing tool of a stroke. A missing or unknown tool is drawn as `pen`.
public enum Tool: String, Sendable, Hashable {
    case pen, pencil, highlighter
}

/// A pen stroke in the quantized integer encoding: five `Int32` per sample, flat and
/// contiguous (`x, y, r, p, t`), exactly as in the file. x, y, r in 0.1 pt; p in 1/1000; t in ms.
public struct Stroke: Sendable, Equatable {
    public static let fieldsPerSample = 5

    public var tool: Tool
    public var color: Color
    /// `sampleCount * 5` values: x, y, r, p, t for each sample in drawing order.
    public var points: [Int32]

    public init(tool: Tool, color: Color, points: [Int32]) {
        precondition(points.count % Stroke.fieldsPerSample == 0, "points come in groups of five")
        self.tool = tool
        self.color = color
        self.points = points
    }

    public var sampleCount: Int { points.count / Stroke.fieldsPerSample }
}

/// An image placed on the page: `assets/<asset>` scaled to fill `frame`, then rotated about the
/// frame's centre.
public struct ImagePlacement: Sendable, Equatable {
    /// The asset's file name inside `assets/`, already checked to be `<UUID>.jpg` or `<UUID>.png`.
    public var asset: String
    /// x, y, width, height in 0.1 pt; width and height > 0.
    public var x: Int32, y: Int32, width: Int32, height: Int32
    /// Clockwise rotation (+x turns toward +y) in thousandths of a degree.
    public var rotation: Int
    /// 0 (invisible) to 1000 (opaque).
    public var opacity: Int

    public init(asset: String, x: Int32, y: Int32, width: Int32, height: Int32, rotation: Int = 0, opacity: Int = 1000) {
        self.asset = asset
        self.x = x; self.y = y; self.width = width; self.height = height
        self.rotation = rotation
        self.opacity = opacity
    }
}

/// One entry of a page's `elements` array. The array order is the z-order.
public struct Element: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case stroke(Stroke)
        case image(ImagePlacement)
        /// An element of a type this version does not know: kept (the journal may address it,
        /// compaction writes it back) but not drawn.
        case unknown(type: String)
    }

    /// The element's `id` as written (compared case-insensitively), or nil when absent.
    public var id: String?
    public var kind: Kind
    /// The text is a range of a buffer that may hold more: a parsed page's elements all share
    /// the content file's bytes instead of each copying its own (the file is mostly points, so
    /// per-element copies doubled the bytes written while decoding).
    private var jsonStorage: [UInt8]
    private var jsonRange: Range<Int>

    /// The element's JSON text exactly as read. Compaction writes this back, so keys this
    /// version does not know survive a rewrite.
    public var json: [UInt8] {
        get {
            jsonRange.count == jsonStorage.count ? jsonStorage : Array(jsonStorage[jsonRange])
        }
        set {
            jsonStorage = newValue
            jsonRange = 0..<newValue.count
        }
    }

    public init(id: String?, kind: Kind, json: [UInt8]) {
        self.id = id
        self.kind = kind
        self.jsonStorage = json
        self.jsonRange = 0..<json.count
    }

    /// An element whose text is `source[range]`, sharing `source` (no copy).
    init(id: String?, kind: Kind, source: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= source.count, "element text out of its buffer")
        self.id = id
        self.kind = kind
        self.jsonStorage = source
        self.jsonRange = range
    }

    /// Equal when id, kind and JSON text are equal, wherever the text is stored.
    public static func == (a: Element, b: Element) -> Bool {
        guard a.id == b.id, a.kind == b.kind, a.jsonRange.count == b.jsonRange.count else { return false }
        return a.jsonStorage[a.jsonRange].elementsEqual(b.jsonStorage[b.jsonRange])
    }
}

/// The page's paper: a colour and an optional template of lines or dots.
public struct PageBackground: Sendable, Equatable {
    public enum Template: String, Sendable {
        case blank, ruled, grid, dots
    }

    public var color: Color
    public var template: Template
    /// Distance between lines or dots in 0.1 pt (40 to 100000).
    public var spacing: Int
    public var lineColor: Color

    public init(color: Color = .white, template: Template = .blank, spacing: Int = 320, lineColor: Color = .defaultLine) {
        self.color = color
        self.template = template
        self.spacing = spacing
        self.lineColor = lineColor
    }

    public static let `default` = PageBackground()
}

/// A page's entry in `document.json`, validated.
public struct PageEntry: Sendable, Equatable {
    public var id: LNoteID
    /// Canvas size in 0.1 pt, each 1 to 200000.
    public var width: Int
    public var height: Int
    public var createdAt: String?
    public var modifiedAt: String?
    /// The app's count after its last save; informative only.
    public var elementCount: Int?
    public var background: PageBackground

    public init(id: LNoteID, width: Int, height: Int, createdAt: String? = nil, modifiedAt: String? = nil,
                elementCount: Int? = nil, background: PageBackground = .default) {
        self.id = id
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.elementCount = elementCount
        self.background = background
    }
}
