import LNoteFormat
import LNoteShape

/// The SVG backend: one page as one SVG document, held until `endPage` and then available as
/// `document` (a page at a time; the exporter writes it out).
///
/// The same constructions as the PDF backend (see `PDFDocumentBackend`): a stroke is one
/// `<path>` filled once (nonzero); highlighter ink has `mix-blend-mode:multiply` on the path
/// itself, on the page, in no group; varying factors become a luminance `<mask>` of grey
/// stroked centre lines, one path per factor level and width in ascending order (the maximum
/// counts, `StrokePieces.maskStrokes`), with the stroke's outline filled through it. Images are `<image>` elements holding the asset file itself (base64, JPEG or PNG byte
/// for byte, except a JPEG's EXIF orientation, set to 1: browsers would apply it, spec §4 ignores
/// it), each asset once per file (`<use>` for repeats), placed by a matrix.
public final class SVGPageBackend: PageBackend {
    private let package: LNotePackage
    private let shape = StrokeShape()
    /// Scratch of the outlines traced as unions (`OutlineBuilder.outline(_:into:union:)`).
    private var union = UnionOutline()
    private var page: VectorPage?
    private var body: [UInt8] = []
    private var shownAssets: [String: Int] = [:]
    private var failures: [String: LNoteError] = [:]
    private var masks = 0
    /// The finished page (after `endPage`).
    public private(set) var document: [UInt8] = []

    /// The page's number in the document (1-based), for its `<title>`; nil: looked up by id.
    private let pageNumber: Int?

    public init(package: LNotePackage, pageNumber: Int? = nil) {
        self.package = package
        self.pageNumber = pageNumber
    }

    /// The `<title>` of a page: the document's title and the page number ("Notes — page 3";
    /// "Page 3" when the document has no title), XML-escaped (`XMLText`).
    static func title(document: String, page: Int?) -> String {
        let number = page.map { "page \($0)" } ?? "page"
        let text = document.isEmpty ? number.prefix(1).uppercased() + number.dropFirst() : "\(document) — \(number)"
        return XMLText.content(text)
    }

