// document.json (section 2): document metadata and the page order, validated page by page.

/// One slot of the page order: a valid entry, or a page that fails because its entry is
/// invalid (the other pages are unaffected).
public enum PageSlot: Sendable, Equatable {
    case valid(PageEntry)
    /// `index` is the position in `pages`; `rawID` the id as written when it was a string.
    case invalid(index: Int, rawID: String?, error: LNoteError)

    public var entry: PageEntry? {
        if case .valid(let e) = self { return e }
        return nil
    }

    public var error: LNoteError? {
        if case .invalid(_, _, let e) = self { return e }
        return nil
    }

    /// The page's id: the entry's, or an invalid entry's raw id when that is still a UUID (an
    /// invalid entry is still a page of the document: its thumbnail is not an orphan).
    public var id: LNoteID? {
        switch self {
        case .valid(let e): return e.id
        case .invalid(_, let raw, _): return raw.flatMap(LNoteID.init)
        }
    }
}

/// The validated content of `document.json`.
public struct DocumentInfo: Sendable, Equatable {
    public var format: Int
    /// The document id; nil (with a warning) when missing or not a UUID.
    public var id: LNoteID?
    public var title: String
    public var createdAt: String?
    public var modifiedAt: String?
    /// The page order: one slot per entry of `pages`, valid or not.
    public var pages: [PageSlot]
    /// Warnings: invalid backgrounds replaced by defaults, bad timestamps, bad ids...
    public var diagnostics: [Diagnostic]

    public init(format: Int = 1, id: LNoteID?, title: String, createdAt: String? = nil, modifiedAt: String? = nil,
                pages: [PageSlot], diagnostics: [Diagnostic] = []) {
        self.format = format
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.pages = pages
        self.diagnostics = diagnostics
    }

    /// The valid page entries, in order.
    public var validPages: [PageEntry] { pages.compactMap(\.entry) }
}

public enum DocumentParser {
    public static let fileName = "document.json"
    /// Canvas size range in 0.1 pt.
    public static let sizeRange: ClosedRange<Int64> = 1...200_000
    /// Template spacing range in 0.1 pt.
    public static let spacingRange: ClosedRange<Int64> = 40...100_000

    /// More page entries than this make the document fail. Not a limit of the format: like
    /// `FileLimits`, it refuses what no app writes. Every entry, even an invalid `0`, becomes a
    /// page slot of about 200 bytes, so a 256 MiB document.json of `0,` entries would otherwise
    /// need some 25 GB; with this limit, at most about 350 MB.
    public static let maxPageEntries = 1_000_000
    /// Warnings reported one by one; beyond this they are counted in one summary warning.
    public static let maxWarnings = ContentLimits.maxWarningsPerPage

    /// What is built of a page entry (the rest is validated and skipped).
    private static let pageShape = JSONShape.object([
        "id": .typeOnly, "width": .typeOnly, "height": .typeOnly, "createdAt": .typeOnly, "modifiedAt": .typeOnly,
        "elementCount": .typeOnly,
        "background": .object(["color": .typeOnly, "template": .typeOnly, "spacing": .typeOnly, "lineColor": .typeOnly]),
    ])
    /// The members of the document object read, besides `pages`.
    private static let rootKeys: Set<String> = ["format", "id", "title", "createdAt", "modifiedAt"]

