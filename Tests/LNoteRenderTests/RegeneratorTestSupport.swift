import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteTestSupport
import XCTest

/// Builds small `.lnote` packages in a temporary directory for regenerator and maintenance tests.
struct TestPackage {
    let path: String
    let documentID: String
    var pageIDs: [String]

    /// A package with `pages` pages, each holding one pen stroke whose position depends on the page.
    static func make(in dir: String, pages: Int = 3, title: String = "Test notes",
                     documentID: String = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10") throws -> TestPackage {
        let path = dir + "/\(documentID).lnote"
        try FileManager.default.createDirectory(atPath: path + "/pages", withIntermediateDirectories: true)
        let ids = (0..<pages).map(IDs.page)
        let package = TestPackage(path: path, documentID: documentID, pageIDs: ids)
        for (i, id) in ids.enumerated() {
            try package.writeContent(page: i, elements: [TestPackage.stroke(index: i)])
            _ = id
        }
        try package.writeDocument(title: title)
        return package
    }

    static func stroke(index: Int, color: Color = Color(r: 0x1A, g: 0x1A, b: 0x8A)) -> Element {
        var points: [Int32] = []
        for s in 0..<40 {
            let x = Int32(1000 + s * 120 + index * 40)
            let y = Int32(1500 + Int(600 * sin(Double(s) / 5)) + index * 900)
            points += [x, y, 30, 600, Int32(s * 4)]
        }
        return Element.stroke(id: String(format: "A0000000-0000-4000-8000-%012X", index + 1), color: color, points: points)
    }

    func writeDocument(title: String = "Test notes", background: String = ##"{"color":"#FFFDF5","template":"ruled"}"##,
                       pageIDs: [String]? = nil) throws {
        let pages = (pageIDs ?? self.pageIDs).map { DocumentJSON.page($0, width: 8340, height: 11940, extra: #","elementCount":1,"background":"# + background) }
        try AtomicFile.write(Array(DocumentJSON.text(id: documentID, title: title, pages: pages).utf8), toPath: path + "/document.json")
    }

    func writeContent(page: Int, elements: [Element]) throws {
        try AtomicFile.write(ContentWriter.snapshot(elements), toPath: contentPath(page))
    }

    func appendJournal(page: Int, frames: [UInt8]) throws {
        try JournalWriter.append(frames, toPath: path + "/pages/\(pageIDs[page]).journal")
    }

    func contentPath(_ page: Int) -> String { path + "/pages/\(pageIDs[page]).content" }
    func thumbnailPath(_ page: Int) -> String { path + "/thumbnails/\(pageIDs[page]).jpg" }

    /// Every file of the package with its bytes, for before/after comparisons.
    func snapshotFiles() -> [String: Data] {
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

    /// Modification time with nanoseconds, to prove a file was not rewritten.
    static func modificationStamp(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "missing" }
        return "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec):\(st.st_ino)"
    }
}
