import LNoteFormat

/// A per-document tolerance file, `DIR/<document>/overrides.json`, so that one page that
/// differs a little on some machines does not loosen every other page:
///
///     {"tolerance": 2, "maxDiffering": "0.1%",
///      "pages": {"3": {"tolerance": 8, "maxDiffering": 40}, "2375571a": {"maxDiffering": "1%"}}}
///
/// Top-level `tolerance` / `maxDiffering` apply to every page of the document; an entry of
/// `pages` to one page, named by its number (`"3"`) or by its id or the first eight or more hex
/// digits of it (stable when pages are inserted). Each member is optional; what is not given
/// comes from the level above (the command line last). Unknown members are errors, so that a
/// misspelt `"tolerence"` cannot silently do nothing.
public struct SnapshotOverrides: Sendable, Equatable {
    public static let fileName = "overrides.json"

    /// What one level of the file says; nil members are not given.
    public struct Tolerance: Sendable, Equatable {
        public var channelTolerance: Int?
        public var maxDiffering: PixelAllowance?

        public init(channelTolerance: Int? = nil, maxDiffering: PixelAllowance? = nil) {
            self.channelTolerance = channelTolerance
            self.maxDiffering = maxDiffering
        }
    }

    public enum PageSelector: Sendable, Equatable, CustomStringConvertible {
        case number(Int)
        /// Lower-case hex digits (and hyphens) the page id starts with.
        case idPrefix(String)

        public var description: String {
            switch self {
            case .number(let n): return String(n)
            case .idPrefix(let p): return p
            }
        }
    }

    public var document: Tolerance
    public var pages: [(selector: PageSelector, tolerance: Tolerance)]

    public init(document: Tolerance = Tolerance(), pages: [(selector: PageSelector, tolerance: Tolerance)] = []) {
        self.document = document
        self.pages = pages
    }

    public static func == (a: SnapshotOverrides, b: SnapshotOverrides) -> Bool {
        a.document == b.document && a.pages.count == b.pages.count
            && zip(a.pages, b.pages).allSatisfy { $0.selector == $1.selector && $0.tolerance == $1.tolerance }
    }

    /// Parses the file's bytes; `file` names it in errors.
    public init(json bytes: [UInt8], file: String) throws(SnapshotError) {
        let value: JSONValue
        do throws(JSONError) { value = try JSONValue.parse(bytes) } catch {
            throw SnapshotError(file: file, message: error.description)
        }
        guard case .object(let members) = value else {
            throw SnapshotError(file: file, message: "the file is \(value.typeName), not an object")
        }
        self.init(document: try Self.tolerance(members, allowing: ["pages"], at: "the file", file: file))
        guard let pagesValue = value["pages"] else { return }
        guard case .object(let entries) = pagesValue else {
            throw SnapshotError(file: file, message: "\"pages\" is \(pagesValue.typeName), not an object of page number or id → tolerance")
        }
        for (key, entry) in entries {
            let selector: PageSelector
            let lower = key.lowercased()
            // Fewer than eight digits is a page number; eight or more hex digits, even all
            // decimal ones (`12345678`), is an id prefix: no document has ten million pages.
            if !key.isEmpty, key.count < GoldenName.keyLength, key.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(key), n >= 1 {
                selector = .number(n)
            } else if lower.count >= GoldenName.keyLength, lower.count <= 36, lower.allSatisfy({ $0 == "-" || $0.isHexDigit }) {
                selector = .idPrefix(lower)
            } else {
                throw SnapshotError(file: file, message: "\"pages\": '\(key)' is neither a page number (1 to 7 digits) nor a page id (8 or more hex digits of it)")
            }
            guard case .object(let fields) = entry else {
                throw SnapshotError(file: file, message: "\"pages\".\"\(key)\" is \(entry.typeName), not an object")
            }
            pages.append((selector, try Self.tolerance(fields, allowing: [], at: "\"pages\".\"\(key)\"", file: file)))
        }
    }

    private static func tolerance(_ members: [(key: String, value: JSONValue)], allowing extra: Set<String>, at place: String,
                                  file: String) throws(SnapshotError) -> Tolerance {
        var out = Tolerance()
        for (key, value) in members {
            switch key {
            case "tolerance":
                guard let v = value.integerValue, (0...255).contains(v) else {
                    throw SnapshotError(file: file, message: "\(place): \"tolerance\" must be an integer from 0 to 255, not \(value.typeName)")
                }
                out.channelTolerance = Int(v)
            case "maxDiffering":
                let text: String
                if let v = value.integerValue { text = String(v) } else if let s = value.stringValue { text = s } else {
                    throw SnapshotError(file: file, message: "\(place): \"maxDiffering\" must be a pixel count or a percentage string (\"0.5%\"), not \(value.typeName)")
                }
                do throws(PixelAllowance.ParseError) { out.maxDiffering = try PixelAllowance(parsing: text) } catch {
                    throw SnapshotError(file: file, message: "\(place): \"maxDiffering\": \(error.message)")
                }
            case _ where extra.contains(key):
                continue
            default:
                throw SnapshotError(file: file, message: "\(place): unknown member \"\(key)\" (known: tolerance, maxDiffering\(extra.isEmpty ? "" : ", pages"))")
            }
        }
        return out
    }

    /// Whether a `pages` entry names the page `number` with golden key `id` (lower case).
    static func selects(_ selector: PageSelector, number: Int, id: String) -> Bool {
        switch selector {
        case .number(let n): return n == number
        case .idPrefix(let p): return id.hasPrefix(p)
        }
    }

    /// The tolerance of page `number` (id `id`, lower case), starting from `base`.
    public func tolerance(page number: Int, id: String, base: (channel: Int, allowance: PixelAllowance))
        -> (channel: Int, allowance: PixelAllowance) {
        var t = (channel: document.channelTolerance ?? base.channel, allowance: document.maxDiffering ?? base.allowance)
        for (selector, level) in pages where Self.selects(selector, number: number, id: id) {
            t = (level.channelTolerance ?? t.channel, level.maxDiffering ?? t.allowance)
        }
        return t
    }
}

/// A snapshot input that could not be used (an override file, a golden directory), naming the
/// file and what is wrong.
public struct SnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