    /// Parses `document.json`. Throws (the document fails) when it is not valid JSON, not an
    /// object, has a newer or invalid `format`, has no `pages` array, or more than
    /// `pageLimit` pages.
    ///
    /// One pass over the text: the page entries are checked one at a time as they are read, and
    /// only what the rules look at is built (`JSONShape`), so memory stays about the size of
    /// the result whatever the file holds.
    public static func parse(_ bytes: [UInt8], file: String = fileName,
                             pageLimit: Int = maxPageEntries) throws(LNoteError) -> DocumentInfo {
        let scanned: ScannedDocument
        do {
            scanned = try bytes.withUnsafeBufferPointer { (buf) throws(JSONError) -> ScannedDocument in
                try scan(buf, file: file, pageLimit: pageLimit)
            }
        } catch {
            throw LNoteError.json(error, file: file)
        }
        guard let root = scanned.root else {
            throw LNoteError(.invalid, file: file, code: .documentObject, message: "document.json is \(scanned.rootType), not an object")
        }
        let format = try checkFormat(root["format"], file: file)
        var diagnostics = Capped<Diagnostic>(limit: DocumentParser.maxWarnings)
        func warn(_ code: Code, _ message: String) {
            diagnostics.add(Diagnostic(severity: .warning, file: file, code: code, message: message))
        }

        var docID: LNoteID? = nil
        switch root["id"] {
        case .string(let s)?:
            docID = LNoteID(s)
            if docID == nil { warn(.documentId, "document id \"\(s)\" is not a UUID") }
        case nil: warn(.documentId, "document.json has no id")
        case let v?: warn(.documentId, "document id is \(v.typeName), not a string")
        }
        var title = ""
        switch root["title"] {
        case .string(let s)?: title = s
        case nil, .null?: break
        case let v?: warn(.title, "title is \(v.typeName), not a string")
        }
        let createdAt = timestamp(root["createdAt"], name: "createdAt", warn: { warn(.timestamp, $0) })
        let modifiedAt = timestamp(root["modifiedAt"], name: "modifiedAt", warn: { warn(.timestamp, $0) })

        // A document without a page order cannot be read safely (tools would treat it as empty
        // and could delete derived data), so it fails rather than being read as zero pages.
        guard let pages = scanned.pages else {
            throw LNoteError(.invalid, file: file, code: .pages,
                             message: scanned.pagesType.map { "pages is \($0), not an array" } ?? "document.json has no pages array")
        }
        if pages.entries > pageLimit {
            throw LNoteError(.limit, file: file, code: .pageLimit,
                             message: "document.json lists \(pages.entries) pages, more than \(pageLimit)")
        }
        diagnostics.add(contentsOf: pages.warnings)
        return DocumentInfo(format: format, id: docID, title: title, createdAt: createdAt, modifiedAt: modifiedAt,
                            pages: pages.slots, diagnostics: summarized(diagnostics))
    }

    /// What one pass over document.json found.
    private struct ScannedDocument {
        /// The document object's members in `rootKeys` (built by type only); nil when the text
        /// is not an object.
        var root: JSONValue?
        /// The type of the text when it is not an object.
        var rootType = ""
        /// The last `pages` member, when it is an array.
        var pages: PageList?
        /// The type of the last `pages` member, when it is not an array.
        var pagesType: String?
    }

    /// The page order as read so far.
    private struct PageList {
        var slots: [PageSlot] = []
        var seen = Set<LNoteID>()
        var warnings = Capped<Diagnostic>(limit: DocumentParser.maxWarnings)
        /// Every entry, also those past the limit (only validated).
        var entries = 0
    }

    private static func scan(_ buf: UnsafeBufferPointer<UInt8>, file: String, pageLimit: Int) throws(JSONError) -> ScannedDocument {
        var s = JSONScanner(buf)
        var result = ScannedDocument()
        s.skipBOM()
        s.skipWhitespace()
        guard s.peek() == _lbrace else {
            result.rootType = try s.walk(.keep(.typeOnly)).typeName
            try s.finish()
            return result
        }
        try s.beginObject()
        var members: [(key: String, value: JSONValue)] = []
        var first = true
        var key: [UInt8] = []
        while try s.nextMember(first: &first, key: &key) {
            let k = String(decoding: key, as: UTF8.self)
            if k == "pages" {
                // Of duplicate keys the last counts: each `pages` starts afresh.
                if s.peek() == _lbracket {
                    result.pages = try scanPages(&s, file: file, limit: pageLimit)
                    result.pagesType = nil
                } else {
                    result.pagesType = try s.walk(.keep(.typeOnly)).typeName
                    result.pages = nil
                }
            } else if rootKeys.contains(k) {
                let v = try s.walk(.keep(.typeOnly))
                members.removeAll { $0.key == k }
                members.append((k, v))
            } else {
                try s.walk(.skip)
            }
        }
        try s.finish()
        result.root = .object(members)
        return result
    }

