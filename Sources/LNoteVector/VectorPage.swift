import Glibc
import LNoteFormat
import LNoteShape

/// What both vector writers need about the page being written: its size on the grid, the
/// transform strokes and images are placed with (the one the renderer hands `beginPage`,
/// normally `VectorGrid.transform(for:)`), and the paths of its template.
struct VectorPage {
    let entry: PageEntry
    /// Page units → pixels at the scale of the pixel-scale rules (`VectorGrid.referenceScale`
    /// for an export); its rounded pixel size is not used: the page is exactly width/10 ×
    /// height/10 points.
    let transform: PageTransform
    /// The page in the transform's pixels, unrounded.
    let width: Double, height: Double

    init(_ entry: PageEntry, transform: PageTransform) {
        self.entry = entry
        self.transform = transform
        width = transform.length(Double(entry.width))
        height = transform.length(Double(entry.height))
    }

    /// The page size in points.
    var widthPoints: Double { PageTransform.points(entry.width) }
    var heightPoints: Double { PageTransform.points(entry.height) }
    /// Points per grid step (the content stream's unit): 1/(scale · `VectorGrid.perPixel`).
    var pointsPerStep: Double { 1 / (transform.scale * VectorGrid.perPixel) }
    /// The page size in grid steps.
    var gridWidth: Int { VectorGrid.grid(width) }
    var gridHeight: Int { VectorGrid.grid(height) }

    /// The template's lines (as 0.6 pt rectangles across the page, all in one path, so a grid's
    /// crossings are covered once under the nonzero rule) or dots, in `syntax`; nil when the
    /// page has none. Filled rectangles rather than stroked lines: viewers widen thin stroked
    /// lines to a pixel, and the spec asks for area coverage.
    func templatePath(_ syntax: PathSyntax) -> PathText? {
        let bg = entry.background
        guard TemplateGeometry.hasMarks(bg) else { return nil }
        var path = PathText(syntax)
        let t = transform
        let hw = t.length(TemplateGeometry.lineWidth / 2)
        switch bg.template {
        case .blank:
            return nil
        case .ruled, .grid:
            for k in stride(from: 1, through: TemplateGeometry.lastIndex(spacing: bg.spacing, limit: entry.height), by: 1) {
                let c = t.y(Double(k * bg.spacing))
                path.rect(0, VectorGrid.grid(c - hw), gridWidth, VectorGrid.grid(c + hw))
            }
            if bg.template == .grid {
                for k in stride(from: 1, through: TemplateGeometry.lastIndex(spacing: bg.spacing, limit: entry.width), by: 1) {
                    let c = t.x(Double(k * bg.spacing))
                    path.rect(VectorGrid.grid(c - hw), 0, VectorGrid.grid(c + hw), gridHeight)
                }
            }
        case .dots:
            let r = t.length(TemplateGeometry.dotRadius)
            let kMax = TemplateGeometry.lastIndex(spacing: bg.spacing, limit: entry.width)
            let mMax = TemplateGeometry.lastIndex(spacing: bg.spacing, limit: entry.height)
            guard kMax >= 1, mMax >= 1 else { return nil }
            for m in 1...mMax {
                for k in 1...kMax {
                    path.circle(cx: t.x(Double(k * bg.spacing)), cy: t.y(Double(m * bg.spacing)), r: r)
                }
            }
        }
        return path.out.isEmpty ? nil : path
    }

    /// The affine map (a, b, c, d, e, f) in grid steps that takes the unit square onto the
    /// image's frame (`ImageFrame.unitSquareMatrix`). `yUp` is the PDF image space (row 0 at
    /// v = 1); SVG's has row 0 at v = 0.
    func imageMatrix(_ frame: ImageFrame, yUp: Bool) -> [Double] {
        frame.unitSquareMatrix(perPixel: VectorGrid.perPixel, yUp: yUp)
    }

    /// The image's frame lies wholly off the page (nothing to draw, nothing to embed).
    func imageIsOffPage(_ frame: ImageFrame) -> Bool {
        let m = imageMatrix(frame, yUp: false)
        let xs = [m[4], m[4] + m[0], m[4] + m[2], m[4] + m[0] + m[2]]
        let ys = [m[5], m[5] + m[1], m[5] + m[3], m[5] + m[1] + m[3]]
        let W = Double(gridWidth), H = Double(gridHeight)
        return xs.max()! <= 0 || xs.min()! >= W || ys.max()! <= 0 || ys.min()! >= H
    }
}

/// The sRGB bytes of a colour (alpha not applied). Colours stay bytes until a backend writes
/// them: each format has its own exact way (`NumberText.component`, hex).
typealias RGB8 = (r: UInt8, g: UInt8, b: UInt8)

@inline(__always) func inkRGB(_ c: Color) -> RGB8 { (c.r, c.g, c.b) }

/// The page colour composited over white (spec §2).
func paperRGB(_ c: Color) -> RGB8 {
    let a = Double(c.a) / 255
    let f = { (v: UInt8) in UInt8((Double(v) * a + 255 * (1 - a)).rounded()) }
    return (f(c.r), f(c.g), f(c.b))
}
