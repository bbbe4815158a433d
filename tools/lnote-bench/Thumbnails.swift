// A page's thumbnail end to end, through the regenerator and stage by stage.

import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRender

let rendererVersion = "lnote-bench"

/// One regeneration run over `package`; fails loudly if any page or the document failed.
func regenerate(_ package: String, force: Bool, jobs: Int) throws -> DocumentRegeneration {
    let settings = ThumbnailSettings(width: 320, quality: 80, force: force, jobs: jobs)
    let report = ThumbnailRegenerator(settings: settings, rendererVersion: rendererVersion).regenerate(packages: [package])[0]
    guard report.succeeded else { throw BenchError("regeneration of \(package) failed: \(report.failures)") }
    return report
}

/// The dense page's thumbnail with `force`, single job: open the package, read, fingerprint,
/// decode, render at 320 px, JPEG q80, atomic write, then the manifest check.
func measureThumbnailRegeneration(_ package: String, runs: Int) throws -> Timing {
    try measure(runs: runs) { keep(try regenerate(package, force: true, jobs: 1).rendered) }
}

/// The same steps as the regenerator's, for one page, with no up-to-date check.
func renderThumbnail(_ entry: PageEntry, of package: LNotePackage) throws {
    let source = try package.readPageSource(entry)
    var hasher = ContentHasher()
    hasher.combine(source.content)
    if let journal = source.journal { hasher.combine(journal) }
    let hash = hasher.finalize()
    let page = try package.loadPage(entry, from: source)
    let rendered = try PageRenderer.render(page, of: package, options: RenderOptions(size: .width(320)), assets: AssetCache())
    let jpeg = try JPEGEncoder.encode(rendered.bitmap, quality: 80, pixelsPerInch: Int(rendered.pixelsPerInch.rounded()),
                                      comment: Array(hash.utf8))
    try package.writeThumbnail(jpeg, for: entry.id)
}

/// Where a page's thumbnail time goes: each step of `renderThumbnail` timed on its own.
func measureThumbnailStages(_ entry: PageEntry, of package: LNotePackage, runs: Int) throws -> [String: Timing] {
    let source = try package.readPageSource(entry)
    let page = try package.loadPage(entry, from: source)
    let options = RenderOptions(size: .width(320))
    let bitmap = try PageRenderer.render(page, of: package, options: options, assets: AssetCache()).bitmap
    let jpeg = try JPEGEncoder.encode(bitmap, quality: 80)
    return [
        "read": try measure(runs: runs) { keep(try package.readPageSource(entry).content.count) },
        "hash": try measure(runs: runs) { keep(ContentHasher.hash(source.content).utf8.count) },
        "decode": try measure(runs: runs) { keep(try package.loadPage(entry, from: source).elements.count) },
        "render": try measure(runs: runs) {
            keep(try PageRenderer.render(page, of: package, options: options, assets: AssetCache()).bitmap)
        },
        "encode": try measure(runs: runs) { keep(try JPEGEncoder.encode(bitmap, quality: 80).count) },
        "write": try measure(runs: runs) { try package.writeThumbnail(jpeg, for: entry.id) },
    ]
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