    /// Reads the `pages` array at the scanner, checking each entry as it is read.
    private static func scanPages(_ s: inout JSONScanner, file: String, limit: Int) throws(JSONError) -> PageList {
        var list = PageList()
        try s.beginArray()
        var first = true
        while try s.nextElement(first: &first) {
            defer { list.entries += 1 }
            guard list.entries < limit else { try s.walk(.skip); continue }
            let raw = try s.walk(.keep(pageShape))
            list.slots.append(pageSlot(raw, index: list.entries, file: file, seen: &list.seen, warnings: &list.warnings))
        }
        return list
    }

    /// One entry of the page order: a valid entry, or the reason it fails.
    private static func pageSlot(_ raw: JSONValue, index: Int, file: String, seen: inout Set<LNoteID>,
                                 warnings: inout Capped<Diagnostic>) -> PageSlot {
        let rawID = raw["id"]?.stringValue
        func invalid(_ code: Code, _ message: String) -> PageSlot {
            .invalid(index: index, rawID: rawID,
                     error: LNoteError(.invalid, file: file, code: code, message: "page \(index + 1): \(message)"))
        }
        func warn(_ code: Code, _ message: String) {
            warnings.add(Diagnostic(severity: .warning, file: file, elementIndex: index, elementID: rawID, code: code, message: message))
        }
        guard raw.isObject else { return invalid(.pageEntry, "the entry is \(raw.typeName), not an object") }
        guard let rawID else {
            return invalid(.pageId, raw["id"] == nil ? "the entry has no id" : "id is \(raw["id"]!.typeName), not a string")
        }
        guard let id = LNoteID(rawID) else { return invalid(.pageId, "id \"\(rawID)\" is not a UUID") }
        // An id used twice: the later entry fails, whatever the fate of the earlier one.
        guard seen.insert(id).inserted else { return invalid(.pageDuplicateId, "id \(rawID) is used by an earlier page") }
        var size: [Int] = []
        for name in ["width", "height"] {
            guard let v = raw[name] else { return invalid(.pageSize, "the entry has no \(name)") }
            guard let n = v.integerValue, sizeRange.contains(n) else {
                return invalid(.pageSize, "\(name) must be an integer from \(sizeRange.lowerBound) to \(sizeRange.upperBound), found \(v.integerValue.map(String.init) ?? v.typeName)")
            }
            size.append(Int(n))
        }

        let pageWarn: (String) -> Void = { warn(.timestamp, $0) }
        var elementCount: Int? = nil
        if let v = raw["elementCount"], v != .null {
            if let n = v.integerValue, n >= 0 { elementCount = Int(n) } else {
                warn(.elementCount, "elementCount must be a non-negative integer, ignored")
            }
        }
        let background = parseBackground(raw["background"]) { code, message in warn(code, message) }
        return .valid(PageEntry(id: id, width: size[0], height: size[1],
                                createdAt: timestamp(raw["createdAt"], name: "createdAt", warn: pageWarn),
                                modifiedAt: timestamp(raw["modifiedAt"], name: "modifiedAt", warn: pageWarn),
                                elementCount: elementCount, background: background))
    }

    /// The kept warnings and, when some were only counted, one summary.
    static func summarized(_ warnings: Capped<Diagnostic>) -> [Diagnostic] {
        warnings.diagnostics { more in
            warnings.kept.first.map { Diagnostic(severity: .warning, file: $0.file, code: .moreWarnings,
                                                 message: "… and \(more) more warnings") }
        }
    }

