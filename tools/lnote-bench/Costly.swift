// The costly pages (`lnote-gen costly`): each class at thumbnail and 2x, rendered or refused
// in-process exactly as `thumbnails` and `export --scale 2` do, with the work estimate, the
// wall time and the growth of peak RSS.

import Foundation
import LNoteFormat
import LNoteRaster
import LNoteRender
import LNoteShape

func costlyPages(_ dir: String) throws -> [String: Any] {
    var classes: [String: Any] = [:]
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".lnote") }.sorted()
    for name in names {
        let package = try LNotePackage.open(at: URL(fileURLWithPath: dir + "/" + name))
        let page = try package.loadPage(at: 0)
        let samples = page.elements.reduce(0) { n, e in if case .stroke(let s) = e.kind { return n + s.sampleCount } else { return n } }
        var row: [String: Any] = ["strokes": page.elements.count, "samples": samples]
        for (label, size) in [("thumb", OutputSize.width(320)), ("2x", OutputSize.scale(2))] {
            progress("costly \(package.document.title) \(label)")
            let options = RenderOptions(size: size)
            let t = try PageRenderer.transform(for: page.entry, options: options, file: page.contentFile)
            let estimate = RasterWork.estimate(page.elements, transform: t).seconds
            resetPeakRSS()
            let before = peakRSS()
            let start = nowMs()
            var refused = false
            do {
                keep(try PageRenderer.render(page, of: package, options: options, assets: AssetCache()).bitmap)
            } catch {
                refused = error.code == .maxWork
                if !refused { throw error }
            }
            row[label] = ["estimate_s": rounded(estimate), "ms": rounded(nowMs() - start), "refused": refused,
                          "peak_growth_mb": rounded(Double(peakRSS() - before) / 1e6)]
        }
        classes[package.document.title] = row
    }
    return ["costly": classes]
}

/// Peak resident set size (VmHWM) in bytes.
func peakRSS() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kb * 1024
}

/// Lowers VmHWM to the current RSS, so the next peak is this measurement's own.
func resetPeakRSS() {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, "5", 1)
    close(fd)
}
