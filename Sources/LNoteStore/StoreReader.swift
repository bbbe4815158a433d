// Reading documents, pages and elements back out of a store (for `restore`). Every element is
// rebuilt as JSON and read through the package parser, so what comes out is exactly what a
// package holding it would give, and a damaged row is an error naming it.

import LNoteFormat

struct StoredPage {
    var row: Int64
    var position: Int
    /// Nil when the page's entry in document.json was invalid.
    var entry: PageEntry?
    var failure: String?
    /// The snapshot's unknown top-level members, as the text between the braces of `content_extra`.
    var contentExtra: ArraySlice<UInt8>?
}

struct StoredDocument {
    var uuid: String?
    var title: String
    var createdAt: String?
    var modifiedAt: String?
    var pages: [StoredPage]
}

final class StoreReader {
    private let db: SQLiteDatabase
    private let documentRow, pageRows, strokes, images, others, assets: SQLiteStatement

    init(_ db: SQLiteDatabase) throws(LNoteError) {
        self.db = db
        documentRow = try db.prepare("SELECT uuid, title, created_at, modified_at FROM documents WHERE id = ?1")
        pageRows = try db.prepare("""
            SELECT id, position, uuid, width, height, created_at, modified_at, background_color, template, spacing, line_color,
                   content_extra, failure FROM pages WHERE document = ?1 ORDER BY position
            """)
        strokes = try db.prepare("SELECT z, uuid, tool, color, sample_count, samples, extra, id FROM strokes WHERE page = ?1 ORDER BY z")
        images = try db.prepare("""
            SELECT z, uuid, asset, x, y, width, height, rotation, opacity, extra, id FROM images WHERE page = ?1 ORDER BY z
            """)
        others = try db.prepare("SELECT z, json, id FROM other_elements WHERE page = ?1 ORDER BY z")
        assets = try db.prepare("""
            SELECT d.name, a.data, a.sha256 FROM document_assets d JOIN assets a ON a.id = d.asset WHERE d.document = ?1 ORDER BY d.name
            """)
    }

    private func damaged(_ what: String) -> LNoteError {
        LNoteError(.invalid, file: db.path, code: .storeRow, message: what)
    }

    func document(_ id: Int64) throws(LNoteError) -> StoredDocument {
        defer { documentRow.reset() }
        try documentRow.bind(1, id)
        guard try documentRow.step() else { throw damaged("document \(id) does not exist") }
        var doc = StoredDocument(uuid: documentRow.text(0).flatMap(LNoteID.init)?.original, title: documentRow.text(1) ?? "",
                                 createdAt: Self.timestamp(documentRow.text(2)), modifiedAt: Self.timestamp(documentRow.text(3)),
                                 pages: [])
        defer { pageRows.reset() }
        try pageRows.bind(1, id)
        let s = pageRows
        while try s.step() {
            var page = StoredPage(row: s.int(0), position: Int(s.int(1)), entry: nil, failure: s.text(12), contentExtra: nil)
            if let w = s.optionalInt(3), let h = s.optionalInt(4) {
                guard let uuid = s.text(2).flatMap(LNoteID.init), (1...200_000).contains(w), (1...200_000).contains(h),
                      let color = s.text(7).flatMap(Color.init(hex:)), let template = s.text(8).flatMap(PageBackground.Template.init(rawValue:)),
                      let spacing = s.optionalInt(9), (40...100_000).contains(spacing),
                      let line = s.text(10).flatMap(Color.init(hex:)) else {
                    throw damaged("page row \(page.row) (document \(id), page \(page.position + 1)) has an invalid id, size or background")
                }
                page.entry = PageEntry(id: uuid, width: w, height: h, createdAt: Self.timestamp(s.text(5)),
                                       modifiedAt: Self.timestamp(s.text(6)),
                                       background: PageBackground(color: color, template: template, spacing: spacing, lineColor: line))
            }
            if let extra = s.textBytes(11) {
                guard extra.count >= 2, extra.first == 0x7B, extra.last == 0x7D else {
                    throw damaged("page row \(page.row): content_extra is not a JSON object")
                }
                let inner = extra[1..<(extra.count - 1)]
                if inner.contains(where: { !Self.JSONWhitespace.contains($0) }) { page.contentExtra = inner }
            }
            doc.pages.append(page)
        }
        return doc
    }

