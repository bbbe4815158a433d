// Pages built to stress the vector export where viewers disagree: the soft-mask path (a pencil
// stroke overlapping itself dozens of times with swinging pressure; a highlighter doing the same
// over a photo, thin ends making its factor vary), thin strokes of varying factor crossing each
// other, and a page exported without paper. Built by code, deterministic, into a temporary
// directory (nothing is committed).

import Foundation
import LNoteCodecs
import LNoteBitmap
import LNoteFormat
import LNoteTestSupport

enum VectorStressPages {
    static let documentID = "5A3C0F5E-7B2D-4E61-9C1A-27D1E0B6A027"
    static let width = 4000, height = 3000   // 400 × 300 pt
    static let photo = "E0000000-0000-4000-8000-000000000027.jpg"

    struct Page {
        var name: String
        var background: String
        var elements: [Element]
    }

    static func id(_ prefix: String, _ k: Int) -> String { String(format: "\(prefix)-0000-4000-8000-%012d", k) }

    /// A zig-zag shading block: `passes` strokes' worth of back-and-forth in ONE stroke, each pass
    /// `advance` lower than the last, so every point is covered by many passes.
    static func zigzag(x0: Int, x1: Int, y0: Int, passes: Int, advance: Int, radius: (Int) -> Int,
                       pressure: (Int) -> Int) -> [Int32] {
        var points: [Int32] = []
        var k = 0
        for pass in 0..<passes {
            let steps = 24
            for s in 0...steps {
                let t = Double(s) / Double(steps)
                let x = pass % 2 == 0 ? Double(x0) + t * Double(x1 - x0) : Double(x1) - t * Double(x1 - x0)
                let y = Double(y0 + pass * advance) + 60 * sin(t * .pi) * (pass % 2 == 0 ? 1 : -1)
                points += [Int32(x), Int32(y), Int32(radius(k)), Int32(pressure(k)), Int32(k * 8)]
                k += 1
            }
        }
        return points
    }

