/// The ids the synthetic packages of every test target use: one document, its pages, its assets
/// and elements. (Canonical spellings; the format's id rules are in lnote-format.md, section 2.)
public enum IDs {
    public static let doc = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10"
    public static let p1 = "C0A80101-0000-4000-8000-00000000A001"
    public static let p2 = "C0A80101-0000-4000-8000-00000000A002"
    public static let p3 = "C0A80101-0000-4000-8000-00000000A003"
    public static let asset = "69F31B2D-64EE-43C0-AB44-5CCAA473175D"
    public static let asset2 = "69F31B2D-64EE-43C0-AB44-5CCAA4731752"

    /// The `n`th page id of a generated package (`…-000000000001` for page 0).
    public static func page(_ n: Int) -> String { String(format: "C0A80101-0000-4000-8000-%012X", n + 1) }

    /// The `n`th element id.
    public static func element(_ n: Int) -> String { String(format: "E0000000-0000-4000-8000-%012d", n) }
}
