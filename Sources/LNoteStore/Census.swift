// What verification compares: counts taken from the packages and from the database, the same
// way on both sides, page by page.

import LNoteFormat

/// The counts of one page.
public struct PageCensus: Sendable, Equatable {
    /// The page could not be read (its entry, its content file, a limit).
    public var failed = false
    public var strokes = 0
    public var images = 0
    /// Elements of an unknown type (kept as their JSON).
    public var unknown = 0
    /// Snapshot elements skipped as invalid.
    public var invalid = 0
    /// Journal frames discarded by replay.
    public var discardedFrames = 0
    public var samples = 0

    public init() {}

    public var elements: Int { strokes + images + unknown }
}

/// The counts of one document, keyed by its package name.
public struct DocumentCensus: Sendable, Equatable {
    public var package: String
    public var pages: [PageCensus] = []
    public var assets = 0
    public var assetBytes = 0

    public init(package: String) { self.package = package }
}

/// The counts of a set of documents.
public struct Census: Sendable, Equatable {
    /// Sorted by package name.
    public var documents: [DocumentCensus] = []

    public init(documents: [DocumentCensus] = []) {
        self.documents = documents.sorted { $0.package < $1.package }
    }

    /// The totals, in the order they are printed.
    public var totals: [(name: String, value: Int)] {
        let pages = documents.flatMap(\.pages)
        func sum(_ f: (PageCensus) -> Int) -> Int { pages.reduce(0) { $0 + f($1) } }
        return [
            ("documents", documents.count),
            ("pages", pages.count),
            ("failed pages", pages.filter(\.failed).count),
            ("strokes", sum(\.strokes)),
            ("images", sum(\.images)),
            ("unknown elements", sum(\.unknown)),
            ("invalid elements", sum(\.invalid)),
            ("discarded frames", sum(\.discardedFrames)),
            ("samples", sum(\.samples)),
            ("assets", documents.reduce(0) { $0 + $1.assets }),
            ("asset bytes", documents.reduce(0) { $0 + $1.assetBytes }),
        ]
    }

    /// The counts a restore of these documents gives: a restored snapshot holds only valid
    /// elements and no journal, so what the source's reader skipped is not there to count.
    public var restored: Census {
        var copy = self
        for d in copy.documents.indices {
            for p in copy.documents[d].pages.indices {
                copy.documents[d].pages[p].invalid = 0
                copy.documents[d].pages[p].discardedFrames = 0
            }
        }
        return copy
    }

    /// Every difference between two censuses, one line each, naming the document and page.
    public static func mismatches(packages a: Census, database b: Census) -> [String] {
        var out: [String] = []
        let left = Dictionary(a.documents.map { ($0.package, $0) }, uniquingKeysWith: { x, _ in x })
        let right = Dictionary(b.documents.map { ($0.package, $0) }, uniquingKeysWith: { x, _ in x })
        for name in Set(left.keys).union(right.keys).sorted() {
            guard let l = left[name] else { out.append("\(name): in the database, not among the packages"); continue }
            guard let r = right[name] else { out.append("\(name): among the packages, not in the database"); continue }
            if l.pages.count != r.pages.count {
                out.append("\(name): \(l.pages.count) page(s) in the package, \(r.pages.count) in the database")
            }
            for (i, (lp, rp)) in zip(l.pages, r.pages).enumerated() where lp != rp {
                let fields: [(String, Int, Int)] = [
                    ("failed", lp.failed ? 1 : 0, rp.failed ? 1 : 0), ("strokes", lp.strokes, rp.strokes),
                    ("images", lp.images, rp.images), ("unknown elements", lp.unknown, rp.unknown),
                    ("invalid elements", lp.invalid, rp.invalid), ("discarded frames", lp.discardedFrames, rp.discardedFrames),
                    ("samples", lp.samples, rp.samples),
                ]
                for (field, x, y) in fields where x != y {
                    out.append("\(name): page \(i + 1): \(field) \(x) in the package, \(y) in the database")
                }
            }
            if l.assets != r.assets { out.append("\(name): \(l.assets) asset(s) in the package, \(r.assets) in the database") }
            if l.assetBytes != r.assetBytes {
                out.append("\(name): \(l.assetBytes) asset bytes in the package, \(r.assetBytes) in the database")
            }
        }
        return out
    }

    /// The counts of everything in a store.
    static func of(_ db: SQLiteDatabase) throws(LNoteError) -> Census {
        var documents: [Int64: DocumentCensus] = [:]
        let docs = try db.prepare("SELECT id, package FROM documents")
        while try docs.step() { documents[docs.int(0)] = DocumentCensus(package: docs.text(1) ?? "") }
        // Pages in order, each with its counts; `index` maps a page row to its slot.
        var index: [Int64: (document: Int64, slot: Int)] = [:]
        let pages = try db.prepare("SELECT id, document, failure IS NOT NULL, invalid_elements, discarded_frames FROM pages ORDER BY document, position")
        while try pages.step() {
            let doc = pages.int(1)
            guard documents[doc] != nil else {
                throw LNoteError(.invalid, file: db.path, code: .store, message: "page row \(pages.int(0)) names no document")
            }
            var p = PageCensus()
            p.failed = pages.int(2) != 0
            p.invalid = Int(pages.int(3))
            p.discardedFrames = Int(pages.int(4))
            index[pages.int(0)] = (doc, documents[doc]!.pages.count)
            documents[doc]!.pages.append(p)
        }
        func count(_ sql: String, _ apply: (inout PageCensus, Int, Int) -> Void) throws(LNoteError) {
            let s = try db.prepare(sql)
            while try s.step() {
                guard let at = index[s.int(0)] else {
                    throw LNoteError(.invalid, file: db.path, code: .store, message: "an element row names page \(s.int(0)), which does not exist")
                }
                apply(&documents[at.document]!.pages[at.slot], Int(s.int(1)), Int(s.int(2)))
            }
        }
        // The samples are counted from the BLOBs' lengths, not from sample_count.
        try count("SELECT page, count(*), sum(length(samples)) / 16 FROM strokes GROUP BY page") {
            $0.strokes = $1; $0.samples = $2
        }
        try count("SELECT page, count(*), 0 FROM images GROUP BY page") { p, n, _ in p.images = n }
        try count("SELECT page, count(*), 0 FROM other_elements GROUP BY page") { p, n, _ in p.unknown = n }
        let assets = try db.prepare("""
            SELECT d.document, count(*), sum(length(a.data)) FROM document_assets d JOIN assets a ON a.id = d.asset GROUP BY d.document
            """)
        while try assets.step() {
            guard documents[assets.int(0)] != nil else { continue }
            documents[assets.int(0)]!.assets = Int(assets.int(1))
            documents[assets.int(0)]!.assetBytes = Int(assets.int(2))
        }
        return Census(documents: Array(documents.values))
    }
}
