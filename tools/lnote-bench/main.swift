// lnote-bench: release-build benchmarks (run through tools/bench).
//
//   lnote-bench --dense PACKAGE --doc200 PACKAGE --work DIR [--costly DIR] [--runs N] [--regen-runs N] [--no-raster]
//   lnote-bench --dense PACKAGE --raster-only [--runs N] [--scale thumb|1x|2x ...]
//   lnote-bench --dense PACKAGE --doc200 PACKAGE --work DIR --store-only [--runs N]
//   lnote-bench --dense PACKAGE --doc200 PACKAGE --work DIR --vector-only [--runs N]
//   lnote-bench --library DIR [--runs N] [--no-watch]
//   lnote-bench --doc200 PACKAGE --work DIR --regen-only [--runs N] [--regen-runs N]
//   lnote-bench --photos-only --work DIR [--runs N]
//
// Times, single-threaded unless said otherwise, on the dense page: content decode, stroke
// raster at thumb / 1x / 2x, PNG encode of the 2x render (ours vs libpng zlib 6), the page's
// thumbnail end to end and by stage; on the 200-page document (a working copy in DIR):
// thumbnail regeneration from scratch (1 job and one per core), after one edit, with nothing
// changed, and one average page alone; with --costly, each `lnote-gen costly` page at thumbnail
// and 2x, rendered or refused (estimate, time, peak memory). Progress goes to stderr; stdout is
// one JSON object.
// --raster-only times the stroke raster alone (tools/bench alternates it with the peers, so
// that each pair of figures is taken under the same machine load); --no-raster leaves it out.
// --library times a generated library at scale instead: its no-op regeneration (after one
// untimed run that renders what is missing) at 1, 2 and all cores, and how soon `watch` notices
// an edit in it (--no-watch: the no-op alone). --regen-only times the 200-page document's
// regeneration alone (from scratch at 1, 2 and all cores, no-op, one edit, one page).
// The photo-heavy page (Photos.swift) is generated into DIR and timed too; --photos-only times it alone.

import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape

struct Arguments {
    var dense = ""
    var doc200 = ""
    var work = ""
    var costly = ""
    var runs = 7
    var regenRuns = 3
    var rasterOnly = false
    var raster = true
    /// Only the level-2 migration figures (Migration.swift), for measuring them alone.
    var storeOnly = false
    var library = ""
    var photosOnly = false
    /// Only the 200-page document's regeneration (`doc200Regeneration`).
    var regenOnly = false
    /// With --library: the no-op alone, not the watch latency.
    var watch = true
    /// --vector-only: the PDF export section alone (needs --dense, --doc200, --work).
    var vectorOnly = false
    /// The raster scales timed (`--scale S`, repeatable; default all): one scale alone is what a
    /// profiler wants.
    var scales: [RasterScale] = []

    init(_ args: [String]) throws {
        var i = 0
        func value() throws -> String {
            guard i + 1 < args.count else { throw BenchError("\(args[i]) needs a value") }
            i += 1
            return args[i]
        }
        func count() throws -> Int {
            let text = try value()
            guard let n = Int(text), n >= 1 else { throw BenchError("\(args[i - 1]) needs a positive integer, got '\(text)'") }
            return n
        }
        while i < args.count {
            switch args[i] {
            case "--dense": dense = try value()
            case "--doc200": doc200 = try value()
            case "--work": work = try value()
            case "--costly": costly = try value()
            case "--runs": runs = try count()
            case "--regen-runs": regenRuns = try count()
            case "--raster-only": rasterOnly = true
            case "--no-raster": raster = false
            case "--store-only": storeOnly = true; raster = false
            case "--library": library = try value()
            case "--photos-only": photosOnly = true
            case "--regen-only": regenOnly = true; raster = false
            case "--no-watch": watch = false
            case "--vector-only": vectorOnly = true; raster = false
            case "--scale":
                let text = try value()
                guard let scale = RasterScale(rawValue: text) else {
                    throw BenchError("--scale needs one of \(RasterScale.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
                }
                scales.append(scale)
            default: throw BenchError("unexpected argument '\(args[i])'")
            }
            i += 1
        }
        if !library.isEmpty { return }
        if photosOnly, !work.isEmpty, !rasterOnly { return }
        if regenOnly {
            guard !doc200.isEmpty, !work.isEmpty else { throw BenchError("--regen-only needs --doc200 PACKAGE and --work DIR") }
            return
        }
        guard !dense.isEmpty, rasterOnly || (!doc200.isEmpty && !work.isEmpty), !(rasterOnly && !raster) else {
            throw BenchError("usage: lnote-bench --dense PACKAGE --doc200 PACKAGE --work DIR [--runs N] [--regen-runs N] [--no-raster]\n"
                             + "       lnote-bench --dense PACKAGE --raster-only [--runs N]")
        }
    }
}

func progress(_ text: String) {
    FileHandle.standardError.write(Data("lnote-bench: \(text)\n".utf8))
}

func loadAverage() -> [Double] {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).compactMap { Double($0) }
}

