// Unit tests of the vector writers' parts: numbers, dates, text strings, JPEG frame headers,
// the orientation of every sub-path a stroke is made of, and the factor levels of a mask.

import Foundation
import Testing
import Glibc
@testable import LNoteVector
import LNoteFormat
import LNoteShape
import LNoteTestSupport

@Suite struct VectorWriterTests {
    @Test func colourComponentsSurviveTruncatingAndRoundingViewers() {
        // MuPDF truncates a colour to a byte, poppler and PDFium round: every byte must come back
        // from its decimal both ways (".992" for 253 came out 252 in MuPDF).
        for c in 0...255 {
            var text: [UInt8] = []
            NumberText.component(UInt8(c), into: &text)
            let v = Double(String(decoding: text, as: UTF8.self))!
            #expect(Int(Float(v) * 255) == c && Int((v * 255).rounded()) == c, "\(c): \(String(decoding: text, as: UTF8.self))")
            #expect(text.count <= 4)
        }
    }

    @Test func aSoftMaskSpansItsSpreadPassWithAPixelToSpare() {
        // The box a masked stroke is filled through must not cut a pixel the ink touches.
        var sink = StrokePieces(width: 1000, height: 1000)
        sink.piece(ShapePiece(x0: 100, y0: 100, r0: 2, x1: 200, y1: 130, r1: 3, f: 0.4))
        sink.piece(ShapePiece(x0: 200, y0: 130, r0: 3, x1: 260, y1: 90, r1: 1, f: 0.9))
        let box = sink.maskBox, e = sink.extent, m = (StrokePieces.maskSpread + 1) * VectorGrid.perPixel
        #expect(Double(box.x0) <= e.x0 * VectorGrid.perPixel - m + 1 && Double(box.x1) >= e.x1 * VectorGrid.perPixel + m - 1)
        #expect(Double(box.y0) <= e.y0 * VectorGrid.perPixel - m + 1 && Double(box.y1) >= e.y1 * VectorGrid.perPixel + m - 1)
        // Near the page's edge the box stops at the edge.
        var edge = StrokePieces(width: 1000, height: 1000)
        edge.piece(ShapePiece(x0: 1, y0: 500, r0: 2, x1: 50, y1: 500, r1: 2, f: 0.5))
        #expect(edge.maskBox.x0 == 0)
    }

    @Test func pdfDates() {
        #expect(PDFInfo.pdfDate("2026-11-20T09:14:03.120Z") == "D:20261120091403Z")
        #expect(PDFInfo.pdfDate("2026-11-29T10:00:00Z") == "D:20261129100000Z")
        #expect(PDFInfo.pdfDate("2026-11-29T10:00:00+02:00") == "D:20261129100000+02'00'")
        #expect(PDFInfo.pdfDate("yesterday") == nil)
    }

    @Test func textStrings() {
        #expect(String(decoding: PDFInfo.textString("a (b) \\ c"), as: UTF8.self) == "(a \\(b\\) \\\\ c)")
        #expect(String(decoding: PDFInfo.textString("é"), as: UTF8.self) == "<FEFF00E9>")
    }

