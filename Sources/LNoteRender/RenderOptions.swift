import LNoteFormat
import LNoteShape

/// How big a rendered page is: one of the four ways a user can ask for it.
public enum OutputSize: Sendable, Equatable {
    /// Pixels per point (1 = 72 dpi).
    case scale(Double)
    /// Dots per inch (72 dpi = scale 1).
    case dpi(Double)
    /// Output width in pixels; the height follows the page's aspect ratio.
    case width(Int)
    /// Output height in pixels; the width follows the page's aspect ratio.
    case height(Int)
    /// The largest size whose width and height both fit inside the box, aspect ratio kept (as
    /// vipsthumbnail's `WxH`): covers and previews of pages of any shape.
    case fit(width: Int, height: Int)

    /// The scale (pixels per point) for a page of `pageWidth` × `pageHeight` in 0.1 pt.
    public func scale(pageWidth: Int, pageHeight: Int) -> Double {
        switch self {
        case .scale(let s): return s
        case .dpi(let d): return PageTransform.scale(dpi: d)
        case .width(let w): return PageTransform.scale(forWidth: w, pageWidth: pageWidth)
        case .height(let h): return PageTransform.scale(forHeight: h, pageHeight: pageHeight)
        case .fit(let w, let h):
            return min(PageTransform.scale(forWidth: w, pageWidth: pageWidth), PageTransform.scale(forHeight: h, pageHeight: pageHeight))
        }
    }
}

/// What goes under the ink.
public enum BackgroundMode: Sendable, Equatable {
    /// Paper colour and template lines or dots, as the page says.
    case full
    /// Paper colour only: template lines and dots dropped.
    case paperOnly
    /// No paper colour: template lines kept, on a transparent canvas.
    case transparent
    /// Nothing under the ink: a transparent canvas without lines.
    case transparentNoTemplate

    /// The background layers a backend draws.
    public var layers: BackgroundLayers {
        BackgroundLayers(paper: self == .full || self == .paperOnly, template: self == .full || self == .transparent)
    }
}

/// Everything that decides how a page becomes pixels (not how pixels become a file).
public struct RenderOptions: Sendable, Equatable {
    public var size: OutputSize
    public var background: BackgroundMode
    /// Refuse to render a page larger than this many pixels (checked before allocating).
    public var maxPixels: Int
    /// Refuse to render a page whose estimated work (`RasterWork`: seconds of one core of the
    /// project's machine kind) is over this, before drawing anything.
    public var maxWork: Double

    public static let defaultMaxPixels = 100_000_000
    /// 10 s of single-threaded rendering on the project's machine kind. A dense page of
    /// handwriting (2,000 strokes) estimates about 0.3 s at scale 2.
    public static let defaultMaxWork: Double = 10

    public init(size: OutputSize = .scale(1), background: BackgroundMode = .full, maxPixels: Int = defaultMaxPixels,
                maxWork: Double = defaultMaxWork) {
        self.size = size
        self.background = background
        self.maxPixels = maxPixels
        self.maxWork = maxWork
    }

    public var isTransparent: Bool { background == .transparent || background == .transparentNoTemplate }
}
