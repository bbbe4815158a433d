// manifest.json (section 3): a cache of document.json for the note library. Read leniently
// (it may be stale or wrong), written from the source of truth.

public struct Manifest: Sendable, Equatable {
    public static let fileName = "manifest.json"

    public var format: Int
    public var id: String
    public var title: String
    public var modifiedAt: String?
    public var pageCount: Int
    /// Relative path of the first page's thumbnail (`thumbnails/<UUID>.jpg`), nil for no pages.
    public var cover: String?

    public init(format: Int = 1, id: String, title: String, modifiedAt: String?, pageCount: Int, cover: String?) {
        self.format = format
        self.id = id
        self.title = title
        self.modifiedAt = modifiedAt
        self.pageCount = pageCount
        self.cover = cover
    }

    /// The manifest that agrees with `document`: every page of the order counts (an invalid
    /// entry is still a page of the document); the cover is the first page's thumbnail.
    public init(document: DocumentInfo) {
        let firstID = document.pages.first?.id
        self.init(id: document.id?.original ?? "", title: document.title, modifiedAt: document.modifiedAt,
                  pageCount: document.pages.count, cover: firstID.map { Manifest.coverPath(for: $0) })
    }

    /// `thumbnails/<UUID>.jpg` for a page id (upper-case canonical form).
    public static func coverPath(for page: LNoteID) -> String { "thumbnails/\(page.canonical).jpg" }

    /// Parses a manifest. Throws for invalid JSON, a non-object, a newer format, or missing or
    /// mistyped fields (a cache that cannot be trusted is rebuilt, not repaired).
    public static func parse(_ bytes: [UInt8], file: String = fileName) throws(LNoteError) -> Manifest {
        // Only the fields read are built: the rest of a hostile 16 MiB manifest is validated, not
        // turned into a tree many times its size.
        let shape = JSONShape.object(["format": .typeOnly, "id": .typeOnly, "title": .typeOnly, "modifiedAt": .typeOnly,
                                      "pageCount": .typeOnly, "cover": .typeOnly])
        let root: JSONValue
        do { root = try JSONValue.parse(bytes, shape: shape) } catch { throw LNoteError.json(error, file: file) }
        guard root.isObject else {
            throw LNoteError(.invalid, file: file, code: .manifestObject, message: "manifest.json is \(root.typeName), not an object")
        }
        let format = try DocumentParser.checkFormat(root["format"], file: file)
        func bad(_ field: String) -> LNoteError {
            LNoteError(.invalid, file: file, code: .manifestField, message: "\(field) is missing or has the wrong type")
        }
        guard let id = root["id"]?.stringValue else { throw bad("id") }
        guard let title = root["title"]?.stringValue else { throw bad("title") }
        var modifiedAt: String? = nil
        switch root["modifiedAt"] {
        case nil, .null?: break
        case .string(let s)?: modifiedAt = s
        default: throw bad("modifiedAt")
        }
        guard let count = root["pageCount"]?.integerValue, count >= 0, count <= Int64(Int32.max) else { throw bad("pageCount") }
        var cover: String? = nil
        switch root["cover"] {
        case nil, .null?: break
        case .string(let s)?: cover = s
        default: throw bad("cover")
        }
        return Manifest(format: format, id: id, title: title, modifiedAt: modifiedAt, pageCount: Int(count), cover: cover)
    }

    /// The manifest as pretty JSON in the key order of section 3.
    public func jsonBytes() -> [UInt8] {
        var w = JSONWriter()
        w.raw("{\n  \"format\": \(format),\n  \"id\": "); w.string(id)
        w.raw(",\n  \"title\": "); w.string(title)
        w.raw(",\n  \"modifiedAt\": "); w.stringOrNull(modifiedAt)
        w.raw(",\n  \"pageCount\": \(pageCount)")
        w.raw(",\n  \"cover\": "); w.stringOrNull(cover)
        w.raw("\n}\n")
        return w.bytes
    }
}
