import LNoteFormat
import LNoteShape

/// The PDF backend: every page the renderer draws becomes one page of one PDF file, written as
/// soon as it ends. `finish()` writes the page tree and trailer.
///
/// How spec §6 is expressed (coordinates on `VectorGrid`; one content-stream matrix flips y,
/// and each stroke's path is written relative to its own corner, `StrokePieces.origin`, under a
/// `1 0 0 1 x y cm`, so its numbers have the digits of its size):
/// - A stroke is ONE path filled once under the nonzero rule: its pieces' tangent
///   quadrilaterals plus the discs at its ends and turning joints (`OutlineBuilder`), all turning
///   the same way, so overlaps are covered once and translucent ink has no darker joints; where
///   those runs break at most joints, the boundary of the pieces' union (`UnionOutline`), so
///   that no two sub-paths cut one edge pixel (PDFium adds their coverages).
/// - Opacity: a stroke whose pieces share one factor (pen, highlighter, a uniformly thin stroke)
///   is filled with `ca` = colour alpha × factor. Where the factors differ (pencil pressure,
///   the thin parts of a tapering stroke), the stroke's outline is filled through a luminosity
///   soft mask that holds only the factor: a form in which the centre lines of the pieces of
///   each factor level are stroked in that level's grey, levels ascending so that the largest
///   value counts, first a point wider than the stroke and then at its radius
///   (`StrokePieces.maskStrokes`), so the outline alone anti-aliases the stroke's sides. The
///   mask's box and form bounding box lie that point and a pixel outside the ink (a box edge
///   that cuts inked pixels would anti-alias them a second time). The colour alpha is folded
///   into the mask's grey levels (grey =
///   alpha × factor) and the fill has `ca` 1: MuPDF 1.21 applies a fill's `ca` twice when a
///   luminosity soft mask is in effect (black at `ca` 0.6 through grey 1 came out 162 where
///   poppler and PDFium give 102); with the alpha in the mask all three give 101–102.
/// - Highlighter ink uses `/BM /Multiply` in the graphics state of the fill itself, on the page,
///   never inside a transparency group (an isolated group would multiply with nothing and
///   show opaque ink).
/// - Backgrounds are vector: the paper a rectangle, template lines filled 0.6 pt rectangles in
///   one path, dots circles.
/// - Images are XObjects written once per file: a JPEG's bytes as they are (`/DCTDecode`), a
///   16-bit grey or RGB PNG without transparency its image data as stored (Flate with the PNG
///   predictor, 16 bits per component), any other PNG's pixels Flate-compressed with its alpha
///   as `/SMask`; frame and rotation are the
///   `cm` matrix, opacity the `ca` of the graphics state; each is clipped to its frame.
/// - Navigation: `/PageLabels` give each page its number in the document (an export of pages
///   5–9 shows 5…9), and the outline has one bookmark per page, "Page N".
public final class PDFDocumentBackend: PageBackend {
    private let file: PDFFile
    private let package: LNotePackage
    private let info: PDFInfo
    /// Asset (lower-cased name) → image object, or why it cannot be shown. Only this table
    /// outlives a page.
    private var images: [String: Result<Int, LNoteError>] = [:]
    private let shape = StrokeShape()
    /// Scratch of the outlines traced as unions (`OutlineBuilder.outline(_:into:union:)`).
    private var union = UnionOutline()

    // The page being written.
    private var page: VectorPage?
    private var content: [UInt8] = []
    private var states: [String: String] = [:]   // ExtGState dictionary text → resource name
    private var stateOrder: [(String, String)] = []
    private var xobjects: [Int] = []
    private var pending: [(Int, [UInt8], [UInt8])] = []   // mask forms of this page

    /// zlib level of content streams and mask forms (`Flate.level`, measured in the closing
    /// note of issue 27).
    private let compression: Int32

    public init(output: ByteOutput, package: LNotePackage, info: PDFInfo,
                compression: Int32 = Flate.level) throws(LNoteError) {
        self.file = try PDFFile(output: output)
        self.package = package
        self.info = info
        self.compression = compression
    }

    /// Pages written so far.
    public var pageCount: Int { file.pages.count }
    /// Image objects written so far (one per distinct asset shown).
    public var imageCount: Int { images.values.filter { if case .success = $0 { true } else { false } }.count }

    public func beginPage(_ entry: PageEntry, transform: PageTransform, layers: BackgroundLayers) {
        union.beginPage()
        let p = VectorPage(entry, transform: transform)
        page = p
        content = []
        states = [:]; stateOrder = []; xobjects = []; pending = []
        // Grid steps → points, y down from the page's top (PDF's y grows up).
        append("q ")
        real(p.pointsPerStep); append(" 0 0 "); real(-p.pointsPerStep); append(" 0 ")
        real(p.heightPoints); append(" cm\n")
        if layers.paper {
            append("/\(state(alpha: 1, multiply: false)) gs ")
            color(paperRGB(entry.background.color)); append(" rg\n")
            var path = PathText(.pdf)
            path.rect(0, 0, p.gridWidth, p.gridHeight)
            content += path.out
            append("f\n")
        }
        if layers.template, let path = p.templatePath(.pdf) {
            let line = entry.background.lineColor
            append("/\(state(alpha: Double(line.a) / 255, multiply: false)) gs ")
            color(inkRGB(line)); append(" rg\n")
            content += path.out
            append("f\n")
        }
    }