/// Stroke raster of the dense page at each scale.
func denseRaster(_ package: LNotePackage, runs: Int, scales: [RasterScale]) throws -> [String: Any] {
    let entry = package.document.validPages[0]
    let page = try package.loadPage(entry, from: try package.readPageSource(entry))
    var raster: [String: Any] = [:]
    for scale in scales.isEmpty ? RasterScale.allCases : scales {
        progress("raster \(scale.rawValue)")
        let t = try measureRaster(page, at: scale, runs: runs)
        let size = PageTransform(pageWidth: entry.width, pageHeight: entry.height,
                                 scale: scale.scale(pageWidth: entry.width))
        raster[scale.rawValue] = ["ours": rounded(t.median), "ours_min": rounded(t.min), "ours_max": rounded(t.max),
                                  "width": size.width, "height": size.height]
    }
    return ["raster": raster]
}

/// Decode and PNG on the dense page.
func denseMicro(_ package: LNotePackage, runs: Int) throws -> [String: Any] {
    let entry = package.document.validPages[0]
    let source = try package.readPageSource(entry)
    let page = try package.loadPage(entry, from: source)
    let strokes = page.elements.compactMap { e -> Int? in if case .stroke(let s) = e.kind { return s.sampleCount } else { return nil } }

    progress("decode")
    let decode = try measureDecode(source, runs: runs)
    progress("png 2x")
    let bitmap2x = rasterStrokes(page, scale: 2)
    let fast = try measurePNG(bitmap2x, compression: .fast, runs: runs)
    let zlib6 = try measurePNG(bitmap2x, compression: .zlibDefault(level: 6), runs: runs)

    return [
        "dense": ["content_file": package.absolutePath(source.contentFile), "page_width": entry.width,
                  "page_height": entry.height, "content_bytes": source.content.count,
                  "strokes": strokes.count, "samples": strokes.reduce(0, +)],
        "decode_ms": rounded(decode.median),
        "decode_mb_per_s": rounded(Double(source.content.count) / 1e6 / (decode.median / 1e3)),
        "decode": decode.json,
        "png2x": ["ours_ms": rounded(fast.0.median), "ours_bytes": fast.bytes, "ours": fast.0.json,
                  "zlib6_ms": rounded(zlib6.0.median), "zlib6_bytes": zlib6.bytes, "zlib6": zlib6.0.json],
    ]
}

/// The dense page's thumbnail, end to end and by stage.
func denseThumbnail(_ package: LNotePackage, runs: Int) throws -> [String: Any] {
    progress("thumbnail of the dense page")
    let total = try measureThumbnailRegeneration(package.path, runs: runs)
    let stages = try measureThumbnailStages(package.document.validPages[0], of: package, runs: runs)
    return ["thumb_dense_ms": rounded(total.median), "thumb_dense": total.json,
            "thumb_dense_stages": stages.mapValues(\.json)]
}

