import LNoteFormat

/// Which parts of a page's background to draw.
public struct BackgroundLayers: Sendable, Equatable {
    /// The paper colour (composited over white). Without it the page is transparent.
    public var paper: Bool
    /// Template lines or dots.
    public var template: Bool

    public init(paper: Bool, template: Bool) {
        self.paper = paper
        self.template = template
    }
}

/// What a page is drawn onto: the raster canvas, or a vector document.
///
/// The page renderer calls `beginPage`, then `drawStroke` and `drawImage` for the elements in
/// z-order, then `endPage`. Everything a backend needs to place things is in the transform; how
/// a stroke becomes a shape is `StrokeShape`'s job, the backend only consumes its pieces; how
/// colours combine is the backend's compositor (see `Ink` for which blend mode a tool uses).
/// A backend never reads the package itself except for the assets an image names.
public protocol PageBackend {
    /// Starts `page`, mapped through `transform`, and draws its background `layers`.
    mutating func beginPage(_ page: PageEntry, transform: PageTransform, layers: BackgroundLayers) throws(LNoteError)
    /// Draws one stroke with its ink.
    mutating func drawStroke(_ stroke: Stroke) throws(LNoteError)
    /// Draws one image. An error means this image could not be shown (the renderer reports it
    /// as a warning on the element and goes on with the page).
    mutating func drawImage(_ placement: ImagePlacement) throws(LNoteError)
    /// Finishes the page.
    mutating func endPage() throws(LNoteError)
}
