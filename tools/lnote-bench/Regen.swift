// Thumbnail regeneration of a whole document: from scratch, after one edit, with no change.

import Foundation
import LNoteFormat

/// A working copy of a package, so that edits never touch the generated original.
func workingCopy(of package: String, in workDir: String) throws -> String {
    let copy = workDir + "/" + URL(fileURLWithPath: package).lastPathComponent
    let files = FileManager.default
    try files.createDirectory(atPath: workDir, withIntermediateDirectories: true)
    if files.fileExists(atPath: copy) { try files.removeItem(atPath: copy) }
    try files.copyItem(atPath: package, toPath: copy)
    return copy
}

/// All thumbnails from nothing: `thumbnails/` and `manifest.json` removed before each run.
/// No warm-up run (one costs a minute on a loaded machine): the working copy was just written,
/// so its files are in the page cache, and the code paths were warmed on the dense page.
func measureScratch(_ package: String, jobs: Int, runs: Int) throws -> Timing {
    let pages = try LNotePackage.open(at: URL(fileURLWithPath: package)).document.validPages.count
    return try measure(runs: runs, warmup: 0, prepare: {
        for derived in [LNotePackage.thumbnailsDirectory, Manifest.fileName] {
            try? FileManager.default.removeItem(atPath: package + "/" + derived)
        }
    }) {
        let report = try regenerate(package, force: false, jobs: jobs)
        guard report.rendered == pages else { throw BenchError("scratch rendered \(report.rendered) of \(pages) pages") }
    }
}

/// A run with every thumbnail up to date: reads sources and thumbnail headers, writes nothing.
func measureNoop(_ package: String, runs: Int) throws -> Timing {
    try measure(runs: runs) {
        let report = try regenerate(package, force: false, jobs: 1)
        guard report.rendered == 0 else { throw BenchError("no-op run rendered \(report.rendered) pages") }
    }
}

/// Before each run one stroke is appended to `entry`'s journal, as the app does; the run
/// must re-render that page only.
func measureOneEdit(_ package: String, page entry: PageEntry, runs: Int) throws -> Timing {
    let opened = try LNotePackage.open(at: URL(fileURLWithPath: package))
    let journal = try opened.pageFile(entry.id, extension: "journal", required: false)
        ?? "\(LNotePackage.pagesDirectory)/\(entry.id.original).journal"
    var edits = 0
    return try measure(runs: runs, prepare: {
        edits += 1
        try JournalWriter.append(Journal.encodeFrame(.add, payload: strokeJSON(number: edits)),
                                 toPath: opened.absolutePath(journal))
    }) {
        let report = try regenerate(package, force: false, jobs: 1)
        guard report.rendered == 1 else { throw BenchError("one-edit run rendered \(report.rendered) pages") }
    }
}

/// A short pen stroke with a fresh id: a few words' worth of ink near the top of the page.
func strokeJSON(number: Int) -> [UInt8] {
    let id = String(format: "00000000-0000-4000-8000-%012x", number)
    var points: [Int] = []
    for i in 0..<40 { points += [1000 + 25 * i, 900 + (i % 7) * 12, 14, 500, 8 * i] }
    let list = points.map(String.init).joined(separator: ",")
    return Array(##"{"type":"stroke","id":"\##(id)","tool":"pen","color":"#1A1A1A","points":[\##(list)]}"##.utf8)
}

/// The page whose content file is the median size of the document: "one average page".
func medianPage(of package: String) throws -> PageEntry {
    let opened = try LNotePackage.open(at: URL(fileURLWithPath: package))
    let sized = try opened.document.validPages.map { ($0, try opened.readPageSource($0).content.count) }
    return sized.sorted { $0.1 < $1.1 }[sized.count / 2].0
}

/// One average page's thumbnail: the regenerator's steps for that page alone.
func measureOnePage(_ package: String, page entry: PageEntry, runs: Int) throws -> Timing {
    let opened = try LNotePackage.open(at: URL(fileURLWithPath: package))
    return try measure(runs: runs) { try renderThumbnail(entry, of: opened) }
}
