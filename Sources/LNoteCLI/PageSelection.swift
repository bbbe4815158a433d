/// A set of 1-based page numbers written like Xournal++'s `--export-range`: `1,3-5,7-`.
///
/// Parts are separated by commas; each is `N`, `A-B` (inclusive) or `A-` (to the last page).
/// Numbers start at 1. The selection is resolved against a page count, in ascending order,
/// each page once.
public struct PageSelection: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case single(Int)
        case closed(Int, Int)
        case from(Int)
    }

    let parts: [Part]

    /// Every page.
    public static let all = PageSelection(parts: [.from(1)])

    init(parts: [Part]) { self.parts = parts }

    /// Parses `text`; throws a usage error that quotes the bad part.
    public init(parsing text: String) throws(UsageError) {
        var parts: [Part] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = raw.trimmingCharacters(in: " ")
            func number(_ s: Substring) throws(UsageError) -> Int {
                guard let n = Int(s), n >= 1 else {
                    throw UsageError("--pages: '\(part)' is not a page number or range (pages start at 1)")
                }
                return n
            }
            if let dash = part.firstIndex(of: "-") {
                let lo = try number(part[..<dash])
                let rest = part[part.index(after: dash)...]
                if rest.isEmpty {
                    parts.append(.from(lo))
                } else {
                    let hi = try number(rest)
                    guard hi >= lo else { throw UsageError("--pages: range '\(part)' runs backwards") }
                    parts.append(.closed(lo, hi))
                }
            } else {
                parts.append(.single(try number(part[...])))
            }
        }
        self.parts = parts
    }

    /// The selected 0-based page indices for a document of `pageCount` pages, ascending.
    /// Pages named beyond the end are returned separately so the caller can report them.
    public func resolve(pageCount: Int) -> (indices: [Int], outOfRange: [Int]) {
        var selected = Set<Int>()
        var missing = Set<Int>()
        for part in parts {
            switch part {
            case .single(let n):
                if n <= pageCount { selected.insert(n - 1) } else { missing.insert(n) }
            case .closed(let lo, let hi):
                if lo > pageCount { missing.insert(lo); continue }
                for n in lo...min(hi, pageCount) { selected.insert(n - 1) }
                if hi > pageCount { missing.insert(hi) }
            case .from(let lo):
                if lo > pageCount { if pageCount > 0 || lo > 1 { missing.insert(lo) }; continue }
                for n in lo...pageCount { selected.insert(n - 1) }
            }
        }
        return (selected.sorted(), missing.sorted())
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in character: Character) -> Substring {
        var s = self[...]
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return Substring(s)
    }
}
