// libFuzzer target: document.json and manifest.json (lnote-format.md sections 2 and 3), and
// the generic JSON value parser under them.
import LNoteFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let doc = try? DocumentParser.parse(bytes) {
        precondition(doc.format == 1)
        var seen = Set<LNoteID>()
        for slot in doc.pages {
            guard let e = slot.entry else { continue }
            precondition(DocumentParser.sizeRange.contains(Int64(e.width)))
            precondition(DocumentParser.sizeRange.contains(Int64(e.height)))
            precondition(DocumentParser.spacingRange.contains(Int64(e.background.spacing)))
            precondition(seen.insert(e.id).inserted, "a page id used twice was accepted")
            // Ids become file names: only the canonical UUID form may get through.
            precondition(LNoteID(e.id.canonical) == e.id && !e.id.canonical.contains("/"))
        }
        // The manifest written from it parses back to itself.
        let manifest = Manifest(document: doc)
        guard let back = try? Manifest.parse(manifest.jsonBytes()) else {
            preconditionFailure("a written manifest does not parse")
        }
        precondition(back == manifest)
    }
    if let m = try? Manifest.parse(bytes) {
        precondition((try? Manifest.parse(m.jsonBytes())) == m)
    }
    if case .success(let e) = ContentParser.parseElement(bytes) {
        precondition(!e.json.isEmpty)
    }
    return 0
}