    @Test func pageLabelsOneRangePerRunOfNumbers() {
        #expect(String(decoding: PDFFile.pageLabels([5, 6, 7, 8, 9]), as: UTF8.self) == "/PageLabels<</Nums[0<</S/D/St 5>>]>>")
        // --pages 1,3-5,7 and page 3 again.
        #expect(String(decoding: PDFFile.pageLabels([1, 3, 4, 5, 7, 3]), as: UTF8.self)
                == "/PageLabels<</Nums[0<</S/D/St 1>> 1<</S/D/St 3>> 4<</S/D/St 7>> 5<</S/D/St 3>>]>>")
        #expect(PDFFile.bookmarkTitle(12) == "Page 12")
    }

    @Test func svgTitles() {
        #expect(SVGPageBackend.title(document: "Notes", page: 3) == "Notes — page 3")
        #expect(SVGPageBackend.title(document: "", page: 3) == "Page 3")
        #expect(SVGPageBackend.title(document: "a<b> & c\u{1}", page: 1) == "a&lt;b&gt; &amp; c — page 1")
        #expect(SVGPageBackend.title(document: "x\u{FFFE}", page: 2) == "x — page 2", "not an XML character")
    }

    @Test func numbers() {
        var out: [UInt8] = []
        for v in [0, 7, -12, 123456] { NumberText.int(v, into: &out); out.append(0x20) }
        for v in [0.0, 1, 0.5, 0.125, 0.0004] { NumberText.unit(v, into: &out); out.append(0x20) }
        for v in [834.0, 83.45, -0.025, 1e-6] { NumberText.real(v, into: &out); out.append(0x20) }
        #expect(String(decoding: out, as: UTF8.self) == "0 7 -12 123456 0 1 .5 .125 0 834 83.45 -0.025 0 ")
    }

    @Test func jpegFrameHeader() {
        // SOI, APP14 "Adobe", SOF0 with 4 components.
        let adobe: [UInt8] = [0xFF, 0xD8, 0xFF, 0xEE, 0x00, 0x0E] + Array("Adobe".utf8) + [0, 0, 0, 0, 0, 0, 0]
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x14, 8, 0, 10, 0, 20, 4] + [UInt8](repeating: 0, count: 12)
        let frame = EmbeddedImage.jpegFrame(adobe + sof)
        #expect(frame?.components == 4)
        #expect(frame?.adobe == true)
        #expect(EmbeddedImage.jpegFrame([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]) == nil)
    }

    /// A JPEG head: SOI, an APP1 Exif segment whose IFD0 holds `entries` (tag, type, count,
    /// value) in the byte order `big`, then SOF0 and SOS markers.
    static func exifJPEG(big: Bool, entries: [(UInt16, UInt16, UInt32, UInt16)]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { big ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { big ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        var tiff: [UInt8] = (big ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries { tiff += u16(tag) + u16(type) + u32(count) + u16(value) + [0, 0] }
        tiff += u32(0)
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let n = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(n >> 8), UInt8(n & 0xFF)] + body
            + [0xFF, 0xC0, 0x00, 0x0B, 8, 0, 10, 0, 20, 1, 1, 0x11, 0] + [0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34]
    }

    @Test func exifOrientationIsSetUprightAndNothingElseChanges() {
        for big in [true, false] {
            // Orientation 6 among other entries (ImageWidth, a Make offset).
            let jpeg = Self.exifJPEG(big: big, entries: [(0x0100, 3, 1, 640), (0x0112, 3, 1, 6), (0x010F, 2, 4, 0x4142)])
            let upright = JPEGOrientation.upright(jpeg)
            #expect(upright.count == jpeg.count)
            let expected = Self.exifJPEG(big: big, entries: [(0x0100, 3, 1, 640), (0x0112, 3, 1, 1), (0x010F, 2, 4, 0x4142)])
            #expect(upright == expected, "only the orientation value changes (\(big ? "big" : "little")-endian)")
        }
        // No Exif, a damaged IFD offset, not a JPEG: unchanged.
        let plain: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 8, 0, 10, 0, 20, 1, 1, 0x11, 0, 0xFF, 0xDA, 0, 2]
        #expect(JPEGOrientation.upright(plain) == plain)
        var damaged = Self.exifJPEG(big: true, entries: [(0x0112, 3, 1, 6)])
        damaged[6 + 6 + 4] = 0x7F   // IFD0 offset far past the segment
        #expect(JPEGOrientation.upright(damaged) == damaged)
        #expect(JPEGOrientation.upright([0x89, 0x50, 0x4E, 0x47]) == [0x89, 0x50, 0x4E, 0x47])
        // Bytes after the image data start are never looked at.
        let after = plain + Self.exifJPEG(big: true, entries: [(0x0112, 3, 1, 6)])
        #expect(JPEGOrientation.upright(after) == after)
    }

    /// Signed areas of the closed sub-paths in SVG path text (polygon of all points, control
    /// points included: the sign of a convex curved shape's control polygon is its own).
    static func signedAreas(_ d: [UInt8]) -> [Double] {
        var areas: [Double] = []
        for sub in subPaths(d) {
            var points = [(sub.start.x, sub.start.y)]
            for segment in sub.segments {
                switch segment {
                case .line(let p): points.append((p.x, p.y))
                case .curve(let c1, let c2, let p): points += [(c1.x, c1.y), (c2.x, c2.y), (p.x, p.y)]
                }
            }
            var a = 0.0
            for i in points.indices {
                let j = (i + 1) % points.count
                a += points[i].0 * points[j].1 - points[j].0 * points[i].1
            }
            areas.append(a / 2)
        }
        return areas
    }

    /// The pieces of `stroke` on an A4-sized page, as a vector backend gets them.
    static func pieces(of stroke: Stroke) -> StrokePieces {
        let entry = PageEntry(id: LNoteID("C0A80101-0000-4000-8000-00000000A001")!, width: 8340, height: 11940)
        let page = VectorPage(entry, transform: VectorGrid.transform(for: entry))
        let shape = StrokeShape()
        shape.prepare(stroke, transform: page.transform)
        var sink = StrokePieces(width: page.width, height: page.height)
        shape.stream(into: &sink)
        return sink
    }

    @Test func everySubPathTurnsTheSameWay() {
        // A wavy, tapering pen stroke with sharp and gentle turns.
        var points: [Int32] = []
        for i in 0..<200 {
            let t = Double(i) / 199
            let x = 500 + 4000 * t, y = 3000 + 600 * sin(t * 9) + (i % 37 == 0 ? 300 : 0)
            points += [Int32(x), Int32(y), Int32(5 + 40 * t), 500, Int32(i)]
        }
        let sink = Self.pieces(of: Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0, a: 128), points: points))
        #expect(sink.pieces.count > 10)
        var path = PathText(.svg)
        OutlineBuilder.outline(sink.pieces, into: &path)
        let areas = Self.signedAreas(path.out)
        #expect(!areas.isEmpty)
        // Gentle joints are chained: far fewer sub-paths than pieces.
        #expect(areas.count < sink.pieces.count / 2)
        #expect(areas.allSatisfy { $0 <= 0 }, "a sub-path turning the other way would cut a hole under nonzero")
        // Far fewer discs than pieces: most joints of a smooth stroke need none.
        let curves = Self.subPaths(path.out).reduce(0) { n, sub in
            n + sub.segments.filter { if case .curve = $0 { true } else { false } }.count
        }
        #expect(curves / 4 < sink.pieces.count / 2)
    }

    /// The PDF path (relative to the stroke's corner, under its `cm`) and the SVG path
    /// (relative commands) are the same grid points as absolute coordinates would be.
    @Test func shortNumbersKeepTheSamePoints() {
        var points: [Int32] = []
        for i in 0..<120 {
            let t = Double(i) / 119
            points += [Int32(6000 * t), Int32(5000 + 2500 * sin(t * 7)), Int32(3 + 60 * t * (1 - t)), 500, Int32(i)]
        }
        let sink = Self.pieces(of: Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0, a: 255), points: points))
        let origin = sink.origin
        #expect(origin.x > 1000 || origin.y > 1000, "a corner away from the page's, so the offsets matter")
        var absolute = PathText(.pdf), relative = PathText(.pdf, origin: origin), svg = PathText(.svg)
        OutlineBuilder.outline(sink.pieces, into: &absolute)
        OutlineBuilder.outline(sink.pieces, into: &relative)
        OutlineBuilder.outline(sink.pieces, into: &svg)
        /// Every number pair of PDF path text, shifted by `by`.
        func pdfPoints(_ out: [UInt8], by: (x: Int, y: Int)) -> [[Int]] {
            let numbers = String(decoding: out, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
            return stride(from: 0, to: numbers.count - 1, by: 2).map { [numbers[$0] + by.x, numbers[$0 + 1] + by.y] }
        }
        let expected = pdfPoints(absolute.out, by: (0, 0))
        #expect(expected.count > 100)
        #expect(pdfPoints(relative.out, by: origin) == expected)
        #expect(relative.out.count < absolute.out.count)
        var svgPoints: [[Int]] = []
        for sub in Self.subPaths(svg.out) {
            svgPoints.append([Int(sub.start.x), Int(sub.start.y)])
            for segment in sub.segments {
                switch segment {
                case .line(let p): svgPoints.append([Int(p.x), Int(p.y)])
                case .curve(let a, let b, let p): svgPoints += [[Int(a.x), Int(a.y)], [Int(b.x), Int(b.y)], [Int(p.x), Int(p.y)]]
                }
            }
        }
        #expect(svgPoints == expected)
    }

    /// The sub-paths of SVG path text (grid steps), absolute.
    static func subPaths(_ d: [UInt8]) -> [SVGPathData.SubPath] {
        (try? SVGPathData(String(decoding: d, as: UTF8.self)).subPaths) ?? []
    }

    /// Closed sub-paths of SVG path text (grid steps), cubics flattened into 16 chords.
    static func polygons(_ d: [UInt8]) -> [[(Double, Double)]] {
        subPaths(d).map { $0.polygon() }
    }

    /// Winding number of the closed polygons around (x, y).
    static func winding(_ polygons: [[(Double, Double)]], _ x: Double, _ y: Double) -> Int {
        var w = 0
        for poly in polygons {
            for i in 0..<poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if a.1 <= y {
                    if b.1 > y && (b.0 - a.0) * (y - a.1) - (x - a.0) * (b.1 - a.1) > 0 { w += 1 }
                } else if b.1 <= y && (b.0 - a.0) * (y - a.1) - (x - a.0) * (b.1 - a.1) < 0 { w -= 1 }
            }
        }
        return w
    }

    /// Signed distance (reference pixels) from (x, y) to a piece's shape — its two discs and
    /// the quadrilateral between their outer tangents: exact inside (negative), a lower bound
    /// outside, which is all the band test below needs.
    static func distance(_ p: ShapePiece, _ x: Double, _ y: Double) -> Double {
        var best = min(((x - p.x0) * (x - p.x0) + (y - p.y0) * (y - p.y0)).squareRoot() - p.r0,
                       ((x - p.x1) * (x - p.x1) + (y - p.y1) * (y - p.y1)).squareRoot() - p.r1)
        guard let t = p.outerTangents(tolerance: OutlineBuilder.nestedTolerance) else { return best }
        let quad = [(p.x0 + p.r0 * t.lx, p.y0 + p.r0 * t.ly), (p.x1 + p.r1 * t.lx, p.y1 + p.r1 * t.ly),
                    (p.x1 + p.r1 * t.rx, p.y1 + p.r1 * t.ry), (p.x0 + p.r0 * t.rx, p.y0 + p.r0 * t.ry)]
        var area = 0.0
        for i in 0..<4 { let a = quad[i], b = quad[(i + 1) % 4]; area += a.0 * b.1 - b.0 * a.1 }
        guard abs(area) > 1e-9 else { return best }
        var d = -Double.infinity
        for i in 0..<4 {
            let a = quad[i], b = quad[(i + 1) % 4]
            let ex = b.0 - a.0, ey = b.1 - a.1, len = (ex * ex + ey * ey).squareRoot()
            guard len > 1e-12 else { continue }
            // Outward normal: right of the edge for positive area (x right, y down), else left.
            let nx = (area > 0 ? ey : -ey) / len, ny = (area > 0 ? -ex : ex) / len
            d = max(d, (x - a.0) * nx + (y - a.1) * ny)
        }
        best = min(best, d)
        return best
    }

    /// The outline covers exactly the union of the pieces under nonzero, to within the shape
    /// tolerance and the grid: on wavy, curling, tapering strokes (joints gentle, round-joined
    /// and broken), every sample point farther than 0.1 px from the boundary is inside the
    /// outline if and only if it is inside some disc or hull.
    @Test func outlineCoversTheUnionExactly() {
        var rng = UInt64(27)
        func random() -> Double { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Double(rng >> 11) / Double(1 << 53) }
        for trial in 0..<6 {
            var points: [Int32] = []
            var x = 2000.0, y = 2000.0, heading = random() * 6.28
            let n = 60 + trial * 20
            for i in 0..<n {
                heading += (random() - 0.5) * (trial % 2 == 0 ? 0.9 : 2.2)
                let step = 3 + random() * (trial < 3 ? 12 : 40)
                x += cos(heading) * step; y += sin(heading) * step
                let r = trial == 5 ? 2 + 28 * abs(sin(Double(i) / 7)) : 6 + 20 * random()
                points += [Int32(x), Int32(y), Int32(r), 500, Int32(i)]
            }
            let sink = Self.pieces(of: Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: points))
            var path = PathText(.svg)
            OutlineBuilder.outline(sink.pieces, into: &path)
            let polys = Self.polygons(path.out)
            let b = sink.extent
            var checked = 0, wrong = 0
            var yy = b.y0 - 2
            while yy < b.y1 + 2 {
                var xx = b.x0 - 2
                while xx < b.x1 + 2 {
                    let d = sink.pieces.map { Self.distance($0, xx, yy) }.min()!
                    if abs(d) > 0.1 {
                        checked += 1
                        let inside = Self.winding(polys, xx * VectorGrid.perPixel, yy * VectorGrid.perPixel) != 0
                        if inside != (d < 0) { wrong += 1 }
                    }
                    xx += 0.37
                }
                yy += 0.41
            }
            #expect(checked > 1000)
            #expect(wrong == 0, "trial \(trial): \(wrong) of \(checked) points on the wrong side of the outline")
        }
    }

    /// The union outline covers every point once (winding 0 or ±1), so a viewer that adds the
    /// coverages of a path's sub-paths in a pixel (PDFium) draws its edges as the others do;
    /// every sample point more than 0.1 px inside the shape is covered, and every point more
    /// than 0.1 px outside it is not, except within three quarters of a grid cell of a concave
    /// crease: where two pieces' boundaries meet at an angle, a cell's chord cuts the corner.
    /// Strokes: real handwriting's kind (quantized samples a fraction of a pixel apart, turning
    /// by 45–90°, whose runs break at nearly every joint: PDFium drew such lines 26 % too
    /// dark), a curl that closes over its start around an open middle (a hole), and random
    /// wavy and tapering strokes.
    @Test func theUnionOutlineCoversEachPointOnce() {
        var union = UnionOutline()
        for (n, points) in Self.unionStrokes().enumerated() {
            let sink = Self.pieces(of: Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: points))
            var path = PathText(.svg)
            #expect(union.write(sink.pieces, into: &path))
            let polys = Self.polygons(path.out)
            let b = sink.extent
            let crease = 0.75 * UnionOutline.spacing(for: sink.pieces.map { max($0.r0, $0.r1) }.min()!)
            var checked = 0, wrong: [(Double, Double, Double)] = [], twice = 0, holes = 0
            var yy = b.y0 - 2
            while yy < b.y1 + 2 {
                var xx = b.x0 - 2
                while xx < b.x1 + 2 {
                    let w = Self.winding(polys, xx * VectorGrid.perPixel, yy * VectorGrid.perPixel)
                    if abs(w) > 1 { twice += 1 }
                    let d = sink.pieces.map { Self.distance($0, xx, yy) }.min()!
                    if abs(d) > 0.1 {
                        checked += 1
                        if (w != 0) != (d < 0) && !(d > 0 && d < crease && Self.nearCrease(sink.pieces, xx, yy, within: crease)) {
                            wrong.append((xx, yy, d))
                        }
                        if n == 1 && d > 0 && xx > b.x0 + 2 && xx < b.x1 - 2 && yy > b.y0 + 2 && yy < b.y1 - 2 { holes += 1 }
                    }
                    xx += 0.13
                }
                yy += 0.17
            }
            #expect(checked > 1000)
            #expect(twice == 0, "stroke \(n): \(twice) points covered more than once")
            #expect(wrong.isEmpty, "stroke \(n): \(wrong.count) of \(checked) points on the wrong side of the outline: \(wrong.prefix(5))")
            if n == 1 { #expect(holes > 100, "the curl's open middle") }
            if n == 6 {
                // The tapering stroke's thin end, 0.6 px: every point 0.1 px inside its cap is
                // covered (a grid as coarse as the thick end's left chords 0.15 px deep there).
                let p = sink.pieces[0]
                var missed = 0
                for k in 0..<720 {
                    let a = Double(k) / 720 * 2 * Double.pi
                    let x = p.x0 + (p.r0 - 0.1) * cos(a), y = p.y0 + (p.r0 - 0.1) * sin(a)
                    if Self.winding(polys, x * VectorGrid.perPixel, y * VectorGrid.perPixel) == 0 { missed += 1 }
                }
                #expect(p.r0 < 0.7 && missed == 0, "\(missed) of 720 points 0.1 px inside the thin end left out")
            }
        }
    }

    /// Whether (x, y) lies within `within` of two pieces whose boundaries there face directions
    /// more than 15° apart: near a crease of their union.
    static func nearCrease(_ pieces: [ShapePiece], _ x: Double, _ y: Double, within: Double) -> Bool {
        var normals: [(Double, Double)] = []
        let e = 1e-4
        for p in pieces where distance(p, x, y) < within {
            let gx = distance(p, x + e, y) - distance(p, x - e, y), gy = distance(p, x, y + e) - distance(p, x, y - e)
            let n = (gx * gx + gy * gy).squareRoot()
            guard n > 0 else { continue }
            let g = (gx / n, gy / n)
            if normals.contains(where: { $0.0 * g.0 + $0.1 * g.1 < 0.966 }) { return true }
            normals.append(g)
        }
        return false
    }

    /// Which strokes the backends write as their union: the jittery one, whose runs break at
    /// nearly every joint, and not a zigzag whose runs break only at its four sharp turns.
    @Test func strokesWhoseRunsBreakAtMostJointsAreWrittenAsTheirUnion() {
        var union = UnionOutline()
        var zigzag: [Int32] = []
        for i in 0..<41 {
            let up = i / 10 % 2 == 0 ? i % 10 : 10 - i % 10
            zigzag += [Int32(2000 + i * 20), Int32(2000 + up * 40), 8, 500, Int32(i)]
        }
        let cases: [(name: String, points: [Int32], traced: Bool)] = [("jittery", Self.unionStrokes()[0], true), ("zigzag", zigzag, false)]
        for (name, points, traced) in cases {
            let sink = Self.pieces(of: Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: points))
            var runs = PathText(.svg), union1 = PathText(.svg), written = PathText(.svg)
            OutlineBuilder.outline(sink.pieces, into: &runs)
            #expect(union.write(sink.pieces, into: &union1))
            OutlineBuilder.outline(sink.pieces, into: &written, union: &union)
            #expect(runs.subPaths > 1, "\(name): its runs break")
            #expect(written.out == (traced ? union1.out : runs.out) && runs.out != union1.out,
                    "\(name): written as \(traced ? "its union" : "its runs")")
        }
    }

    /// Test strokes of the union outline (page units: 0.2 reference pixels): jittery
    /// handwriting, a curl around a hole, four random wavy or tapering strokes, and a short
    /// stroke tapering from 0.6 to 3 px (its thin end sets the grid's spacing).
    static func unionStrokes() -> [[Int32]] {
        var rng = UInt64(33)
        func random() -> Double { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Double(rng >> 11) / Double(1 << 53) }
        var strokes: [[Int32]] = []
        // Jittery handwriting, radius 1.2 px: a quantization step forward, one of jitter across.
        var jitter: [Int32] = []
        var x = 3000, y = 3000
        for i in 0..<400 {
            x += i % 120 < 60 ? 1 : 0; y += i % 120 < 60 ? Int(random() * 3) - 1 : 1
            if i % 3 == 0 { x += Int(random() * 3) - 1 }
            jitter += [Int32(x), Int32(y), 6, 500, Int32(i)]
        }
        strokes.append(jitter)
        // A curl: a circle of radius 40 units drawn with radius 8, past its start, so its
        // middle stays empty and its end overlaps its start.
        strokes.append((0..<90).flatMap { i -> [Int32] in
            let a = Double(i) / 80 * 2 * Double.pi
            return [Int32(5000 + 40 * cos(a)), Int32(5000 + 40 * sin(a)), 8, 500, Int32(i)]
        })
        for trial in 0..<4 {
            var points: [Int32] = []
            var x = 2000.0, y = 2000.0, heading = random() * 6.28
            for i in 0..<(60 + trial * 20) {
                heading += (random() - 0.5) * (trial % 2 == 0 ? 0.9 : 2.2)
                let step = 3 + random() * 12
                x += cos(heading) * step; y += sin(heading) * step
                points += [Int32(x), Int32(y), Int32(trial == 3 ? 2 + 28 * abs(sin(Double(i) / 7)) : 6 + 20 * random()), 500, Int32(i)]
            }
            strokes.append(points)
        }
        strokes.append([6000, 6000, 3, 500, 0, 6040, 6010, 15, 500, 1, 6060, 6060, 15, 500, 2])
        return strokes
    }

    /// A stroke that would take more than `UnionOutline.maxCorners` corner evaluations is not
    /// traced: the backends keep its runs and covers (bounded cost on any page).
    @Test func aCostlyStrokeKeepsItsRunsAndCovers() {
        // One piece of about 23 M corners: over `maxCorners`, under the page's budget.
        var sink = StrokePieces(width: 100_000, height: 100_000)
        sink.piece(ShapePiece(x0: 5000, y0: 5000, r0: 1000, x1: 5900, y1: 5000, r1: 1000, f: 1))
        var union = UnionOutline()
        union.beginPage()
        var traced = PathText(.svg)
        #expect(!union.write(sink.pieces, into: &traced))
        #expect(traced.out.isEmpty)
        // Two small pieces far apart: few corners, but a tile grid over `maxTileGrid`. Their
        // runs break (two runs) more than `unionBreakDensity` times per width, so the backends
        // try the union, and keep the runs.
        var far = StrokePieces(width: 100_000, height: 100_000)
        far.piece(ShapePiece(x0: 10, y0: 10, r0: 1, x1: 10.3, y1: 10, r1: 1, f: 1))
        far.piece(ShapePiece(x0: 90_000, y0: 90_000, r0: 1, x1: 90_000.3, y1: 90_000, r1: 1, f: 1))
        var apart = PathText(.svg)
        #expect(!union.write(far.pieces, into: &apart))
        var runs = PathText(.svg), path = PathText(.svg)
        OutlineBuilder.outline(far.pieces, into: &runs)
        OutlineBuilder.outline(far.pieces, into: &path, union: &union)
        #expect(runs.subPaths == 2 && path.out == runs.out)
        // 20,000 small dots 20 px apart: few corners, but a tile each, past `maxTiles`.
        var spread = StrokePieces(width: 100_000, height: 100_000)
        for i in 0..<20000 {
            let x = Double(i % 200) * 20 + 10, y = Double(i / 200) * 20 + 10
            spread.piece(ShapePiece(x0: x, y0: y, r0: 1, x1: x + 0.5, y1: y, r1: 1, f: 1))
        }
        var dots = PathText(.svg)
        #expect(!union.write(spread.pieces, into: &dots))
        // And the scratch is left clean: a small stroke afterwards is traced.
        var small = StrokePieces(width: 1000, height: 1000)
        small.piece(ShapePiece(x0: 100, y0: 100, r0: 2, x1: 110, y1: 100, r1: 2, f: 1))
        small.piece(ShapePiece(x0: 110, y0: 100, r0: 2, x1: 110.2, y1: 101, r1: 2, f: 1))
        var traced2 = PathText(.svg)
        #expect(union.write(small.pieces, into: &traced2))
        #expect(traced2.subPaths == 1)
    }

    /// A page spends at most `UnionOutline.maxCornersPerPage` on tracing: past it strokes keep
    /// their runs, until the next page.
    @Test func aPageSpendsABoundedWorkOnUnions() {
        var sink = StrokePieces(width: 10_000, height: 10_000)
        for i in 0..<100 {
            let x = 500 + Double(i % 10) * 3
            sink.piece(ShapePiece(x0: x, y0: 500, r0: 10, x1: x + 3, y1: 500 + Double(i % 3), r1: 10, f: 1))
        }
        var union = UnionOutline()
        union.beginPage()
        var traced = 0
        while traced < 1000 {
            var path = PathText(.pdf)
            guard union.write(sink.pieces, into: &path) else { break }
            #expect(!path.out.isEmpty)
            traced += 1
        }
        // Each trace is about 200,000 corners: the budget allows a few hundred.
        #expect(traced > 50 && traced < 1000, "\(traced) strokes traced on one page")
        var path = PathText(.pdf)
        union.beginPage()
        #expect(union.write(sink.pieces, into: &path))
    }

    @Test func maskStrokesAscendInTwoPassesAndJoinConnectedPiecesOfALevel() {
        var sink = StrokePieces(width: 100, height: 100)
        for (i, f) in [0.9, 0.3, 0.3001, 0.6, 0.9].enumerated() {
            sink.piece(ShapePiece(x0: Double(10 * i), y0: 10, r0: 2, x1: Double(10 * i + 10), y1: 10, r1: 2, f: Float(f)))
        }
        let strokes = sink.maskStrokes
        // Two passes (spread, then exact), each with the three levels ascending.
        #expect(strokes.count == 6)
        let grid = VectorGrid.perPixel
        for (pass, width) in [(Array(strokes.prefix(3)), Int((2 * (2 + StrokePieces.maskSpread) * grid).rounded(.up))),
                              (Array(strokes.suffix(3)), Int(4 * grid))] {
            #expect(pass.map(\.level) == pass.map(\.level).sorted())
            #expect(pass.map(\.lines.count) == [1, 1, 2])   // the two 0.9 pieces are not connected
            #expect(pass[0].lines[0].count == 3)              // 0.3 and 0.3001 are one level: one line
            #expect(pass.allSatisfy { $0.width == width })
        }
        #expect(sink.uniformFactor == nil)
    }

    @Test func aMaskRunBreaksWhereItsRadiusVaries() {
        // A taper: the radius grows 0.1 px a piece, so a run holds two pieces (0.2 px apart;
        // a third would make it 0.3, over `runRadiusTolerance`).
        var sink = StrokePieces(width: 100, height: 100)
        for i in 0..<9 {
            sink.piece(ShapePiece(x0: Double(10 * i), y0: 10, r0: 1 + 0.1 * Double(i), x1: Double(10 * i + 10), y1: 10,
                                  r1: 1 + 0.1 * Double(i + 1), f: 0.5))
        }
        sink.piece(ShapePiece(x0: 90, y0: 10, r0: 2, x1: 95, y1: 10, r1: 2, f: 0.25))   // another level
        let exact = sink.maskStrokes.suffix(from: sink.maskStrokes.count / 2)
        let lines = exact.flatMap(\.lines)
        // The other level's piece first (lower), then four runs of two pieces and one of one.
        #expect(lines.map(\.count) == [2, 3, 3, 3, 3, 2])
        // Each run is stroked at its own largest radius.
        let grid = VectorGrid.perPixel
        let radii = [2] + [2, 4, 6, 8, 9].map { 1 + 0.1 * Double($0) }
        #expect(exact.map(\.width) == radii.map { Int((2 * $0 * grid).rounded(.up)) })
    }

    @Test func piecesFarOffThePageAreClippedNotDropped() {
        var sink = StrokePieces(width: 100, height: 100)
        sink.piece(ShapePiece(x0: -4e9, y0: 50, r0: 3, x1: 4e9, y1: 50, r1: 3, f: 1))
        sink.piece(ShapePiece(x0: -4e9, y0: 500, r0: 3, x1: 4e9, y1: 500, r1: 3, f: 1))
        #expect(sink.pieces.count == 1)
        let p = sink.pieces[0]
        #expect(p.x0 >= -5 && p.x1 <= 105 && p.y0 == 50)
    }

    /// The backends place everything through the transform `beginPage` is given (the
    /// renderer's), not one of their own: at 4 px/pt the SVG's grid is twice as fine as at the
    /// reference scale, with the same page in points, and the PDF's unit follows.
    @Test func backendsUseTheTransformTheyAreGiven() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/features/8D850F81-E8B4-4809-9898-DFA894B30B1A.lnote")
        let package = try LNotePackage.open(at: fixture)
        guard case .valid(let entry) = package.pages[0] else { Issue.record("no first page"); return }
        func svg(_ t: PageTransform) -> String {
            let backend = SVGPageBackend(package: package, pageNumber: 1)
            backend.beginPage(entry, transform: t, layers: BackgroundLayers(paper: true, template: false))
            backend.endPage()
            return String(decoding: backend.document, as: UTF8.self)
        }
        let reference = VectorGrid.transform(for: entry)
        let fine = PageTransform(pageWidth: entry.width, pageHeight: entry.height, scale: 2 * VectorGrid.referenceScale)
        let w = Double(entry.width) / 10 * VectorGrid.referenceScale * VectorGrid.perPixel
        let h = Double(entry.height) / 10 * VectorGrid.referenceScale * VectorGrid.perPixel
        #expect(svg(reference).contains("viewBox=\"0 0 \(Int(w)) \(Int(h))\""))
        #expect(svg(fine).contains("viewBox=\"0 0 \(Int(2 * w)) \(Int(2 * h))\""))
        #expect(entry.width % 10 == 0)
        let points = "width=\"\(entry.width / 10)pt\""
        #expect(svg(fine).contains(points) && svg(reference).contains(points))
        #expect(VectorPage(entry, transform: reference).pointsPerStep == 1 / (VectorGrid.referenceScale * VectorGrid.perPixel))
        #expect(VectorPage(entry, transform: fine).pointsPerStep == 1 / (2 * VectorGrid.referenceScale * VectorGrid.perPixel))
    }
}
