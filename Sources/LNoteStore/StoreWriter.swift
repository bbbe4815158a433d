// Rows of the store from what the package reader hands over (`SourceEvent`): one statement per
// table, prepared once.

import LNoteFormat

final class StoreWriter {
    private let db: SQLiteDatabase
    private let insertDocument, insertPage, insertStroke, insertImage, insertOther: SQLiteStatement
    private let insertAsset, findAsset, insertDocumentAsset, insertProblem: SQLiteStatement
    private var document: Int64 = 0
    /// Bytes of sample BLOBs written so far.
    private(set) var blobBytes = 0

    /// The members a stroke and an image keep in columns of their own; every other member is
    /// kept in `extra` as written.
    static let strokeKeys: Set<String> = ["type", "id", "tool", "color", "points"]
    static let imageKeys: Set<String> = ["type", "id", "asset", "frame", "rotation", "opacity"]

    init(_ db: SQLiteDatabase) throws(LNoteError) {
        self.db = db
        insertDocument = try db.prepare("INSERT INTO documents (package, uuid, title, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?5)")
        insertPage = try db.prepare("""
            INSERT INTO pages (document, position, uuid, width, height, created_at, modified_at, background_color, template,
                               spacing, line_color, content_extra, invalid_elements, discarded_frames, failure)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """)
        insertStroke = try db.prepare("""
            INSERT INTO strokes (page, z, uuid, tool, color, sample_count, samples, extra) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        insertImage = try db.prepare("""
            INSERT INTO images (page, z, uuid, asset, x, y, width, height, rotation, opacity, extra)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
        insertOther = try db.prepare("INSERT INTO other_elements (page, z, uuid, type, json) VALUES (?1, ?2, ?3, ?4, ?5)")
        insertAsset = try db.prepare("INSERT INTO assets (sha256, size, data) VALUES (?1, ?2, ?3)")
        findAsset = try db.prepare("SELECT id FROM assets WHERE sha256 = ?1")
        insertDocumentAsset = try db.prepare("INSERT INTO document_assets (document, name, asset) VALUES (?1, ?2, ?3)")
        insertProblem = try db.prepare("""
            INSERT INTO problems (document, page, severity, file, element_index, element_uuid, rule, message)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
    }

    func write(_ event: SourceEvent) throws(LNoteError) {
        switch event {
        case .document(let name, let info):
            let s = insertDocument
            try s.bind(1, name)
            try s.bind(2, info.id?.original)
            try s.bind(3, info.title)
            try s.bind(4, info.createdAt)
            try s.bind(5, info.modifiedAt)
            try s.run()
            document = db.lastInsertRowID
            for d in info.diagnostics { try problem(d, page: nil) }
        case .page(let position, let slot, let page, let failure, let census):
            let pageRow = try writePage(position: position, slot: slot, page: page, failure: failure, census: census)
            if let failure {
                try problem(Diagnostic(severity: .error, file: failure.file, code: failure.code, message: failure.message), page: pageRow)
            }
            guard let page else { return }
            for d in page.diagnostics { try problem(d, page: pageRow) }
            for (z, element) in page.elements.enumerated() {
                try writeElement(element, z: z, page: pageRow)
            }
        case .asset(let name, let bytes):
            let hash = SHA256.hex(bytes)
            findAsset.reset()
            try findAsset.bind(1, hash)
            var id: Int64
            if try findAsset.step() {
                id = findAsset.int(0)
                findAsset.reset()
            } else {
                findAsset.reset()
                try insertAsset.bind(1, hash)
                try insertAsset.bind(2, bytes.count)
                try insertAsset.bind(3, blob: bytes)
                try insertAsset.run()
                id = db.lastInsertRowID
            }
            try insertDocumentAsset.bind(1, document)
            try insertDocumentAsset.bind(2, name)
            try insertDocumentAsset.bind(3, id)
            try insertDocumentAsset.run()
        }
    }

    private func writePage(position: Int, slot: PageSlot, page: LoadedPage?, failure: LNoteError?,
                           census: PageCensus) throws(LNoteError) -> Int64 {
        let s = insertPage
        try s.bind(1, document)
        try s.bind(2, position)
        switch slot {
        case .valid(let e):
            try s.bind(3, e.id.original)
            try s.bind(4, e.width)
            try s.bind(5, e.height)
            try s.bind(6, e.createdAt)
            try s.bind(7, e.modifiedAt)
            try s.bind(8, e.background.color.hexString)
            try s.bind(9, e.background.template.rawValue)
            try s.bind(10, e.background.spacing)
            try s.bind(11, e.background.lineColor.hexString)
        case .invalid(_, let rawID, _):
            try s.bind(3, rawID)
        }
        if let page, !page.unknownContentMembers.isEmpty {
            try s.bind(12, text: Self.object(page.unknownContentMembers.map(Array.init)))
        }
        try s.bind(13, census.invalid)
        try s.bind(14, census.discardedFrames)
        try s.bind(15, failure.map { "\($0)" })
        try s.run()
        return db.lastInsertRowID
    }

    private func writeElement(_ element: Element, z: Int, page: Int64) throws(LNoteError) {
        switch element.kind {
        case .stroke(let stroke):
            let members = element.members
            // The tool as written, when it is a string (of duplicate keys the last counts, as
            // in the parser); anything else is drawn as a pen and restored as no tool.
            let tool = members.last { $0.key == "tool" }?.stringValue
            let blob = SampleBlob.encode(stroke.points)
            blobBytes += blob.count
            let s = insertStroke
            try s.bind(1, page)
            try s.bind(2, z)
            try s.bind(3, element.id)
            try s.bind(4, tool)
            try s.bind(5, stroke.color.hexString)
            try s.bind(6, stroke.sampleCount)
            try s.bind(7, blob: blob)
            try s.bind(8, text: Self.extra(members, known: Self.strokeKeys))
            try s.run()
        case .image(let p):
            let s = insertImage
            try s.bind(1, page)
            try s.bind(2, z)
            try s.bind(3, element.id)
            try s.bind(4, p.asset)
            try s.bind(5, Int(p.x))
            try s.bind(6, Int(p.y))
            try s.bind(7, Int(p.width))
            try s.bind(8, Int(p.height))
            try s.bind(9, p.rotation)
            try s.bind(10, p.opacity)
            try s.bind(11, text: Self.extra(element.members, known: Self.imageKeys))
            try s.run()
        case .unknown(let type):
            let s = insertOther
            try s.bind(1, page)
            try s.bind(2, z)
            try s.bind(3, element.id)
            try s.bind(4, type)
            try s.bind(5, text: element.json)
            try s.run()
        }
    }

    private func problem(_ d: Diagnostic, page: Int64?) throws(LNoteError) {
        let s = insertProblem
        try s.bind(1, document)
        if let page { try s.bind(2, page) } else { try s.bindNull(2) }
        try s.bind(3, d.severity.rawValue)
        try s.bind(4, d.file)
        try s.bind(5, d.elementIndex)
        try s.bind(6, d.elementID)
        try s.bind(7, d.code.rawValue)
        try s.bind(8, d.message)
        try s.run()
    }

    /// The members not in `known`, as one JSON object; nil when there are none.
    static func extra(_ members: [ElementMember], known: Set<String>) -> [UInt8]? {
        let kept = members.filter { !known.contains($0.key) }
        return kept.isEmpty ? nil : object(kept.map(\.text))
    }

    /// `{` member `,` member ... `}`.
    static func object(_ members: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0x7B]
        for (i, m) in members.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(contentsOf: m)
        }
        out.append(0x7D)
        return out
    }
}
