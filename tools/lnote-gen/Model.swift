// The in-memory document that a preset builds and PackageWriter serialises.
// Units follow the format: lengths in 0.1 pt, pressure in 1/1000, time in ms.

struct Stroke {
    var id: String
    /// nil writes no "tool" key (drawn as pen).
    var tool: String?
    var color: String
    /// Flat x, y, r, p, t quintuples, exactly as written.
    var points: [Int32]

    var sampleCount: Int { points.count / 5 }
}

struct ImageElement {
    var id: String
    var asset: String
    var frame: (x: Int, y: Int, width: Int, height: Int)
    var rotation: Int = 0
    var opacity: Int = 1000
}

enum Element {
    case stroke(Stroke)
    case image(ImageElement)
    /// Any other element, written verbatim (e.g. an unknown type). `id` is its id, if any.
    case raw(id: String?, json: String)

    var id: String? {
        switch self {
        case .stroke(let s): return s.id
        case .image(let i): return i.id
        case .raw(let id, _): return id
        }
    }
}

struct Background {
    var color: String? = nil
    var template: String? = nil
    var spacing: Int? = nil
    var lineColor: String? = nil
}

/// One journal frame. `kind` says what it does; the damage cases are written deliberately
/// broken so that a reader must skip them (section 5 of the format).
struct JournalFrame {
    enum Kind {
        case add(Element)
        case replace(Element)
        case delete(String)
        /// A frame with a type byte the format does not define; the payload is a valid element.
        case unknownType(UInt8, Element)
        /// A well-formed frame whose payload is empty (discarded by readers).
        case emptyPayload(UInt8)
    }
    var kind: Kind
    /// Write a wrong CRC: readers discard the frame.
    var corruptCRC = false
    /// Write only the first `tornBytes` bytes of the frame, at the very end of the journal.
    var tornBytes: Int? = nil
}

struct Page {
    var id: String
    var width = 8340
    var height = 11940
    var createdAt: String
    var modifiedAt: String
    var background: Background?
    var elements: [Element] = []
    var journal: [JournalFrame]? = nil

    /// The element count after the journal is replayed by the rules of section 5.
    var replayedElementCount: Int {
        guard let journal else { return elements.count }
        var ids: [String?] = elements.map { $0.id?.uppercased() }
        for frame in journal {
            if frame.tornBytes != nil { break }
            if frame.corruptCRC { continue }
            switch frame.kind {
            case .add(let e), .replace(let e):
                let id = e.id?.uppercased()
                if id == nil || !ids.contains(where: { $0 == id }) { ids.append(id) }
            case .delete(let id):
                if let i = ids.firstIndex(where: { $0 == id.uppercased() }) { ids.remove(at: i) }
            case .unknownType, .emptyPayload:
                continue
            }
        }
        return ids.count
    }

    var strokeCount: Int {
        elements.reduce(0) { if case .stroke = $1 { return $0 + 1 } else { return $0 } }
    }
    var sampleCount: Int {
        elements.reduce(0) { if case .stroke(let s) = $1 { return $0 + s.sampleCount } else { return $0 } }
    }
}

struct Asset {
    /// File name inside assets/: "<UUID>.jpg" or "<UUID>.png".
    var name: String
    var bytes: [UInt8]
}

struct Document {
    var id: String
    var title: String
    var createdAt: String
    var modifiedAt: String
    var pages: [Page] = []
    var assets: [Asset] = []
}
