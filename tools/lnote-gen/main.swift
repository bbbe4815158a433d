// lnote-gen: deterministic generator of realistic .lnote documents (format 1).
//
//   swift run lnote-gen <preset> --out DIR [--seed N] [--pages N] [--strokes N]
//
// The same command always writes byte-identical packages: ids, dates and every sample are
// derived from the seed; nothing comes from the clock or the system RNG.

import Foundation

let usage = """
usage: lnote-gen <preset> --out DIR [--seed N] [--pages N] [--strokes N]

presets:
  line      one page, one line of handwriting (~10 words)
  page      one ordinary page of notes (~300 strokes; --strokes, --pages)
  dense     one page, 2,000 strokes / 236,000 samples, 3-5 MB content (--strokes)
  doc200    a 200-page document of mixed pages (--pages, --strokes: mean per page)
  library   ~6 small documents (--pages: number of documents)
  features  the golden-image fixture: one page per rendering feature
  sample    the README demo document (write it to tools/sample)
  highlighter  one page of 200 wide highlighter swipes over some writing (--strokes)
  pencil    one page of pencil shading: 600 hatching strokes of varying pressure (--strokes)
  costly    four one-page documents that are expensive by construction (a 1M-sample pencil
            stroke, 3,000 page-covering strokes, 100,000 far diagonals, 200,000 stacked discs);
            --strokes P scales each to P percent

--seed N     any unsigned 64-bit integer (default 1); ids and dates derive from it
--pages N    page (or document) count where the preset has one
--strokes N  stroke count (per page) where the preset has one
"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("lnote-gen: " + message + "\n").utf8))
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
if args.isEmpty || args.contains("-h") || args.contains("--help") {
    print(usage)
    exit(args.isEmpty ? 2 : 0)
}
var options = GenOptions()
var preset: String?
var i = 0
while i < args.count {
    let a = args[i]
    func value() -> String {
        guard i + 1 < args.count else { fail("\(a) needs a value") }
        i += 1
        return args[i]
    }
    func positive(_ s: String) -> Int {
        guard let n = Int(s), n > 0 else { fail("\(a) needs a positive integer, got '\(s)'") }
        return n
    }
    switch a {
    case "--out", "-o": options.out = value()
    case "--seed":
        let s = value()
        guard let n = UInt64(s) else { fail("--seed needs an unsigned integer, got '\(s)'") }
        options.seed = n
    case "--pages": options.pages = positive(value())
    case "--strokes": options.strokes = positive(value())
    default:
        if a.hasPrefix("-") || preset != nil { fail("unexpected argument '\(a)'\n\n" + usage) }
        preset = a
    }
    i += 1
}
guard let preset else { fail("no preset given\n\n" + usage) }
guard let out = options.out else { fail("--out DIR is required") }
guard let run = Presets.all[preset] else {
    fail("unknown preset '\(preset)' (one of: \(Presets.all.keys.sorted().joined(separator: ", ")))")
}
do {
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let stats = try run(options)
    for s in stats {
        print(s.path)
        var line = "  pages \(s.pages), strokes \(s.strokes), samples \(s.samples), content \(s.contentBytes) bytes"
        if s.pages > 1 { line += " (largest page \(s.largestContent))" }
        if s.images > 0 { line += ", images \(s.images), assets \(s.assetBytes) bytes" }
        if s.journals > 0 { line += ", journals \(s.journals)" }
        print(line)
        if let note = s.note { print("  " + note) }
    }
} catch {
    fail("\(error)")
}
