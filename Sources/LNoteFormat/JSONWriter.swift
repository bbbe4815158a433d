// Writing JSON: string escaping, element JSON (`ElementJSON`: new elements, elements rebuilt from
// level-2 storage), and content snapshots.
//
// Existing elements are never re-serialized: a snapshot writes each element's `json` bytes as
// they were read, so keys a newer app added survive a rewrite.

/// Appends JSON text to a byte buffer.
public struct JSONWriter {
    public var bytes: [UInt8] = []

    public init() {}

    public mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

    public mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }

    /// A JSON string literal: `"`, `\` and control characters escaped; everything else as UTF-8.
    public mutating func string(_ s: String) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(c >> 4)]); bytes.append(hex[Int(c & 15)])
            default: bytes.append(c)
            }
        }
        bytes.append(0x22)
    }

    public mutating func int<T: BinaryInteger>(_ v: T) { raw(String(v)) }

    public mutating func stringOrNull(_ s: String?) {
        if let s { string(s) } else { raw("null") }
    }

    /// Comma-separated decimal integers, without a String per number (a stroke's `points`).
    public mutating func integers(_ values: [Int32]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            for (i, v) in values.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                var m = v < 0 ? UInt32(bitPattern: 0 &- v) : UInt32(v)
                if v < 0 { bytes.append(0x2D) }
                var n = 0
                repeat {
                    d[n] = UInt8(m % 10) + 0x30
                    m /= 10
                    n += 1
                } while m > 0
                while n > 0 { n -= 1; bytes.append(d[n]) }
            }
        }
    }
}

/// The one writer of element JSON (section 4), compact, members in this order:
/// `{"type":"stroke","id":…,"tool":…,"color":…,"points":[…]` and
/// `{"type":"image","id":…,"asset":…,"frame":[x,y,w,h],"rotation":…,"opacity":…`.
/// An absent id or tool is left out. The object is left open: `close(_:)` ends it, after any
/// members the caller keeps (level-2 storage's `extra`).
public enum ElementJSON {
    public static func openStroke(id: String?, tool: String?, color: String, points: [Int32], into w: inout JSONWriter) {
        // Grown geometrically: an exact reserve per element would copy the whole buffer each
        // time many strokes are written into one writer (a content file).
        let needed = w.bytes.count + points.count * 6 + 128
        if w.bytes.capacity < needed { w.bytes.reserveCapacity(max(needed, 2 * w.bytes.capacity)) }
        w.raw("{\"type\":\"stroke\"")
        if let id { w.raw(",\"id\":"); w.string(id) }
        if let tool { w.raw(",\"tool\":"); w.string(tool) }
        w.raw(",\"color\":"); w.string(color)
        w.raw(",\"points\":[")
        w.integers(points)
        w.raw("]")
    }

    public static func openImage(id: String?, asset: String, frame: (x: Int64, y: Int64, width: Int64, height: Int64),
                                 rotation: Int64, opacity: Int64, into w: inout JSONWriter) {
        w.raw("{\"type\":\"image\"")
        if let id { w.raw(",\"id\":"); w.string(id) }
        w.raw(",\"asset\":"); w.string(asset)
        w.raw(",\"frame\":[\(frame.x),\(frame.y),\(frame.width),\(frame.height)],\"rotation\":\(rotation),\"opacity\":\(opacity)")
    }

    /// Ends the element's object.
    public static func close(_ w: inout JSONWriter) {
        w.raw("}")
    }
}

extension Element {
    /// A new stroke element with canonical JSON
    /// (`{"type":"stroke","id":…,"tool":…,"color":…,"points":[…]}`).
    public static func stroke(id: String, tool: Tool = .pen, color: Color, points: [Int32]) -> Element {
        var w = JSONWriter()
        ElementJSON.openStroke(id: id, tool: tool.rawValue, color: color.hexString, points: points, into: &w)
        ElementJSON.close(&w)
        return Element(id: id, kind: .stroke(Stroke(tool: tool, color: color, points: points)), json: w.bytes)
    }

    /// A new image element with canonical JSON
    /// (`{"type":"image","id":…,"asset":…,"frame":[x,y,w,h],"rotation":…,"opacity":…}`).
    public static func image(id: String, placement p: ImagePlacement) -> Element {
        var w = JSONWriter()
        ElementJSON.openImage(id: id, asset: p.asset, frame: (Int64(p.x), Int64(p.y), Int64(p.width), Int64(p.height)),
                              rotation: Int64(p.rotation), opacity: Int64(p.opacity), into: &w)
        ElementJSON.close(&w)
        return Element(id: id, kind: .image(p), json: w.bytes)
    }
}

public enum ContentWriter {
    /// A content file (format 1) holding `elements` in order, each written as its `json` bytes
    /// unchanged, one per line.
    ///
    /// `unknownMembers` (`PageContent.unknownMembers`: top-level members a newer app added, as
    /// their text) follow `elements`, unchanged and in their original order, one per line. After
    /// the known keys rather than in their original places: member order carries no meaning in
    /// JSON, and keeping their relative order keeps "of duplicate keys the last counts" true.
    public static func snapshot(_ elements: [Element], unknownMembers: [ArraySlice<UInt8>] = []) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(elements.reduce(64) { $0 + $1.json.count + 2 } + unknownMembers.reduce(0) { $0 + $1.count + 2 })
        out.append(contentsOf: "{\"format\":1,\"elements\":[".utf8)
        for (i, e) in elements.enumerated() {
            out.append(contentsOf: i == 0 ? [0x0A] : [0x2C, 0x0A])
            out.append(contentsOf: e.json)
        }
        out.append(contentsOf: "\n]".utf8)
        for member in unknownMembers {
            out.append(contentsOf: [0x2C, 0x0A])
            out.append(contentsOf: member)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }
}