    /// `format`: missing means 1 (as for content files); higher fails as newer; anything else
    /// but a positive integer is invalid.
    static func checkFormat(_ v: JSONValue?, file: String) throws(LNoteError) -> Int {
        guard let v else { return 1 }
        guard let n = v.integerValue, n >= 1 else {
            throw LNoteError(.invalid, file: file, code: .format, message: "format must be a positive integer, found \(v.typeName)")
        }
        guard n == 1 else {
            throw LNoteError(.newerFormat, file: file, code: .format,
                             message: "format \(n) was written by a newer app (this version reads format 1); nothing was changed")
        }
        return 1
    }

    /// An ISO 8601 UTC timestamp, or nil with a warning when present but invalid.
    static func timestamp(_ v: JSONValue?, name: String, warn: (String) -> Void) -> String? {
        switch v {
        case nil, .null?: return nil
        case .string(let s)?:
            if Timestamp.isValidUTC(s) { return s }
            warn("\(name) \"\(s)\" is not an ISO 8601 UTC timestamp, ignored")
            return nil
        case let other?:
            warn("\(name) is \(other.typeName), not a timestamp string, ignored")
            return nil
        }
    }

    /// `background`: every invalid value is replaced by its default, with a warning.
    static func parseBackground(_ v: JSONValue?, warn: (Code, String) -> Void) -> PageBackground {
        var bg = PageBackground.default
        guard let v, v != .null else { return bg }
        guard v.isObject else {
            warn(.background, "background is \(v.typeName), not an object; the default is used")
            return bg
        }
        if let c = v["color"] {
            if let s = c.stringValue, let color = Color(hex: s) { bg.color = color } else {
                warn(.backgroundColor, "background color \(describe(c)) is not #RRGGBB or #RRGGBBAA; #FFFFFF is used")
            }
        }
        if let t = v["template"] {
            if let s = t.stringValue, let template = PageBackground.Template(rawValue: s) { bg.template = template } else {
                warn(.backgroundTemplate, "template \(describe(t)) is not blank, ruled, grid or dots; blank is used")
            }
        }
        if let sp = v["spacing"] {
            if let n = sp.integerValue, spacingRange.contains(n) { bg.spacing = Int(n) } else {
                warn(.backgroundSpacing, "spacing \(describe(sp)) is not an integer from \(spacingRange.lowerBound) to \(spacingRange.upperBound); \(PageBackground.default.spacing) is used")
            }
        }
        if let lc = v["lineColor"] {
            if let s = lc.stringValue, let color = Color(hex: s) { bg.lineColor = color } else {
                warn(.backgroundLineColor, "lineColor \(describe(lc)) is not #RRGGBB or #RRGGBBAA; #C8D2E0 is used")
            }
        }
        return bg
    }

    static func describe(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "\"\(s)\""
        case .number(let n): return n.text
        default: return "(\(v.typeName))"
        }
    }
}

/// ISO 8601 timestamps in UTC: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
public enum Timestamp {
    public static func isValidUTC(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count >= 20 else { return false }
        func digits(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard u[i] >= 0x30 && u[i] <= 0x39 else { return nil }
                v = v * 10 + Int(u[i] - 0x30)
            }
            return v
        }
        guard let year = digits(0..<4), u[4] == 0x2D, let month = digits(5..<7), u[7] == 0x2D,
              let day = digits(8..<10), u[10] == 0x54 /* T */, let hour = digits(11..<13), u[13] == 0x3A,
              let minute = digits(14..<16), u[16] == 0x3A, let second = digits(17..<19) else { return false }
        _ = year
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else { return false }
        var i = 19
        if u[i] == 0x2E { // fraction
            i += 1
            let start = i
            while i < u.count, u[i] >= 0x30 && u[i] <= 0x39 { i += 1 }
            guard i > start else { return false }
        }
        return i == u.count - 1 && u[i] == 0x5A // Z
    }
}
