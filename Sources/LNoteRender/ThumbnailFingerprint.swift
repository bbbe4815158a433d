import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

// What a thumbnail was made from: the hashes of its inputs, and the fingerprint format stored in its JPEG comment.

extension ThumbnailRegenerator {
    // MARK: fingerprints

    /// The hash of everything a page's picture depends on, except the assets it shows (those
    /// are only known after parsing, so they are listed and checked separately).
    /// `settingsText`: the thumbnail settings as stored in a fingerprint; the current ones when nil.
    func inputsHash(entry: PageEntry, source: PageSource, settingsText: String? = nil) -> String {
        var h = ContentHasher()
        combineEntry(entry, settingsText: settingsText ?? self.settingsText, into: &h)
        h.combine(source.content)
        if let journal = source.journal {
            h.combine("journal")
            h.combine(journal)
        } else {
            h.combine("no journal")
        }
        return h.finalize()
    }

    /// The thumbnail settings that change the picture, as they are hashed and stored.
    var settingsText: String { recipe.settingsText }

    /// The renderer version and settings, hashed: what every page's entry key covers besides its
    /// entry, so that entry keys recorded under this key still hold while document.json is unchanged.
    var settingsKey: String {
        var h = ContentHasher()
        h.combine("lnote-render \(rendererVersion)")
        h.combine(settingsText)
        return h.finalize()
    }

    /// The renderer version, the settings and the page's entry in document.json: what
    /// `inputsHash` covers besides the page's files.
    func combineEntry(_ entry: PageEntry, settingsText: String, into h: inout ContentHasher) {
        h.combine("lnote-render \(rendererVersion)")
        h.combine(settingsText)
        let bg = entry.background
        h.combine("\(entry.width)x\(entry.height) \(bg.color.hexString) \(bg.template.rawValue) \(bg.spacing) \(bg.lineColor.hexString)")
    }

    /// The stat index's key for a page: everything its thumbnail depends on but its files.
    func entryKey(_ entry: PageEntry) -> String {
        var h = ContentHasher()
        combineEntry(entry, settingsText: settingsText, into: &h)
        return h.finalize()
    }
}

/// The inputs a thumbnail was made from, stored in its JPEG comment as text:
/// `lnote-render-fingerprint 1` / `inputs <hash>`, optionally `settings w320 q80` (the settings
/// the inputs hash covers, so `check` can tell "other settings" from "other content"; older
/// thumbnails lack it and are judged as before), then either one `asset <name> <hash>` line
/// per asset shown, or, when those lines would pass `maxListedBytes`, one `assets <count>
/// <digest>` line whose digest covers all of them.
///
/// The digest keeps the comment bounded: a JPEG comment holds at most 65,533 bytes, and at
/// about 80 bytes an asset a valid page showing 819 distinct assets could never get a thumbnail
/// (nor, on page 1, a manifest). It still changes with any asset's hash.
struct Fingerprint: Equatable, Sendable {
    struct Asset: Equatable, Sendable {
        var name: String
        var hash: String

        var line: String { "asset \(name) \(hash)" }
    }

    enum Assets: Equatable, Sendable {
        case listed([Asset])
        /// A digest of the `asset` lines of `count` assets, in order.
        case digest(count: Int, hash: String)
    }

    var inputs: String
    var assets: Assets
    /// The thumbnail settings the inputs were hashed with (`w320 q80`), when recorded.
    var settings: String?

    static let magic = "lnote-render-fingerprint 1"
    /// The most bytes of `asset` lines stored one by one (about 50 assets).
    static let maxListedBytes = 4096

    /// `assets` in a fixed order (`shownAssets` sorts them), so the same page always gives the
    /// same fingerprint.
    init(inputs: String, assets: [Asset]) {
        self.inputs = inputs
        let lines = assets.map(\.line)
        if lines.reduce(0, { $0 + $1.utf8.count + 1 }) <= Self.maxListedBytes {
            self.assets = .listed(assets)
        } else {
            var h = ContentHasher()
            for line in lines { h.combine(line + "\n") }
            self.assets = .digest(count: assets.count, hash: h.finalize())
        }
    }

    init?(text: String) {
        var lines = text.split(separator: "\n").map(String.init)
        guard lines.first == Self.magic, lines.count >= 2 else { return nil }
        let first = lines[1].split(separator: " ")
        guard first.count == 2, first[0] == "inputs" else { return nil }
        inputs = String(first[1])
        if lines.count >= 3, lines[2].hasPrefix("settings ") {
            settings = String(lines[2].dropFirst("settings ".count))
            lines.remove(at: 2)
        }
        if lines.count == 3, case let parts = lines[2].split(separator: " "), parts.count == 3, parts[0] == "assets" {
            guard let count = Int(parts[1]) else { return nil }
            assets = .digest(count: count, hash: String(parts[2]))
            return
        }
        var listed: [Asset] = []
        for line in lines.dropFirst(2) {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "asset" else { return nil }
            listed.append(Asset(name: String(parts[1]), hash: String(parts[2])))
        }
        assets = .listed(listed)
    }

    var text: String {
        let head = [Self.magic, "inputs \(inputs)"] + (settings.map { ["settings \($0)"] } ?? [])
        switch assets {
        case .listed(let listed): return (head + listed.map(\.line)).joined(separator: "\n")
        case .digest(let count, let hash): return (head + ["assets \(count) \(hash)"]).joined(separator: "\n")
        }
    }
}
