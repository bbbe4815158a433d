import Foundation
import LNoteFormat

/// The one writer of `.lnote` packages for every test target: `<dir>/<documentID>.lnote`, its
/// document.json through `DocumentJSON`, valid page content through the library's own writers
/// (`ContentWriter.snapshot` of `Element`s, whose JSON is `ElementJSON`'s; journals through
/// `JournalWriter`), and any file as raw bytes where the test's point is raw or hostile input
/// (`write(_:_:)`, `make(in:contents:)`, `make(in:files:)`). Every write is `AtomicFile`'s.
public struct PackageBuilder {
    public let path: String
    public let documentID: String
    public var pageIDs: [String]
    /// The size of each page entry `writeDocument(title:background:pageIDs:)` writes, in 0.1 pt.
    public var pageSize: (width: Int, height: Int)

    /// The regenerator tests' document id (also the raw-content packages').
    public static let defaultDocumentID = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10"
    /// A page entry's `background` unless a test says otherwise.
    public static let ruledBackground = ##"{"color":"#FFFDF5","template":"ruled"}"##

    /// An empty package directory holding the `directories` (relative), nothing written yet.
    public init(in dir: String, documentID: String = PackageBuilder.defaultDocumentID, pageIDs: [String] = [],
                pageSize: (width: Int, height: Int) = (8340, 11940), directories: [String] = ["pages"]) throws {
        path = dir + "/\(documentID).lnote"
        self.documentID = documentID
        self.pageIDs = pageIDs
        self.pageSize = pageSize
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for sub in directories {
            try FileManager.default.createDirectory(atPath: path + "/" + sub, withIntermediateDirectories: true)
        }
    }

    public var url: URL { URL(fileURLWithPath: path) }

    // MARK: whole packages

    /// A package with `pages` pages (`IDs.page(0…)`), each holding one pen stroke whose position
    /// depends on the page (`stroke(index:)`), and a document of them at 834 × 1194 pt.
    public static func make(in dir: String, pages: Int = 3, title: String = "Test notes",
                            documentID: String = PackageBuilder.defaultDocumentID) throws -> PackageBuilder {
        let package = try PackageBuilder(in: dir, documentID: documentID, pageIDs: (0..<pages).map(IDs.page))
        for i in 0..<pages {
            try package.writeContent(page: i, elements: [stroke(index: i)])
        }
        try package.writeDocument(title: title)
        return package
    }

    /// A package whose pages' content files are the given texts, byte for byte (members and
    /// values that no writer of the project produces), and a document of them (page entries of
    /// `pageSize` with `background`, no element count).
    public static func make(in dir: String, documentID: String = PackageBuilder.defaultDocumentID, title: String = "Raw",
                            pageSize: (width: Int, height: Int) = (4000, 3000), contents: [String],
                            background: String = PackageBuilder.ruledBackground) throws -> PackageBuilder {
        let package = try PackageBuilder(in: dir, documentID: documentID, pageIDs: contents.indices.map(IDs.page), pageSize: pageSize)
        for (i, text) in contents.enumerated() {
            try package.write("pages/\(package.pageIDs[i]).content", text)
        }
        try package.writeDocument(title: title, entries: package.entries(extra: #","background":"# + background))
        return package
    }

    /// A package (id `IDs.doc`) with `pages/`, `assets/` and `thumbnails/` and exactly the given
    /// files (relative path → bytes), written as they are.
    public static func make(in dir: String, documentID: String = IDs.doc, files: [String: [UInt8]]) throws -> PackageBuilder {
        let package = try PackageBuilder(in: dir, documentID: documentID, directories: ["pages", "assets", "thumbnails"])
        for (relative, bytes) in files {
            try package.write(relative, bytes)
        }
        return package
    }

    /// A pen stroke of 40 samples whose position depends on `index`.
    public static func stroke(index: Int, color: Color = Color(r: 0x1A, g: 0x1A, b: 0x8A)) -> Element {
        var points: [Int32] = []
        for s in 0..<40 {
            let x = Int32(1000 + s * 120 + index * 40)
            let y = Int32(1500 + Int(600 * sin(Double(s) / 5)) + index * 900)
            points += [x, y, 30, 600, Int32(s * 4)]
        }
        return Element.stroke(id: String(format: "A0000000-0000-4000-8000-%012X", index + 1), color: color, points: points)
    }

    // MARK: document.json

    /// A document.json page entry: the page's id and size, and more members (JSON text, each
    /// starting with a comma).
    public struct PageEntry {
        public var id: String, width: Int, height: Int, extra: String
        public init(id: String, width: Int, height: Int, extra: String = "") {
            self.id = id; self.width = width; self.height = height; self.extra = extra
        }
    }

    /// Entries for `ids` (default: the package's pages), each of `pageSize`.
    public func entries(_ ids: [String]? = nil, extra: String = "") -> [PageEntry] {
        (ids ?? pageIDs).map { PageEntry(id: $0, width: pageSize.width, height: pageSize.height, extra: extra) }
    }

    /// document.json (`DocumentJSON.text`) with the given page entries.
    public func writeDocument(title: String?, createdAt: String? = nil, format: Int = 1, entries: [PageEntry]) throws {
        let pages = entries.map { DocumentJSON.page($0.id, width: $0.width, height: $0.height, extra: $0.extra) }
        try write("document.json", DocumentJSON.text(id: documentID, title: title, createdAt: createdAt, format: format, pages: pages))
    }

    /// document.json listing `pageIDs` (default: the package's pages) at `pageSize`, each with an
    /// element count of 1 and `background`.
    public func writeDocument(title: String = "Test notes", background: String = PackageBuilder.ruledBackground,
                              pageIDs: [String]? = nil) throws {
        try writeDocument(title: title, entries: entries(pageIDs, extra: #","elementCount":1,"background":"# + background))
    }

    // MARK: pages

    /// The content file of page `page` (an index into `pageIDs`): `elements`, by `ContentWriter`.
    public func writeContent(page: Int, elements: [Element]) throws {
        try writeContent(pageID: pageIDs[page], elements: elements)
    }

    public func writeContent(pageID: String, elements: [Element]) throws {
        try write("pages/\(pageID).content", ContentWriter.snapshot(elements))
    }

    public func appendJournal(page: Int, frames: [UInt8]) throws {
        try JournalWriter.append(frames, toPath: path + "/pages/\(pageIDs[page]).journal")
    }

    public func contentPath(_ page: Int) -> String { path + "/pages/\(pageIDs[page]).content" }
    public func thumbnailPath(_ page: Int) -> String { path + "/thumbnails/\(pageIDs[page]).jpg" }

    // MARK: raw files

    /// Writes the package file `relative` with exactly `bytes`, making its directory if needed.
    public func write(_ relative: String, _ bytes: [UInt8]) throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try AtomicFile.write(bytes, toPath: file)
    }

    public func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }

    // MARK: looking

    /// Every file of the package with its bytes, for before/after comparisons.
    public func snapshotFiles() -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: path)
        while let rel = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = FileManager.default.contents(atPath: path + "/" + rel)
            }
        }
        return out
    }

    /// Modification time with nanoseconds and the inode, to prove a file was not rewritten.
    public static func modificationStamp(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "missing" }
        return "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec):\(st.st_ino)"
    }
}
