import LNoteFormat

/// What the PDF's document information dictionary says.
public struct PDFInfo: Sendable, Equatable {
    public var title: String
    public var producer: String
    /// ISO 8601 timestamps as `document.json` has them (nil: left out).
    public var createdAt: String?
    public var modifiedAt: String?

    public init(title: String, producer: String, createdAt: String?, modifiedAt: String?) {
        self.title = title
        self.producer = producer
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// `2026-11-20T09:14:03.120Z` → `D:20261120091403Z` (PDF 1.7 §7.9.4); nil if it is not of
    /// that form. Fractions are dropped; an offset other than Z is kept as `+HH'mm'`.
    static func pdfDate(_ iso: String) -> String? {
        let u = Array(iso.utf8)
        func digits(_ r: Range<Int>) -> String? {
            guard r.upperBound <= u.count, u[r].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return String(decoding: u[r], as: UTF8.self)
        }
        guard u.count >= 19, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54 || u[10] == 0x74, u[13] == 0x3A, u[16] == 0x3A,
              let y = digits(0..<4), let mo = digits(5..<7), let d = digits(8..<10), let h = digits(11..<13),
              let mi = digits(14..<16), let s = digits(17..<19) else { return nil }
        var i = 19
        if i < u.count && u[i] == 0x2E { i += 1; while i < u.count && u[i] >= 0x30 && u[i] <= 0x39 { i += 1 } }
        var zone = "Z"
        if i < u.count && (u[i] == 0x2B || u[i] == 0x2D), let zh = digits((i + 1)..<(i + 3)), let zm = digits((i + 4)..<(i + 6)) {
            zone = String(UnicodeScalar(u[i])) + zh + "'" + zm + "'"
        }
        return "D:" + y + mo + d + h + mi + s + zone
    }

    /// A PDF text string: a literal for printable ASCII, else UTF-16BE with a byte-order mark.
    static func textString(_ s: String) -> [UInt8] {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            var out: [UInt8] = [0x28]
            for b in s.utf8 {
                if b == 0x28 || b == 0x29 || b == 0x5C { out.append(0x5C) }
                out.append(b)
            }
            out.append(0x29)
            return out
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = Array("<FEFF".utf8)
        for unit in s.utf16 {
            for shift in [12, 8, 4, 0] { out.append(hex[Int(unit >> UInt16(shift)) & 15]) }
        }
        out.append(0x3E)
        return out
    }
}

/// A PDF file written front to back: objects go out as they are finished, and only their
/// offsets are kept, so a document of any length costs the memory of one page plus the xref.
/// Object 1 is the catalog, 2 the page tree (written last, when its kids are known), 3 the
/// document information.
final class PDFFile {
    private let output: ByteOutput
    private var offsets: [Int] = [0, 0, 0, 0]  // index = object number; 0 is the free head
    private var position = 0
    private(set) var pages: [Int] = []
    /// Each page's number in the document (1-based), for its label and bookmark.
    private(set) var labels: [Int] = []
    static let catalog = 1, pageTree = 2, info = 3

