import Foundation
import LNoteFormat
import LNoteRender
import LNoteVector

/// PDF export (issue 15): the dense page as one PDF against its PNG export at scale 2, both end
/// to end (load, draw, encode, atomic write), and the 200-page document as one PDF: time, size
/// and the peak resident memory of writing it (page by page, so it should stay near one page).
func vectorExport(dense: LNotePackage, doc200 path: String, work: String, runs: Int) throws -> [String: Any] {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let pdfURL = work + "/bench.pdf", pngURL = work + "/bench.png"
    let pdfExporter = PageExporter(package: dense, settings: ExportSettings(format: .pdf, render: RenderOptions()))
    let pngExporter = PageExporter(package: dense, settings: ExportSettings(format: .png, render: RenderOptions(size: .scale(2))))
    progress("dense page as PDF")
    var pdfBytes = 0
    let pdf = try measure(runs: runs) {
        let out = pdfExporter.exportPDF(pages: [0], to: .file(pdfURL))
        if let e = out.error { throw e }
        pdfBytes = out.bytes
    }
    progress("dense page as PNG, scale 2")
    var pngBytes = 0
    let png = try measure(runs: runs) {
        let out = pngExporter.export(pages: [0], to: .file(pngURL))
        if let e = out[0].error { throw e }
        pngBytes = out[0].bytes
    }
    let entry = dense.document.validPages[0]
    let contentBytes = try dense.readPageSource(entry).content.count

    progress("200-page document as one PDF")
    let doc = try LNotePackage.open(at: URL(fileURLWithPath: path))
    let docExporter = PageExporter(package: doc, settings: ExportSettings(format: .pdf, render: RenderOptions()))
    let docURL = work + "/doc200.pdf"
    let before = peakRSS()
    resetPeakRSS()
    let start = nowMs()
    let out = docExporter.exportPDF(pages: Array(0..<doc.pages.count), to: .file(docURL))
    let elapsed = nowMs() - start
    if let e = out.error { throw e }
    let peak = peakRSS()
    try? FileManager.default.removeItem(atPath: docURL)
    var docContent = 0
    for entry in doc.document.validPages { docContent += (try? doc.readPageSource(entry).content.count) ?? 0 }

    // Content-stream compression: the same PDFs drawn straight onto the backend at Flate
    // levels 1, 6 and 9 (no file written; bytes counted), the dense page timed over `runs`.
    var levels: [String: Any] = [:]
    for level: Int32 in [1, 6, 9] {
        progress("dense page as PDF, Flate level \(level)")
        var bytes = 0
        let t = try measure(runs: runs) { bytes = try pdfSize(dense, pages: [0], level: level) }
        progress("200-page document as PDF, Flate level \(level)")
        let docStart = nowMs()
        let docBytes = try pdfSize(doc, pages: Array(0..<doc.pages.count), level: level)
        levels["\(level)"] = ["dense_ms": rounded(t.median), "dense_bytes": bytes,
                               "doc200_ms": rounded(nowMs() - docStart), "doc200_bytes": docBytes]
    }
    return ["vector": [
        "dense_pdf_ms": rounded(pdf.median), "dense_pdf_bytes": pdfBytes, "dense_pdf": pdf.json,
        "dense_png2x_export_ms": rounded(png.median), "dense_png2x_bytes": pngBytes, "dense_png2x_export": png.json,
        "dense_content_bytes": contentBytes,
        "doc200_pages": doc.pages.count, "doc200_pdf_ms": rounded(elapsed), "doc200_pdf_bytes": out.bytes,
        "doc200_peak_rss_bytes": peak, "peak_rss_before_bytes": before,
        "doc200_content_bytes": docContent, "flate_levels": levels,
    ]]
}

/// Discards bytes, counting them.
final class NullOutput: ByteOutput {
    var count = 0
    func append(_ bytes: [UInt8]) { count += bytes.count }
}

/// The size of `pages` of `package` as one PDF with content streams at Flate `level`.
func pdfSize(_ package: LNotePackage, pages: [Int], level: Int32) throws -> Int {
    let out = NullOutput()
    let d = package.document
    let pdf = try PDFDocumentBackend(output: out, package: package,
                                     info: PDFInfo(title: d.title, producer: "lnote-bench", createdAt: d.createdAt, modifiedAt: d.modifiedAt),
                                     compression: level)
    for index in pages {
        let page = try package.loadPage(at: index)
        var backend = pdf
        _ = try PageRenderer.draw(page, transform: VectorGrid.transform(for: page.entry),
                                  layers: RenderOptions().background.layers, onto: &backend)
    }
    try pdf.finish()
    return out.count
}
