// Golden-image snapshots: how a page's golden file is named, and the metadata a golden carries.
//
// A golden of page N with id 2375571A-D637-… is `DIR/<document>/NNN-2375571a.png`: the number,
// padded to three digits, for people (files sort in page order), and the first eight hex
// digits of the page's id, which is what a golden is matched by. Page ids are stable, numbers
// are not: when a page is inserted before it, the golden `003-2375571a.png` is still the golden
// of that page (now page 4), compared as such, and renamed to `004-2375571a.png` when goldens are
// recorded (`--record`, `--update`). Should two pages of a document share those eight digits,
// both are named with the whole id instead (`003-2375571a-d637-417c-9045-33bbdcbfb3e4.png`); a
// golden named with the whole id is still found when its page's name becomes short again. (A page
// added later whose id shares the eight digits of an existing page's short-named golden makes
// the page's name the whole id; its golden keeps the short name until it is recorded again, and
// is told from the new page's by the page id it carries in its `lnote-page-id` text chunk.)

import LNoteFormat

/// The name of one page's golden file.
public struct GoldenName: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// 1-based page number when the name was made (only informative: `key` identifies the page).
    public var number: Int
    /// Lower-case hex id prefix (eight digits) or the whole lower-case id.
    public var key: String

    public static let keyLength = 8

    public init(number: Int, key: String) {
        self.number = number
        self.key = key
    }

    /// `003-2375571a.png`
    public var fileName: String {
        var n = String(number)
        while n.count < 3 { n = "0" + n }
        return "\(n)-\(key).png"
    }

    public var description: String { fileName }

    /// Parses a golden's file name; nil for any other file (`overrides.json`, `notes.txt`).
    public init?(fileName: String) {
        guard fileName.hasSuffix(".png"), let dash = fileName.firstIndex(of: "-") else { return nil }
        let digits = fileName[..<dash]
        let key = fileName[fileName.index(after: dash)..<fileName.index(fileName.endIndex, offsetBy: -4)]
        guard digits.count >= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits), number >= 1,
              key.count == Self.keyLength || key.count == 36,
              key.allSatisfy({ $0 == "-" || $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.init(number: number, key: String(key))
    }

    /// The golden names of a document's pages, in page order: nil for a slot without a valid
    /// id (an invalid page entry), which has no golden.
    public static func names(for pages: [PageSlot]) -> [GoldenName?] {
        let ids = pages.map { $0.entry?.id.canonical.lowercased() }
        var prefixCounts: [String: Int] = [:]
        for id in ids.compactMap({ $0 }) { prefixCounts[String(id.prefix(keyLength)), default: 0] += 1 }
        return ids.enumerated().map { index, id in
            guard let id else { return nil }
            let prefix = String(id.prefix(keyLength))
            return GoldenName(number: index + 1, key: prefixCounts[prefix]! > 1 ? id : prefix)
        }
    }
}

/// The PNG text chunks a golden carries, read back to tell "recorded by another renderer
/// version" from "differs". (The keyword `Page` is not used: ImageMagick reads it as a geometry.)
public enum GoldenMetadata {
    public static let rendererVersionKeyword = "lnote-renderer-version"
    public static let pageIDKeyword = "lnote-page-id"

    /// The `tEXt` chunks of a PNG file, keyword → text (Latin-1), in file order, the last of a
    /// keyword winning. Stops at the first malformed chunk or at `IDAT` (the metadata a golden
    /// writes comes before the pixels).
    public static func textChunks(ofPNG bytes: [UInt8]) -> [String: String] {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return [:] }
        var out: [String: String] = [:]
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            let dataStart = at + 8
            guard length >= 0, length <= bytes.count - dataStart - 4 else { break }
            if type == "IDAT" || type == "IEND" { break }
            if type == "tEXt" {
                let data = bytes[dataStart..<(dataStart + length)]
                if let zero = data.firstIndex(of: 0) {
                    let keyword = String(data[dataStart..<zero].map { Character(Unicode.Scalar($0)) })
                    out[keyword] = String(data[(zero + 1)...].map { Character(Unicode.Scalar($0)) })
                }
            }
            at = dataStart + length + 4
        }
        return out
    }

    /// The page id a golden file says it is of (lower case); nil when it cannot be read or does
    /// not say.
    public static func pageID(ofGolden path: String) -> String? {
        guard let bytes = try? FileIO.readRegularFile(atPath: path, display: path, maxBytes: 1 << 30) else { return nil }
        return textChunks(ofPNG: bytes)[pageIDKeyword]?.lowercased()
    }
}