    static var pages: [Page] {
        // 1. Pencil shading: 48 passes 30 units apart with a 4 pt radius (each point under
        //    about 25 passes), pressure swinging 0…1000, colour alpha 0.6.
        let pencil = Element.stroke(id: id("A2700000", 1), tool: .pencil, color: Color(r: 0x20, g: 0x20, b: 0x30, a: 153),
                                    points: zigzag(x0: 400, x1: 3600, y0: 500, passes: 48, advance: 30, radius: { _ in 40 },
                                                   pressure: { k in Int(500 + 500 * sin(Double(k) * 0.07)) }))
        // 2. The same shading in highlighter over a photo; its radius swings down to 0.1 pt, so
        //    the thin parts' factor varies (a soft mask under Multiply).
        let frame = ImagePlacement(asset: photo, x: 300, y: 300, width: 3400, height: 2400)
        let highlighter = Element.stroke(id: id("A2700000", 2), tool: .highlighter, color: Color(r: 0xFF, g: 0xD8, b: 0x00, a: 200),
                                         points: zigzag(x0: 400, x1: 3600, y0: 500, passes: 48, advance: 40,
                                                        radius: { k in Int(26 + 25 * sin(Double(k) * 0.05)) }, pressure: { _ in 500 }))
        // 3. Thin strokes crossing: radii tapering 0.3 → 0 pt and back, so factors vary along
        //    every stroke; opaque and translucent, pen and pencil.
        var thin: [Element] = []
        for i in 0..<24 {
            var points: [Int32] = []
            let horizontal = i % 2 == 0
            let c = 300 + (i / 2) * 220
            for s in 0...60 {
                let t = Double(s) / 60
                let along = 200 + Int(t * Double((horizontal ? width : height) - 400))
                let wobble = Int(40 * sin(t * 7 + Double(i)))
                let r = Int32((3 * abs(sin(t * 3.1 + Double(i)))).rounded())
                let (x, y) = horizontal ? (along, min(height - 100, c + wobble)) : (c + wobble, along)
                points += [Int32(x), Int32(y), r, Int32(300 + 25 * s % 700), Int32(s * 10)]
            }
            let tool: Tool = i % 3 == 2 ? .pencil : .pen
            let color = i % 4 < 2 ? Color(r: 0x10, g: 0x18, b: 0x50) : Color(r: 0xB0, g: 0x10, b: 0x20, a: 160)
            thin.append(Element.stroke(id: id("A2700001", i), tool: tool, color: color, points: points))
        }
        // 4. For the transparent export: a ruled page with a pencil block and a pen line.
        let pencil2 = Element.stroke(id: id("A2700002", 1), tool: .pencil, color: Color(r: 0x30, g: 0x30, b: 0x30, a: 230),
                                     points: zigzag(x0: 600, x1: 3400, y0: 700, passes: 30, advance: 50, radius: { _ in 30 },
                                                    pressure: { k in Int(400 + 400 * sin(Double(k) * 0.11)) }))
        let pen = Element.stroke(id: id("A2700002", 2), color: Color(r: 0x10, g: 0x40, b: 0xA0, a: 180),
                                 points: (0...40).flatMap { s -> [Int32] in
                                     [Int32(500 + s * 75), Int32(2600 - Int(200 * sin(Double(s) / 6))), 15, 500, Int32(s)]
                                 })
        return [
            Page(name: "pencil-shading", background: ##"{"color":"#FFFFFF","template":"blank"}"##, elements: [pencil]),
            Page(name: "highlighter-photo", background: ##"{"color":"#FFFFFF","template":"blank"}"##,
                 elements: [Element.image(id: id("B2700000", 1), placement: frame), highlighter]),
            Page(name: "thin-crossing", background: ##"{"color":"#FFFDF5","template":"blank"}"##, elements: thin),
            Page(name: "transparent", background: ##"{"color":"#FFF4D6","template":"ruled","spacing":320}"##,
                 elements: [pencil2, pen]),
        ]
    }

    /// The index of the page exported with a transparent background.
    static let transparentPage = 3

    /// A smooth photo-like JPEG with an EXIF orientation tag of 6 ("rotate 90° clockwise to
    /// view"), which the spec says to ignore (§4): a viewer that honours it shows the photo turned.
    static func photoJPEG() throws -> [UInt8] {
        let w = 480, h = 320
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = 4 * (y * w + x)
                px[i] = UInt8(40 + 180 * x / w)
                px[i + 1] = UInt8(60 + 150 * y / h)
                px[i + 2] = UInt8(200 - 120 * (x + y) / (w + h))
                // A dark bar along the top edge and one in the left third: an orientation
                // change moves them.
                if y < 40 || (x > 60 && x < 120 && y < 200) { px[i] = 20; px[i + 1] = 20; px[i + 2] = 60 }
            }
        }
        let jpeg = try JPEGEncoder.encode(Bitmap(width: w, height: h, pixels: px, isPremultiplied: false), quality: 92)
        return withOrientation(jpeg, 6)
    }

    /// `jpeg` with an APP1 Exif segment holding one IFD0 entry, Orientation = `value`, after SOI.
    static func withOrientation(_ jpeg: [UInt8], _ value: UInt16) -> [UInt8] {
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A, 0, 0, 0, 8]
        tiff += [0, 1]                                    // one entry
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1]            // Orientation, SHORT, count 1
        tiff += [UInt8(value >> 8), UInt8(value & 0xFF), 0, 0]
        tiff += [0, 0, 0, 0]                              // no next IFD
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + jpeg.dropFirst(2)
    }

    /// Writes the package into `dir` (through `PackageBuilder`); its path.
    static func make(in dir: String) throws -> String {
        let pageIDs = pages.indices.map { id("C2700000", $0 + 1) }
        let package = try PackageBuilder(in: dir, documentID: documentID, pageIDs: pageIDs, pageSize: (width, height),
                                         directories: ["pages", "assets"])
        try package.write("assets/" + photo, try photoJPEG())
        for (k, page) in pages.enumerated() { try package.writeContent(page: k, elements: page.elements) }
        let entries = pages.enumerated().map { k, page in
            PackageBuilder.PageEntry(id: pageIDs[k], width: width, height: height,
                                     extra: #","elementCount":\#(page.elements.count),"background":\#(page.background)"#)
        }
        try package.writeDocument(title: "Vector stress pages", createdAt: "2026-11-30T08:00:00Z", entries: entries)
        return package.path
    }
}
