// Page content (section 4): `pages/<UUID>.content`, the file as a whole. Its elements are read by
// `ElementReader` (ElementReader.swift: the element rules), their `points` arrays by the
// dedicated integer decoder (PointsDecoder.swift); an element's payload in a journal frame goes
// through `ContentParser.parseElement`.
//
// The `points` arrays are most of the bytes of a page, so they are decoded by a dedicated loop
// straight into a reusable Int32 scratch buffer (one copy into the stroke's array at the end, no
// per-number allocation). Everything else in an element is small and goes through the generic
// `JSONValue` path, which keeps the rules readable; values whose contents are never looked at
// (a `format` or `frame` of the wrong type) are only validated, not built (`JSONShape`).

/// The decoded content of one page: its elements in z-order, and warnings for what was skipped.
public struct PageContent: Sendable, Equatable {
    public var format: Int
    public var elements: [Element]
    /// One warning per skipped element, up to `ContentLimits.maxWarningsPerPage`, then one
    /// summary warning for the rest.
    public var diagnostics: [Diagnostic]
    /// How many elements were skipped as invalid (all of them, not only those with a warning).
    public var skippedElements: Int
    /// The file's top-level members other than `format` and `elements` (keys a newer app added),
    /// each as its text `"key": value` exactly as read, in file order, duplicates included.
    /// Compaction writes them back, as it does the unknown keys inside elements. The slices
    /// share the file's bytes.
    public var unknownMembers: [ArraySlice<UInt8>]

    public init(format: Int = 1, elements: [Element], diagnostics: [Diagnostic] = [], skippedElements: Int? = nil,
                unknownMembers: [ArraySlice<UInt8>] = []) {
        self.format = format
        self.elements = elements
        self.diagnostics = diagnostics
        self.skippedElements = skippedElements ?? diagnostics.count
        self.unknownMembers = unknownMembers
    }
}

/// The limits of section 7 that the content parser enforces.
public enum ContentLimits {
    /// Invalid elements reported one by one per page; beyond this they are counted in one
    /// summary warning (a hostile page of a million bad elements must not print a million lines).
    public static let maxWarningsPerPage = 100
    /// More elements than this on one page makes the page fail.
    public static let maxElementsPerPage = 1_000_000
    /// More samples than this in one stroke makes the element invalid.
    public static let maxSamplesPerStroke = 1_000_000
    /// Radius range in 0.1 pt.
    public static let radiusRange: ClosedRange<Int32> = 0...100_000
    /// Pressure range in thousandths.
    public static let pressureRange: ClosedRange<Int32> = 0...1000
    /// Opacity range in thousandths.
    public static let opacityRange: ClosedRange<Int64> = 0...1000
}

public enum ContentParser {
    /// Parses a content file. Throws (the page fails) when the file is not valid UTF-8 JSON, is
    /// not an object, has no `elements` array, has a newer `format`, or has more than
    /// `elementLimit` elements. Invalid elements are skipped and reported in `diagnostics`.
    /// - Parameter file: the file's path relative to the package, used in messages.
    public static func parse(_ bytes: [UInt8], file: String,
                             elementLimit: Int = ContentLimits.maxElementsPerPage) throws(LNoteError) -> PageContent {
        do {
            return try bytes.withUnsafeBufferPointer { (buf) throws(ContentFailure) -> PageContent in
                try parseContent(buf, source: bytes, file: file, elementLimit: elementLimit)
            }
        } catch {
            switch error {
            case .json(let e): throw LNoteError.json(e, file: file)
            case .rule(let e): throw e
            }
        }
    }

