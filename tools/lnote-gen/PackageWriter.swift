// Serialises a Document as a `<UUID>.lnote` package (format 1).
//
// JSON is built directly as bytes with the library's `JSONWriter` (no Foundation encoders): the
// dense page holds about a quarter of a million samples and doc200 several million, and must be
// written in seconds. Element JSON and journal frames are the library's own writers'.

import Foundation
import LNoteFormat

/// Element JSON by the library's one writer (`LNoteFormat.ElementJSON`: compact, the form of
/// content files and journal payloads).
enum ElementText {
    static func write(_ element: Element, into out: inout JSONWriter) {
        switch element {
        case .stroke(let s):
            LNoteFormat.ElementJSON.openStroke(id: s.id, tool: s.tool, color: s.color, points: s.points, into: &out)
            LNoteFormat.ElementJSON.close(&out)
        case .image(let im):
            LNoteFormat.ElementJSON.openImage(id: im.id, asset: im.asset,
                                              frame: (Int64(im.frame.x), Int64(im.frame.y), Int64(im.frame.width), Int64(im.frame.height)),
                                              rotation: Int64(im.rotation), opacity: Int64(im.opacity), into: &out)
            LNoteFormat.ElementJSON.close(&out)
        case .raw(_, let json):
            out.raw(json)
        }
    }

    static func bytes(_ element: Element) -> [UInt8] {
        var out = JSONWriter()
        write(element, into: &out)
        return out.bytes
    }
}

/// Journal files: frames by the library's `LNoteFormat.Journal.encodeFrame`, plus the damage
/// the features preset writes on purpose (a flipped CRC bit, a torn tail).
enum JournalFile {
    static func frame(type: UInt8, payload: [UInt8], corruptCRC: Bool = false) -> [UInt8] {
        var out = LNoteFormat.Journal.encodeFrame(type: type, payload: payload)
        if corruptCRC { out[5] ^= 0x01 }  // bit 8 of the little-endian CRC at bytes 4-7: a plausible corruption
        return out
    }

    static func encode(_ frames: [JournalFrame]) -> [UInt8] {
        var out: [UInt8] = []
        for f in frames {
            let bytes: [UInt8]
            switch f.kind {
            case .add(let e): bytes = frame(type: 1, payload: ElementText.bytes(e), corruptCRC: f.corruptCRC)
            case .replace(let e): bytes = frame(type: 2, payload: ElementText.bytes(e), corruptCRC: f.corruptCRC)
            case .delete(let id): bytes = frame(type: 3, payload: Array(id.utf8), corruptCRC: f.corruptCRC)
            case .unknownType(let t, let e): bytes = frame(type: t, payload: ElementText.bytes(e), corruptCRC: f.corruptCRC)
            case .emptyPayload(let t): bytes = frame(type: t, payload: [], corruptCRC: f.corruptCRC)
            }
            if let torn = f.tornBytes {
                out.append(contentsOf: bytes.prefix(torn))
                break  // nothing can follow a torn tail
            }
            out.append(contentsOf: bytes)
        }
        return out
    }
}

struct WriteStats {
    var path: String
    var pages = 0
    var strokes = 0
    var samples = 0
    var images = 0
    var journals = 0
    var contentBytes = 0
    var largestContent = 0
    var assetBytes = 0
    /// An extra line for the summary (e.g. the dense page's size check).
    var note: String? = nil
}

