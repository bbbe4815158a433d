// Writing JSON: string escaping, canonical element JSON for new elements, and content snapshots.
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
}

extension Element {
    /// A new stroke element with canonical JSON
    /// (`{"type":"stroke","id":…,"tool":…,"color":…,"points":[…]}`).
    public static func stroke(id: String, tool: Tool = .pen, color: Color, points: [Int32]) -> Element {
        var w = JSONWriter()
        w.raw("{\"type\":\"stroke\",\"id\":"); w.string(id)
        w.raw(",\"tool\":"); w.string(tool.rawValue)
        w.raw(",\"color\":"); w.string(color.hexString)
        w.raw(",\"points\":[")
        w.bytes.reserveCapacity(w.bytes.count + points.count * 6 + 2)
        for (i, v) in points.enumerated() {
            if i > 0 { w.bytes.append(0x2C) }
            w.int(v)
        }
        w.raw("]}")
        return Element(id: id, kind: .stroke(Stroke(tool: tool, color: color, points: points)), json: w.bytes)
    }

    /// A new image element with canonical JSON
    /// (`{"type":"image","id":…,"asset":…,"frame":[x,y,w,h],"rotation":…,"opacity":…}`).
    public static func image(id: String, placement p: ImagePlacement) -> Element {
        var w = JSONWriter()
        w.raw("{\"type\":\"image\",\"id\":"); w.string(id)
        w.raw(",\"asset\":"); w.string(p.asset)
        w.raw(",\"frame\":[\(p.x),\(p.y),\(p.width),\(p.height)]")
        w.raw(",\"rotation\":\(p.rotation),\"opacity\":\(p.opacity)}")
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
