import Foundation
import LNoteCodecs
import LNoteTestSupport
import XCTest

/// What another image tool makes of our PNG export. ImageMagick reads a `tEXt` chunk with the
/// keyword `Page` as the image's page geometry, so `export … | convert - -flatten out.png` once
/// gave a 3×2388 picture of a 1587×2388 page: the export writes registered keywords only.
final class ImageToolInteropTests: XCTestCase {
    func testImageMagickFlattensAnExportedPageToItsOwnSize() throws {
        let identify = try ExternalTool.require("identify", package: "imagemagick")
        let convert = try ExternalTool.require("convert", package: "imagemagick")
        let dir = try temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = dir + "/page.png", flat = dir + "/flat.png"
        let run = CLIRun(["export", Repo.sample, "--pages", "3", "--scale", "0.25", "-o", page])
        XCTAssertEqual(run.status, 0, run.all)
        let ours = try ImageDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: page))))
        let size = "\(ours.width)x\(ours.height)"
        // %g is the page geometry ImageMagick read from the file: the canvas, at no offset.
        let geometry = String(decoding: try ExternalProcess.output(identify, ["-format", "%wx%h %g", page]), as: UTF8.self)
        XCTAssertEqual(geometry, "\(size) \(size)+0+0")
        try ExternalProcess.output(convert, [page, "-flatten", flat])
        XCTAssertEqual(String(decoding: try ExternalProcess.output(identify, ["-format", "%wx%h", flat]), as: UTF8.self), size)
    }
}