/// Regeneration of the 200-page document, on a working copy.
func doc200Regeneration(_ original: String, work: String, runs: Int, regenRuns: Int) throws -> [String: Any] {
    let package = try workingCopy(of: original, in: work)
    let pages = try LNotePackage.open(at: URL(fileURLWithPath: package)).document.validPages.count
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var scratchByJobs: [Int: Timing] = [:]
    for jobs in jobCounts() {
        progress("regen200 from scratch, \(jobs) job(s)")
        scratchByJobs[jobs] = try measureScratch(package, jobs: jobs, runs: regenRuns)
    }
    let scratch = scratchByJobs[1]!, scratchParallel = scratchByJobs[cores]!
    progress("regen200 no-op")
    let noop = try measureNoop(package, runs: runs)
    let average = try medianPage(of: package)
    progress("regen200 one edit")
    let oneEdit = try measureOneEdit(package, page: average, runs: runs)
    progress("regen200 one page")
    let onePage = try measureOnePage(package, page: average, runs: runs)
    return ["regen200": [
        "pages": pages, "jobs": 1, "parallel_jobs": cores, "edited_page": average.id.original,
        "scratch_ms": rounded(scratch.median), "scratch_parallel_ms": rounded(scratchParallel.median),
        "noop_ms": rounded(noop.median), "one_edit_ms": rounded(oneEdit.median), "one_page_ms": rounded(onePage.median),
        "scratch_by_jobs": Dictionary(uniqueKeysWithValues: scratchByJobs.map { (String($0.key), $0.value.json) }),
        "timings": ["scratch": scratch.json, "scratch_parallel": scratchParallel.json, "noop": noop.json,
                    "one_edit": oneEdit.json, "one_page": onePage.json],
    ]]
}

do {
    let args = try Arguments(Array(CommandLine.arguments.dropFirst()))
    if !args.library.isEmpty {
        var result: [String: Any] = ["runs": args.runs, "cpus": ProcessInfo.processInfo.activeProcessorCount, "load_before": loadAverage()]
        result.merge(try libraryNoop(args.library, runs: args.runs)) { _, new in new }
        if args.watch { result.merge(try watchLatency(args.library)) { _, new in new } }
        result["load_after"] = loadAverage()
        print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
        exit(0)
    }
    var result: [String: Any] = ["runs": args.runs, "regen_runs": args.regenRuns,
                                 "cpus": ProcessInfo.processInfo.activeProcessorCount, "load_before": loadAverage()]
    var parts: [[String: Any]] = []
    if args.photosOnly {
        parts.append(try photoPage(work: args.work, runs: args.runs))
    } else if args.regenOnly {
        parts.append(try doc200Regeneration(args.doc200, work: args.work, runs: args.runs, regenRuns: args.regenRuns))
    } else {
        let dense = try LNotePackage.open(at: URL(fileURLWithPath: args.dense))
        if args.raster { parts.append(try denseRaster(dense, runs: args.runs, scales: args.scales)) }   // --raster-only implies it
        if args.vectorOnly {
            parts.append(try vectorExport(dense: dense, doc200: args.doc200, work: args.work + "/vector", runs: args.runs))
        } else if args.storeOnly {
            parts.append(try storeMigration(dense: args.dense, doc200: args.doc200, work: args.work + "/store", runs: args.runs))
        } else if !args.rasterOnly {
            parts += [try denseMicro(dense, runs: args.runs), try denseThumbnail(dense, runs: args.runs),
                      try doc200Regeneration(args.doc200, work: args.work, runs: args.runs, regenRuns: args.regenRuns),
                      try storeMigration(dense: args.dense, doc200: args.doc200, work: args.work + "/store", runs: args.runs),
                      try photoPage(work: args.work, runs: args.runs)]
            parts.append(try vectorExport(dense: dense, doc200: args.doc200, work: args.work + "/vector", runs: args.runs))
            if !args.costly.isEmpty { parts.append(try costlyPages(args.costly)) }
        }
    }
    for part in parts { result.merge(part) { _, new in new } }
    result["load_after"] = loadAverage()
    result["checksum"] = checksum
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
} catch {
    progress("error: \(error)")
    exit(1)
}