    public func drawStroke(_ stroke: Stroke) {
        guard let p = page, let sink = StrokePieces.visible(stroke, on: p, using: shape) else { return }
        let ink = Ink(stroke)
        let alpha = Double(ink.opacity)
        let multiply = ink.mode == .multiply
        let rgb = inkRGB(ink.color)
        let origin = sink.origin
        if let f = sink.uniformFactor {
            translation(origin, into: &content)
            append(" /\(state(alpha: alpha * Double(f), multiply: multiply)) gs ")
            color(rgb); append(" rg\n")
            PathText.append(to: &content, .pdf, origin: origin) { OutlineBuilder.outline(sink.pieces, into: &$0, union: &union) }
            append("f Q\n")
            return
        }
        // The soft mask: each level's centre lines stroked in grey colour alpha × factor,
        // levels ascending (the largest counts); the outline is then filled with `ca` 1 through it.
        let (x0, y0, x1, y1) = sink.maskBox
        var form: [UInt8] = []
        translation(origin, into: &form, saving: false); form += Array(" 1 J 1 j\n".utf8)
        for stroke in sink.maskStrokes {
            NumberText.unit(alpha * stroke.factor, into: &form); form += Array(" G ".utf8)
            NumberText.int(stroke.width, into: &form); form += Array(" w\n".utf8)
            PathText.append(to: &form, .pdf, origin: origin) { $0.polylines(stroke.lines) }
            form += Array("S\n".utf8)
        }
        let formNumber = file.allocate()
        let dict = Array("/Type/XObject/Subtype/Form/BBox[\(x0) \(y0) \(x1) \(y1)]/Group<</S/Transparency/CS/DeviceGray>>/Filter/FlateDecode".utf8)
        pending.append((formNumber, dict, Flate.compress(form, level: compression)))
        // The mask is set before the translation: its form carries its own.
        append("q /\(state(alpha: 1, multiply: multiply, mask: formNumber)) gs ")
        color(rgb); append(" rg ")
        translation(origin, into: &content, saving: false); append("\n")
        PathText.append(to: &content, .pdf, origin: origin) { OutlineBuilder.outline(sink.pieces, into: &$0, union: &union) }
        append("f Q\n")
    }

    public func drawImage(_ placement: ImagePlacement) throws(LNoteError) {
        guard let p = page, let frame = ImageFrame(placement, transform: p.transform),
              frame.isVisible, !p.imageIsOffPage(frame) else { return }
        let object = try imageObject(placement.asset)
        if !xobjects.contains(object) { xobjects.append(object) }
        append("q /\(state(alpha: frame.opacity, multiply: false)) gs ")
        for v in p.imageMatrix(frame, yUp: true) { real(v); append(" ") }
        // Clipped to its own frame (the unit square of image space): the viewers then cut a
        // rotated image's edges as a path's, anti-aliased, instead of each by its own image
        // sampling — poppler widens the image to whole pixels and samples it nearest, PDFium
        // softens it half a pixel off. Measured on the images sample's page 1: +0.8–1.4 dB in
        // poppler, +1.2–2.2 dB in MuPDF, +1.3–2.3 dB in PDFium.
        append("cm 0 0 1 1 re W n /I\(object) Do Q\n")
    }

    public func endPage() throws(LNoteError) {
        guard let p = page else { return }
        append("Q\n")
        let contentNumber = file.allocate()
        try file.write(contentNumber, dictionary: Array("/Filter/FlateDecode".utf8), stream: Flate.compress(content, level: compression))
        content = []
        for (n, dict, stream) in pending { try file.write(n, dictionary: dict, stream: stream) }
        pending = []
        var resources = Array("/Resources<<".utf8)
        if !stateOrder.isEmpty {
            resources += Array("/ExtGState<<".utf8)
            for (dict, name) in stateOrder { resources += Array("/\(name)<<\(dict)>>".utf8) }
            resources += Array(">>".utf8)
        }
        if !xobjects.isEmpty {
            resources += Array("/XObject<<".utf8)
            for n in xobjects { resources += Array("/I\(n) \(n) 0 R".utf8) }
            resources += Array(">>".utf8)
        }
        resources += Array(">>".utf8)
        var box: [UInt8] = Array("/MediaBox[0 0 ".utf8)
        NumberText.real(p.widthPoints, into: &box); box.append(0x20)
        NumberText.real(p.heightPoints, into: &box); box.append(0x5D)
        let pageNumber = file.allocate()
        try file.write(pageNumber, dictionary: Array("/Type/Page/Parent 2 0 R".utf8) + box + resources
                       + Array("/Contents \(contentNumber) 0 R".utf8))
        file.addPage(pageNumber, label: documentNumber(of: p.entry))
        page = nil
    }