enum PackageWriter {
    /// Writes `<dir>/<document id>.lnote`, replacing any package of that name.
    @discardableResult
    static func write(_ doc: Document, into dir: String) throws -> WriteStats {
        let fm = FileManager.default
        let root = dir + "/" + doc.id + ".lnote"
        if fm.fileExists(atPath: root) { try fm.removeItem(atPath: root) }
        try fm.createDirectory(atPath: root + "/pages", withIntermediateDirectories: true)
        var stats = WriteStats(path: root)

        if !doc.assets.isEmpty {
            try fm.createDirectory(atPath: root + "/assets", withIntermediateDirectories: true)
            for asset in doc.assets {
                try save(asset.bytes, to: root + "/assets/" + asset.name)
                stats.assetBytes += asset.bytes.count
            }
        }

        for page in doc.pages {
            var out = JSONWriter()
            out.bytes.reserveCapacity(64 + page.sampleCount * 22 + page.elements.count * 120)
            out.raw("{\"format\":1,\"elements\":[")
            for (i, e) in page.elements.enumerated() {
                if i > 0 { out.raw(",\n") }  // one element per line, as the app writes
                ElementText.write(e, into: &out)
            }
            out.raw("]}\n")
            try save(out.bytes, to: root + "/pages/" + page.id + ".content")
            if let journal = page.journal {
                try save(JournalFile.encode(journal), to: root + "/pages/" + page.id + ".journal")
                stats.journals += 1
            }
            stats.pages += 1
            stats.strokes += page.strokeCount
            stats.samples += page.sampleCount
            stats.images += page.elements.reduce(0) { if case .image = $1 { return $0 + 1 } else { return $0 } }
            stats.contentBytes += out.bytes.count
            stats.largestContent = max(stats.largestContent, out.bytes.count)
        }

        try save(documentJSON(doc), to: root + "/document.json")
        try save(manifestJSON(doc), to: root + "/manifest.json")
        return stats
    }

    static func documentJSON(_ doc: Document) -> [UInt8] {
        var o = JSONWriter()
        o.raw("{\n  \"format\": 1,\n  \"id\": "); o.string(doc.id)
        o.raw(",\n  \"title\": "); o.string(doc.title)
        o.raw(",\n  \"createdAt\": "); o.string(doc.createdAt)
        o.raw(",\n  \"modifiedAt\": "); o.string(doc.modifiedAt)
        o.raw(",\n  \"pages\": [")
        for (i, p) in doc.pages.enumerated() {
            o.raw(i == 0 ? "\n    {\n" : ",\n    {\n")
            o.raw("      \"id\": "); o.string(p.id)
            o.raw(",\n      \"width\": "); o.int(p.width)
            o.raw(",\n      \"height\": "); o.int(p.height)
            o.raw(",\n      \"createdAt\": "); o.string(p.createdAt)
            o.raw(",\n      \"modifiedAt\": "); o.string(p.modifiedAt)
            o.raw(",\n      \"elementCount\": "); o.int(p.replayedElementCount)
            if let bg = p.background {
                o.raw(",\n      \"background\": {")
                var first = true
                func sep(_ o: inout JSONWriter) { o.raw(first ? " " : ", "); first = false }
                if let c = bg.color { sep(&o); o.raw("\"color\": "); o.string(c) }
                if let t = bg.template { sep(&o); o.raw("\"template\": "); o.string(t) }
                if let s = bg.spacing { sep(&o); o.raw("\"spacing\": "); o.int(s) }
                if let l = bg.lineColor { sep(&o); o.raw("\"lineColor\": "); o.string(l) }
                o.raw(" }")
            }
            o.raw("\n    }")
        }
        o.raw(doc.pages.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return o.bytes
    }

    static func manifestJSON(_ doc: Document) -> [UInt8] {
        var o = JSONWriter()
        o.raw("{\n  \"format\": 1,\n  \"id\": "); o.string(doc.id)
        o.raw(",\n  \"title\": "); o.string(doc.title)
        o.raw(",\n  \"modifiedAt\": "); o.string(doc.modifiedAt)
        o.raw(",\n  \"pageCount\": "); o.int(doc.pages.count)
        o.raw(",\n  \"cover\": ")
        // The cover names the first page's thumbnail; lnote-gen writes no thumbnails, the
        // regenerator derives them (section 3: the manifest is a cache that may be stale).
        if let first = doc.pages.first { o.string("thumbnails/" + first.id + ".jpg") } else { o.raw("null") }
        o.raw("\n}\n")
        return o.bytes
    }

    static func save(_ bytes: [UInt8], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try Data(bytes).write(to: url)
    }
}

/// Fixed ISO 8601 UTC timestamps (never the clock): `seconds` since 1970-01-01.
func isoDate(_ seconds: Int, millis: Int? = nil) -> String {
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let secOfDay = seconds - days * 86400
    // Civil-from-days (Howard Hinnant).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    var y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    if m <= 2 { y += 1 }
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    var s = "\(y)-\(two(m))-\(two(d))T\(two(secOfDay / 3600)):\(two(secOfDay / 60 % 60)):\(two(secOfDay % 60))"
    if let ms = millis { s += "." + String(1000 + ms).dropFirst() }
    return s + "Z"
}
