import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

// The stat check: pages the stat index vouches for from stamps alone, without reading them.

extension ThumbnailRegenerator {
    // MARK: the stat check

    /// For each page of the document, a result when the stat index vouches for it: its entry and
    /// the settings give the recorded key, its content and journal resolve to the recorded files
    /// with the recorded stamps, its thumbnail has its recorded stamp, and every asset it shows
    /// still has the recorded hash (assets with their recorded stamps are not read for that).
    func trustedByStat(_ plan: DocumentPlan) -> [PageResult?] {
        let entries = plan.pageEntries
        guard let index = plan.previous else { return Array(repeating: nil, count: entries.count) }
        let package = plan.package
        let candidates: [StatIndex.Page?] = entries.map { entry in
            index.pages[entry.id.canonical].flatMap { $0.entryKey == entryKey(entry) ? $0 : nil }
        }
        // The name after the last "/", found in the UTF-8 view: Character-based splitting was a
        // sixth of a no-op run.
        let name = DocumentPlan.fileName

        // Assets with their recorded stamps keep their recorded hashes. One found under another
        // spelling of its name counts only while assets/ lists the same names.
        let assetsUnchanged = plan.unchanged(plan.assets.directory, index.assetsDirectory)
        for (key, record) in index.assets where plan.assets.files[name(record.file)] == record.stamp {
            if record.file == "\(LNotePackage.assetsDirectory)/\(key)" || assetsUnchanged { plan.assetHashes.prime(key, record) }
        }
        let stampOf = plan.pages.files
        let thumbnailStamps = plan.thumbnails
        // While pages/ holds the same names, each page's files resolve as they did; otherwise
        // they are resolved again from one listing (a journal may have appeared).
        let pagesUnchanged = plan.unchanged(plan.pages.directory, index.pagesDirectory)
        var listing: (names: [String], exact: Set<String>)? = nil
        if !pagesUnchanged, candidates.contains(where: { $0 != nil }) {
            guard let names = try? package.entries(of: LNotePackage.pagesDirectory).map(\.name) else {
                return Array(repeating: nil, count: entries.count)
            }
            listing = (names, Set(names))
        }

        return zip(entries, candidates).enumerated().map { p, pair -> PageResult? in
            let (entry, candidate) = pair
            guard let c = candidate, thumbnailStamps[p] == c.thumbnail, stampOf[name(c.contentFile)] == c.content else { return nil }
            if let journalFile = c.journalFile, stampOf[name(journalFile)] != c.journal { return nil }
            if let listing {
                guard LNotePackage.pageFile(entry.id, extension: "content", inListing: listing.names, exactNames: listing.exact) == c.contentFile,
                      LNotePackage.pageFile(entry.id, extension: "journal", inListing: listing.names, exactNames: listing.exact) == c.journalFile
                else { return nil }
            }
            guard c.assets.allSatisfy({ plan.assetHashes.hash(of: $0.name, in: package) == $0.hash }) else { return nil }
            return PageResult(outcome: .upToDate, record: c, trustedByStat: true)
        }
    }
}