    init(output: ByteOutput) throws(LNoteError) {
        self.output = output
        // The binary comment line marks the file as binary for transfer tools (§7.5.2).
        try emit(Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
    }

    private func emit(_ bytes: [UInt8]) throws(LNoteError) {
        try output.append(bytes)
        position += bytes.count
    }

    /// A new object number, to be written later with `write`.
    func allocate() -> Int {
        offsets.append(0)
        return offsets.count - 1
    }

    /// Writes object `number`: `dictionary` (the text between << and >>), and a stream when
    /// `stream` is given (its /Length is added here).
    func write(_ number: Int, dictionary: [UInt8], stream: [UInt8]? = nil) throws(LNoteError) {
        offsets[number] = position
        var head = Array("\(number) 0 obj\n<<".utf8) + dictionary
        if let stream {
            head += Array("/Length \(stream.count)>>\nstream\n".utf8)
            try emit(head)
            try emit(stream)
            try emit(Array("\nendstream\nendobj\n".utf8))
        } else {
            head += Array(">>\nendobj\n".utf8)
            try emit(head)
        }
    }

    /// Records a page object for the page tree, with the page's number in the document.
    func addPage(_ number: Int, label: Int) {
        pages.append(number)
        labels.append(label)
    }

    /// `/PageLabels`: decimal labels that show each page's number in the document, one range
    /// per run of consecutive numbers (`--pages 5-9` shows 5…9, not 1…5).
    static func pageLabels(_ labels: [Int]) -> [UInt8] {
        var out = Array("/PageLabels<</Nums[".utf8)
        var first = true
        for (i, n) in labels.enumerated() where i == 0 || n != labels[i - 1] + 1 {
            out += Array("\(first ? "" : " ")\(i)<</S/D/St \(max(1, n))>>".utf8)
            first = false
        }
        out += Array("]>>".utf8)
        return out
    }

    /// The bookmark of a page: "Page N", N its number in the document.
    static func bookmarkTitle(_ label: Int) -> String { "Page \(label)" }

    /// The document outline: one bookmark per page of the file, in file order, each opening
    /// its page; the outline root's object number.
    private func writeOutline() throws(LNoteError) -> Int {
        let root = allocate()
        let items = pages.map { _ in allocate() }
        for (i, item) in items.enumerated() {
            var d = Array("/Title".utf8) + PDFInfo.textString(Self.bookmarkTitle(labels[i])) + Array("/Parent \(root) 0 R".utf8)
            if i > 0 { d += Array("/Prev \(items[i - 1]) 0 R".utf8) }
            if i + 1 < items.count { d += Array("/Next \(items[i + 1]) 0 R".utf8) }
            d += Array("/Dest[\(pages[i]) 0 R/Fit]".utf8)
            try write(item, dictionary: d)
        }
        try write(root, dictionary: Array("/Type/Outlines/First \(items[0]) 0 R/Last \(items[items.count - 1]) 0 R/Count \(items.count)".utf8))
        return root
    }

    /// The page tree, outline, catalog (with page labels), information dictionary,
    /// cross-reference table and trailer.
    func finish(info: PDFInfo) throws(LNoteError) {
        var kids = Array("/Type/Pages/Count \(pages.count)/Kids[".utf8)
        for (i, p) in pages.enumerated() { kids += Array("\(i == 0 ? "" : " ")\(p) 0 R".utf8) }
        kids.append(0x5D)
        try write(Self.pageTree, dictionary: kids)
        var catalog = Array("/Type/Catalog/Pages 2 0 R".utf8)
        if !pages.isEmpty {
            catalog += Array("/Outlines \(try writeOutline()) 0 R".utf8) + Self.pageLabels(labels)
        }
        try write(Self.catalog, dictionary: catalog)
        var d = Array("/Title".utf8) + PDFInfo.textString(info.title) + Array("/Producer".utf8) + PDFInfo.textString(info.producer)
        if let c = info.createdAt.flatMap(PDFInfo.pdfDate) { d += Array("/CreationDate".utf8) + PDFInfo.textString(c) }
        if let m = info.modifiedAt.flatMap(PDFInfo.pdfDate) { d += Array("/ModDate".utf8) + PDFInfo.textString(m) }
        try write(Self.info, dictionary: d)
        let xref = position
        var table = Array("xref\n0 \(offsets.count)\n0000000000 65535 f \n".utf8)
        for n in 1..<offsets.count {
            let s = String(offsets[n])
            table += Array((String(repeating: "0", count: max(0, 10 - s.count)) + s + " 00000 n \n").utf8)
        }
        table += Array("trailer\n<</Size \(offsets.count)/Root 1 0 R/Info 3 0 R>>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        try emit(table)
    }
}