    /// Parses one element (a whole JSON text, as in a journal payload). A payload that is not
    /// valid JSON is reported with rule `json`.
    public static func parseElement(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Element, ElementProblem> {
        parseElement(bytes, source: nil)
    }

    public static func parseElement(_ bytes: [UInt8]) -> Result<Element, ElementProblem> {
        bytes.withUnsafeBufferPointer { parseElement($0, source: bytes) }
    }

    private static func parseElement(_ bytes: UnsafeBufferPointer<UInt8>, source: [UInt8]?) -> Result<Element, ElementProblem> {
        var s = JSONScanner(bytes)
        var reader = ElementReader(source: source)
        do {
            let outcome = try reader.read(&s)
            try s.finish()
            return outcome
        } catch {
            return .failure(ElementProblem(id: nil, code: .json, message: error.description))
        }
    }

    private enum ContentFailure: Error {
        case json(JSONError)
        case rule(LNoteError)
    }

    /// - Parameter source: the array `buf` points into; the elements' JSON texts share it.
    private static func parseContent(_ buf: UnsafeBufferPointer<UInt8>, source: [UInt8], file: String,
                                     elementLimit: Int) throws(ContentFailure) -> PageContent {
        var s = JSONScanner(buf)
        var reader = ElementReader(source: source)
        var format: JSONValue? = nil
        var elements: [Element]? = nil
        var diagnostics: [Diagnostic] = []
        var skippedCount = 0
        var unknownMembers: [ArraySlice<UInt8>] = []
        do {
            s.skipBOM()
            s.skipWhitespace()
            guard s.peek() == _lbrace else {
                // Still a JSON error if it is not JSON at all; otherwise the wrong type.
                try s.walk(.skip)
                try s.finish()
                throw ContentFailure.rule(LNoteError(.invalid, file: file, code: .contentObject,
                                                     message: "the content is not a JSON object"))
            }
            try s.beginObject()
            var first = true
            var key: [UInt8] = []
            var memberSearchStart = s.pos
            while try s.nextMember(first: &first, key: &key) {
                defer { memberSearchStart = s.pos }
                if key == keyElements {
                    // Duplicate keys: the last `elements` counts, so start afresh each time.
                    guard s.peek() == _lbracket else {
                        let v = try s.walk(.keep(.typeOnly))
                        throw ContentFailure.rule(LNoteError(.invalid, file: file, code: .elements,
                                                             message: "elements is \(v.typeName), not an array"))
                    }
                    var list: [Element] = []
                    var found = Capped<Diagnostic>(limit: ContentLimits.maxWarningsPerPage)
                    try s.beginArray()
                    var firstElement = true
                    var index = 0
                    while try s.nextElement(first: &firstElement) {
                        if index >= elementLimit {
                            throw ContentFailure.rule(LNoteError(.limit, file: file, code: .elementLimit,
                                                                 message: "more than \(elementLimit) elements on the page"))
                        }
                        switch try reader.read(&s) {
                        case .success(let element): list.append(element)
                        case .failure(let p):
                            found.add(Diagnostic(severity: .warning, file: file, elementIndex: index,
                                                 elementID: p.id, code: p.code, message: p.message))
                        }
                        index += 1
                    }
                    elements = list
                    diagnostics = found.diagnostics { more in
                        Diagnostic(severity: .warning, file: file, code: .moreInvalidElements,
                                   message: "\(more) more invalid element(s) skipped without a warning each")
                    }
                    skippedCount = found.total
                } else if key == keyFormat {
                    format = try s.walk(.keep(.typeOnly))
                } else {
                    // Kept as text, not as a parsed value: it is only written back. Between the
                    // end of the previous member and the key there is only whitespace and at most
                    // one comma, so the key starts at the first quote after it.
                    var keyStart = memberSearchStart
                    while buf[keyStart] != _quote { keyStart += 1 }
                    try s.walk(.skip)
                    unknownMembers.append(source[keyStart..<s.pos])
                }
            }
            try s.finish()
        } catch let e as JSONError {
            throw .json(e)
        } catch let e as ContentFailure {
            throw e
        } catch {
            fatalError("unreachable: \(error)")
        }
        let version = try checkFormat(format, file: file)
        guard let elements else {
            throw .rule(LNoteError(.invalid, file: file, code: .elements, message: "the content has no elements array"))
        }
        return PageContent(format: version, elements: elements, diagnostics: diagnostics, skippedElements: skippedCount,
                           unknownMembers: unknownMembers)
    }

    /// `format`: missing means 1; a higher one fails; anything but a positive integer is invalid.
    private static func checkFormat(_ v: JSONValue?, file: String) throws(ContentFailure) -> Int {
        guard let v else { return 1 }
        guard let n = v.integerValue, n >= 1 else {
            throw .rule(LNoteError(.invalid, file: file, code: .format,
                                   message: "format must be a positive integer, found \(v.typeName)"))
        }
        if n > 1 {
            throw .rule(LNoteError(.newerFormat, file: file, code: .format,
                                   message: "format \(n) was written by a newer app (this version reads format 1)"))
        }
        return 1
    }
}

private let keyElements = Array("elements".utf8)
private let keyFormat = Array("format".utf8)