    public func beginPage(_ entry: PageEntry, transform: PageTransform, layers: BackgroundLayers) {
        union.beginPage()
        let p = VectorPage(entry, transform: transform)
        page = p
        body = []
        shownAssets = [:]
        masks = 0
        document = []
        var w: [UInt8] = [], h: [UInt8] = []
        NumberText.real(p.widthPoints, into: &w); NumberText.real(p.heightPoints, into: &h)
        append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"")
        body += w; append("pt\" height=\""); body += h
        append("pt\" viewBox=\"0 0 \(p.gridWidth) \(p.gridHeight)\">\n")
        let number = pageNumber ?? package.pages.firstIndex { if case .valid(let e) = $0 { e.id == entry.id } else { false } }.map { $0 + 1 }
        append("<title>\(Self.title(document: package.document.title, page: number))</title>\n")
        if layers.paper {
            append("<rect width=\"\(p.gridWidth)\" height=\"\(p.gridHeight)\" fill=\"\(hex(paperRGB(entry.background.color)))\"/>\n")
        }
        if layers.template, let path = p.templatePath(.svg) {
            let line = entry.background.lineColor
            append("<path fill=\"\(hex(inkRGB(line)))\"\(opacity("fill-opacity", Double(line.a) / 255)) d=\"")
            body += path.out
            append("\"/>\n")
        }
    }

    public func drawStroke(_ stroke: Stroke) {
        guard let p = page, let sink = StrokePieces.visible(stroke, on: p, using: shape) else { return }
        let ink = Ink(stroke)
        let rgb = inkRGB(ink.color)
        let blend = ink.mode == .multiply ? " style=\"mix-blend-mode:multiply\"" : ""
        let alpha = Double(ink.opacity)
        if let f = sink.uniformFactor {
            append("<path fill=\"\(hex(rgb))\"\(opacity("fill-opacity", alpha * Double(f)))\(blend) d=\"")
            PathText.append(to: &body, .svg) { OutlineBuilder.outline(sink.pieces, into: &$0, union: &union) }
            append("\"/>\n")
            return
        }
        let (x0, y0, x1, y1) = sink.maskBox
        masks += 1
        append("<mask id=\"m\(masks)\" maskUnits=\"userSpaceOnUse\" x=\"\(x0)\" y=\"\(y0)\" width=\"\(x1 - x0)\" height=\"\(y1 - y0)\">\n")
        append("<g fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n")
        for stroke in sink.maskStrokes {
            let grey = UInt8((min(max(stroke.factor, 0), 1) * 255).rounded())
            append("<path stroke=\"\(hex((grey, grey, grey)))\" stroke-width=\"\(stroke.width)\" d=\"")
            PathText.append(to: &body, .svg) { $0.polylines(stroke.lines) }
            append("\"/>\n")
        }
        append("</g>\n")
        append("</mask>\n<path fill=\"\(hex(rgb))\"\(opacity("fill-opacity", alpha))\(blend) mask=\"url(#m\(masks))\" d=\"")
        PathText.append(to: &body, .svg) { OutlineBuilder.outline(sink.pieces, into: &$0, union: &union) }
        append("\"/>\n")
    }

    public func drawImage(_ placement: ImagePlacement) throws(LNoteError) {
        guard let p = page, let frame = ImageFrame(placement, transform: p.transform),
              frame.isVisible, !p.imageIsOffPage(frame) else { return }
        let o = frame.opacity
        let key = placement.asset.lowercased()
        if let failure = failures[key] { throw failure }
        var m: [UInt8] = Array("matrix(".utf8)
        for (i, v) in p.imageMatrix(frame, yUp: false).enumerated() {
            if i > 0 { m.append(0x20) }
            NumberText.real(v, into: &m)
        }
        m.append(0x29)
        if let id = shownAssets[key] {
            use(id, m, o)
            return
        }
        let image: EmbeddedImage
        do throws(LNoteError) { image = try EmbeddedImage.load(placement.asset, from: package) } catch {
            failures[key] = error
            throw error
        }
        let (mime, bytes): (String, [UInt8]) = switch image {
        case .jpeg(let b, _, _, _, _): ("image/jpeg", JPEGOrientation.upright(b))
        case .pixels, .png16: ("image/png", image.pngFile ?? [])
        }
        let id = shownAssets.count + 1
        shownAssets[key] = id
        // The asset once, in the unit square; every showing is a <use> with its own matrix
        // (a <use> of an element that has a transform would apply both).
        append("<defs><image id=\"a\(id)\" width=\"1\" height=\"1\" preserveAspectRatio=\"none\" xlink:href=\"data:\(mime);base64,")
        Base64.encode(bytes, into: &body)
        append("\"/></defs>\n")
        use(id, m, o)
    }

    private func use(_ id: Int, _ matrix: [UInt8], _ o: Double) {
        append("<use xlink:href=\"#a\(id)\" transform=\""); body += matrix; append("\"\(opacity("opacity", o))/>\n")
    }

    public func endPage() {
        append("</svg>\n")
        document = body
        body = []
        page = nil
    }

    // MARK: - Text

    @inline(__always) private func append(_ s: String) { body += Array(s.utf8) }

    private func opacity(_ attribute: String, _ v: Double) -> String {
        guard v < 0.9995 else { return "" }
        var t: [UInt8] = []
        NumberText.unit(v, into: &t)
        return " \(attribute)=\"\(String(decoding: t, as: UTF8.self))\""
    }

    private func hex(_ c: RGB8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [0x23]
        for v in [c.r, c.g, c.b] {
            out.append(digits[Int(v >> 4)]); out.append(digits[Int(v & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Base64 (RFC 4648, with padding) for data URIs.
enum Base64 {
    static func encode(_ d: [UInt8], into out: inout [UInt8]) {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        out.reserveCapacity(out.count + (d.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= d.count {
            let v = Int(d[i]) << 16 | Int(d[i + 1]) << 8 | Int(d[i + 2])
            out.append(table[v >> 18]); out.append(table[v >> 12 & 63]); out.append(table[v >> 6 & 63]); out.append(table[v & 63])
            i += 3
        }
        let rest = d.count - i
        if rest == 1 {
            let v = Int(d[i]) << 16
            out.append(table[v >> 18]); out.append(table[v >> 12 & 63]); out.append(0x3D); out.append(0x3D)
        } else if rest == 2 {
            let v = Int(d[i]) << 16 | Int(d[i + 1]) << 8
            out.append(table[v >> 18]); out.append(table[v >> 12 & 63]); out.append(table[v >> 6 & 63]); out.append(0x3D)
        }
    }
}