    private static let JSONWhitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    static func timestamp(_ s: String?) -> String? { s.flatMap { Timestamp.isValidUTC($0) ? $0 : nil } }

    /// A page's elements in z-order, each rebuilt and parsed as a package element.
    func elements(ofPage page: Int64, file: String) throws(LNoteError) -> [Element] {
        var rows: [(z: Int64, json: [UInt8], row: String)] = []
        defer { strokes.reset(); images.reset(); others.reset() }
        try strokes.bind(1, page)
        while try strokes.step() {
            let s = strokes
            let row = "strokes row \(s.int(7))"
            let decoded = s.withBlob(5) { blob in Result { () throws(SampleBlob.DecodeError) in try SampleBlob.decode(blob) } }
            let points: [Int32]
            switch decoded {
            case .success(let p): points = p
            case .failure(let e): throw damaged("\(row): \(e.message)")
            }
            guard points.count == Int(s.int(4)) * Stroke.fieldsPerSample else {
                throw damaged("\(row): sample_count \(s.int(4)) does not match its BLOB (\(points.count / 5) samples)")
            }
            var w = JSONWriter()
            ElementJSON.openStroke(id: s.text(1), tool: s.text(2), color: s.text(3) ?? "", points: points, into: &w)
            try appendExtra(s.textBytes(6), to: &w, row: row)
            rows.append((s.int(0), w.bytes, row))
        }
        try images.bind(1, page)
        while try images.step() {
            let s = images
            let row = "images row \(s.int(10))"
            var w = JSONWriter()
            ElementJSON.openImage(id: s.text(1), asset: s.text(2) ?? "", frame: (s.int(3), s.int(4), s.int(5), s.int(6)),
                                  rotation: s.int(7), opacity: s.int(8), into: &w)
            try appendExtra(s.textBytes(9), to: &w, row: row)
            rows.append((s.int(0), w.bytes, row))
        }
        try others.bind(1, page)
        while try others.step() {
            rows.append((others.int(0), others.textBytes(1) ?? [], "other_elements row \(others.int(2))"))
        }
        rows.sort { $0.z < $1.z }
        var elements: [Element] = []
        elements.reserveCapacity(rows.count)
        for (i, r) in rows.enumerated() {
            guard r.z == Int64(i) else {
                throw damaged("page row \(page): \(r.row) has z \(r.z), expected \(i) (the z-orders must be 0, 1, 2... without gaps)")
            }
            switch ContentParser.parseElement(r.json) {
            case .success(let element): elements.append(element)
            case .failure(let problem): throw damaged("\(r.row) is not a valid element: \(problem)")
            }
        }
        return elements
    }

    /// Closes an element's object: the `extra` members (a JSON object's inside), then `}`.
    private func appendExtra(_ extra: [UInt8]?, to w: inout JSONWriter, row: String) throws(LNoteError) {
        if let extra {
            guard extra.count >= 2, extra.first == 0x7B, extra.last == 0x7D else { throw damaged("\(row): extra is not a JSON object") }
            let inner = extra[1..<(extra.count - 1)]
            if inner.contains(where: { !Self.JSONWhitespace.contains($0) }) {
                w.bytes.append(0x2C)
                w.bytes.append(contentsOf: inner)
            }
        }
        ElementJSON.close(&w)
    }

    /// Each asset file of a document, its bytes checked against their hash.
    func forEachAsset(ofDocument id: Int64, _ body: (String, [UInt8]) throws(LNoteError) -> Void) throws(LNoteError) {
        defer { assets.reset() }
        try assets.bind(1, id)
        while try assets.step() {
            let name = assets.text(0) ?? ""
            let bytes = assets.blob(1)
            guard SHA256.hex(bytes) == assets.text(2) else { throw damaged("asset \(name.debugDescription) does not match its sha256") }
            try body(name, bytes)
        }
    }
}
