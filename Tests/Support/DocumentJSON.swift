import LNoteFormat

/// document.json for test packages, written with the library's `JSONWriter` (its string escaping):
/// the one document builder of every test target (the hostile world, the format tests, the
/// package builder `PackageBuilder`).
public enum DocumentJSON {
    /// `{"format":F,"id":…,"title":…,"createdAt":…,"modifiedAt":…,"pages":[…]}` around page-entry
    /// texts; a nil member is left out.
    public static func text(id: String? = IDs.doc, title: String?, createdAt: String? = nil,
                            modifiedAt: String? = "2026-11-29T10:00:00Z", format: Int = 1, pages: [String]) -> String {
        var w = JSONWriter()
        w.raw("{\"format\":"); w.int(format)
        for (key, value) in [("id", id), ("title", title), ("createdAt", createdAt), ("modifiedAt", modifiedAt)] {
            guard let value else { continue }
            w.raw(",\""); w.raw(key); w.raw("\":"); w.string(value)
        }
        w.raw(",\"pages\":[")
        w.raw(pages.joined(separator: ","))
        w.raw("]}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// A page entry: `{"id":…,"width":W,"height":H` and `extra` (more members, each starting with
    /// a comma) `}`.
    public static func page(_ id: String, width: Int, height: Int, extra: String = "") -> String {
        var w = JSONWriter()
        w.raw("{\"id\":"); w.string(id)
        w.raw(",\"width\":"); w.int(width)
        w.raw(",\"height\":"); w.int(height)
        w.raw(extra)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
