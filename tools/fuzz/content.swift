// libFuzzer target: the page content parser (lnote-format.md section 4).
//
// Any input must come back as a PageContent or an LNoteError, never a trap, and what comes
// back must obey the rules the renderer relies on. Compaction writes the parsed elements back
// with ContentWriter, so the snapshot must parse again to the same elements.
import LNoteFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContent(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A small element limit keeps each run fast; the limit path is exercised as well.
    guard let page = try? ContentParser.parse(bytes, file: "pages/fuzz.content", elementLimit: 4096) else { return 0 }
    precondition(page.format == 1)
    for element in page.elements {
        switch element.kind {
        case .stroke(let s):
            precondition(s.points.count % 5 == 0)
            precondition(s.sampleCount <= ContentLimits.maxSamplesPerStroke)
            var i = 0
            while i < s.points.count {
                precondition(ContentLimits.radiusRange.contains(s.points[i + 2]))
                precondition(ContentLimits.pressureRange.contains(s.points[i + 3]))
                i += 5
            }
        case .image(let p):
            precondition(AssetName.isValid(p.asset))
            precondition(p.width > 0 && p.height > 0)
            precondition((0...1000).contains(p.opacity))
        case .unknown:
            break
        }
        // Each element's kept JSON is one valid element on its own (journal payload form).
        guard case .success(let again) = ContentParser.parseElement(element.json) else {
            preconditionFailure("an accepted element's JSON does not parse on its own")
        }
        precondition(again.kind == element.kind && again.id == element.id)
    }
    // The compaction round trip.
    let snapshot = ContentWriter.snapshot(page.elements)
    guard let reparsed = try? ContentParser.parse(snapshot, file: "pages/fuzz.content", elementLimit: 4096) else {
        preconditionFailure("the snapshot of a parsed page does not parse")
    }
    precondition(reparsed.elements == page.elements && reparsed.diagnostics.isEmpty)
    return 0
}
