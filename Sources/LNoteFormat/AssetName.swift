/// Asset file names: `<UUID>.jpg` or `<UUID>.png`, extension of either case, nothing else.
public enum AssetName {
    public static func isValid(_ name: String) -> Bool {
        let u = Array(name.utf8)
        guard u.count == 40, u[36] == _dot else { return false }
        guard LNoteID(String(decoding: u[0..<36], as: UTF8.self)) != nil else { return false }
        let ext = String(decoding: u[37...], as: UTF8.self).lowercased()
        return ext == "jpg" || ext == "png"
    }

    /// The UUID part of a valid asset name.
    public static func id(of name: String) -> LNoteID? {
        guard isValid(name) else { return nil }
        return LNoteID(String(name.utf8.prefix(36))!)
    }
}
