import LNoteFormat

/// How a solid-coloured shape combines with what is under it (lnote-format.md section 6). The
/// formulas belong to each backend's compositor; which mode a tool uses is decided here, once.
public enum BlendMode: Sendable {
    /// dst' = dst + (src − dst)·a·c
    case sourceOver
    /// dst' = dst + (dst·src − dst)·a·c over an opaque backdrop (the W3C premultiplied form over
    /// a transparent one, which reduces to that when the backdrop's alpha is 1).
    case multiply
}

/// What a stroke paints with: its colour (straight sRGB, alpha included) and blend mode. The
/// tool's opacity factors (pencil pressure, thin-stroke factor) are in the shape's pieces.
public struct Ink: Sendable, Equatable {
    public var color: Color
    public var mode: BlendMode

    public init(_ stroke: Stroke) {
        color = stroke.color
        mode = stroke.tool == .highlighter ? .multiply : .sourceOver
    }

    /// The colour's alpha as an opacity, 0…1.
    public var opacity: Float { Float(color.a) / 255 }
}
