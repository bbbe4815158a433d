import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

// Rendering one page's thumbnail when its inputs changed.

extension ThumbnailRegenerator {
    /// Brings one page's thumbnail up to date, reading and hashing its inputs.
    func refresh(page entry: PageEntry, of plan: DocumentPlan, assets: AssetCache) -> PageResult {
        let package = plan.package
        let thumbnail = LNotePackage.thumbnailPath(for: entry.id)
        let startedNs = FileStamp.nowNs()
        do throws(LNoteError) {
            let (source, contentStamp, journalStamp) = try package.readPageSourceAndStamps(entry)
            let inputs = inputsHash(entry: entry, source: source)
            if !policy.force {
                let check = self.check(entry, source: source, inputs: inputs, in: package, assetHashes: plan.assetHashes)
                if check.status == .upToDate {
                    // Recorded only when every stamp had settled before the reads began.
                    var record: StatIndex.Page? = nil
                    if let stamp = check.thumbnail, ([contentStamp, stamp] + (journalStamp.map { [$0] } ?? [])).allSatisfy({ $0.isSettled(at: startedNs) }) {
                        record = StatIndex.Page(entryKey: entryKey(entry), contentFile: source.contentFile, content: contentStamp,
                                                journalFile: source.journalFile, journal: journalStamp, thumbnail: stamp, assets: check.assets)
                    }
                    return PageResult(outcome: .upToDate, record: record)
                }
            }
            let page = try package.loadPage(entry, from: source)
            let options = RenderOptions(size: .width(recipe.width), maxWork: policy.maxWork)
            let rendered = try PageRenderer.render(page, of: package, options: options, assets: assets)
            let shown = shownAssets(page, in: package, assetHashes: plan.assetHashes)
            var fingerprint = Fingerprint(inputs: inputs, assets: shown)
            fingerprint.settings = settingsText
            let jpeg: [UInt8]
            do {
                // Thumbnails draw the paper, so this flattening is a no-op kept for the rule.
                jpeg = try JPEGEncoder.encode(rendered.bitmap.flattened(onto: .white), quality: recipe.quality,
                                              pixelsPerInch: JPEGEncoder.density(pixelsPerInch: 72 * rendered.scale),
                                              comment: Array(fingerprint.text.utf8))
            } catch {
                throw LNoteError(error, file: thumbnail, code: .encode)
            }
            let written = try package.writeThumbnail(jpeg, for: entry.id)
            // Recorded at once, so the next run does not hash the page again: the thumbnail's
            // stamp is that of the new file this run put in place (a rename gives it a fresh
            // inode, and no writer of thumbnails changes one in place), and the sources are
            // vouched for only when their stamps had settled before they were read, as always.
            var record: StatIndex.Page? = nil
            if let written, ([contentStamp] + (journalStamp.map { [$0] } ?? [])).allSatisfy({ $0.isSettled(at: startedNs) }) {
                record = StatIndex.Page(entryKey: entryKey(entry), contentFile: source.contentFile, content: contentStamp,
                                        journalFile: source.journalFile, journal: journalStamp, thumbnail: written, assets: shown)
            }
            return PageResult(outcome: .rendered, record: record)
        } catch {
            return PageResult(outcome: .failed(error))
        }
    }
}
