import LNoteFormat

/// Where a page template's lines and dots are, in page units (lnote-format.md section 2): the
/// geometry every backend draws, so none re-derives it.
///
/// Lines are 0.6 pt wide and centred on k·spacing for k ≥ 1 while k·spacing < the page size
/// (horizontal lines for ruled and grid, vertical ones too for grid); dots are discs of radius
/// 0.8 pt at every (k·spacing, m·spacing). The thin-stroke rule does not apply to either.
public enum TemplateGeometry {
    /// Line width in page units (0.6 pt).
    public static let lineWidth: Double = 6
    /// Dot radius in page units (0.8 pt).
    public static let dotRadius: Double = 8

    /// The largest k with k·spacing < `limit` (0 when there is none).
    public static func lastIndex(spacing: Int, limit: Int) -> Int {
        guard spacing > 0, limit > 1 else { return 0 }
        return (limit - 1) / spacing
    }

    /// Whether `background` draws anything beyond its colour.
    public static func hasMarks(_ background: PageBackground) -> Bool {
        background.template != .blank && background.spacing > 0
    }
}