    /// Writes the page tree, catalog, information and cross-reference table. Call once, after
    /// the last page.
    public func finish() throws(LNoteError) {
        try file.finish(info: info)
    }

    /// Page numbers (1-based) of the document's valid pages, by id (ids of valid pages are
    /// unique), built the first time a page ends.
    private var numbers: [LNoteID: Int]? = nil

    /// The number of `entry` in the document, for the page's label and bookmark; a page the
    /// document does not list gets its position in this file.
    private func documentNumber(of entry: PageEntry) -> Int {
        if numbers == nil {
            var table: [LNoteID: Int] = [:]
            for (i, slot) in package.pages.enumerated() { if case .valid(let e) = slot { table[e.id] = i + 1 } }
            numbers = table
        }
        return numbers?[entry.id] ?? file.pages.count + 1
    }

    // MARK: - Resources

    /// The name of the page's graphics state with fill opacity `alpha`, blend mode and soft mask.
    private func state(alpha: Double, multiply: Bool, mask: Int? = nil) -> String {
        var d: [UInt8] = Array("/ca ".utf8)
        NumberText.unit(alpha, into: &d)
        d += Array((multiply ? "/BM/Multiply" : "/BM/Normal").utf8)
        if let mask { d += Array("/SMask<</S/Luminosity/G \(mask) 0 R>>".utf8) }
        let key = String(decoding: d, as: UTF8.self)
        if let name = states[key] { return name }
        let name = "G\(stateOrder.count)"
        states[key] = name
        stateOrder.append((key, name))
        return name
    }

    /// The image object of `asset`, written the first time it is shown in this file.
    private func imageObject(_ asset: String) throws(LNoteError) -> Int {
        let key = asset.lowercased()
        if let known = images[key] { return try known.get() }
        do throws(LNoteError) {
            let image = try EmbeddedImage.load(asset, from: package)
            let n = file.allocate()
            switch image {
            case .jpeg(let bytes, let w, let h, let components, let inverted):
                let space = components == 1 ? "/DeviceGray" : components == 4 ? "/DeviceCMYK" : "/DeviceRGB"
                let decode = inverted ? "/Decode[1 0 1 0 1 0 1 0]" : ""
                try file.write(n, dictionary: Array("/Type/XObject/Subtype/Image/Width \(w)/Height \(h)/ColorSpace\(space)/BitsPerComponent 8\(decode)/Interpolate true/Filter/DCTDecode".utf8),
                               stream: bytes)
            case .png16(let w, let h, let colors, let idat, _):
                let space = colors == 1 ? "/DeviceGray" : "/DeviceRGB"
                try file.write(n, dictionary: Array("/Type/XObject/Subtype/Image/Width \(w)/Height \(h)/ColorSpace\(space)/BitsPerComponent 16/Interpolate true/Filter/FlateDecode/DecodeParms<</Predictor 15/Colors \(colors)/BitsPerComponent 16/Columns \(w)>>".utf8),
                               stream: idat)
            case .pixels(let w, let h, let rgb, let alpha, _):
                var smask = ""
                if let alpha {
                    let m = file.allocate()
                    try file.write(m, dictionary: Array("/Type/XObject/Subtype/Image/Width \(w)/Height \(h)/ColorSpace/DeviceGray/BitsPerComponent 8/Interpolate true/Filter/FlateDecode".utf8),
                                   stream: Flate.compress(alpha))
                    smask = "/SMask \(m) 0 R"
                }
                try file.write(n, dictionary: Array("/Type/XObject/Subtype/Image/Width \(w)/Height \(h)/ColorSpace/DeviceRGB/BitsPerComponent 8/Interpolate true\(smask)/Filter/FlateDecode".utf8),
                               stream: Flate.compress(rgb))
            }
            images[key] = .success(n)
            return n
        } catch {
            images[key] = .failure(error)
            throw error
        }
    }

    // MARK: - Content text

    /// `q 1 0 0 1 x y cm` (without `q` when not `saving`, as at the start of a form): the
    /// translation a path written relative to `origin` is drawn with.
    private func translation(_ origin: (x: Int, y: Int), into out: inout [UInt8], saving: Bool = true) {
        out += Array((saving ? "q 1 0 0 1 " : "1 0 0 1 ").utf8)
        NumberText.int(origin.x, into: &out); out.append(0x20)
        NumberText.int(origin.y, into: &out); out += Array(" cm".utf8)
    }

    @inline(__always) private func append(_ s: String) { content += Array(s.utf8) }
    private func real(_ v: Double) { NumberText.real(v, into: &content) }
    private func color(_ c: RGB8) {
        NumberText.component(c.r, into: &content); content.append(0x20)
        NumberText.component(c.g, into: &content); content.append(0x20)
        NumberText.component(c.b, into: &content)
    }
}
