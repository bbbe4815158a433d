import Foundation
import LNoteFormat

/// Finds `.lnote` packages: a path that is a package is taken as is; a directory is searched
/// (recursively, never following symbolic links, never descending into a package).
public enum LibraryScan {
    /// A path that names no package and no directory to search.
    public struct Failure: Sendable {
        public var path: String
        /// What is wrong, as an error of the path (`missing`, `symlink`, `not-a-package`, or a
        /// directory of a library that cannot be listed).
        public var error: LNoteError
        /// `path: what is wrong`.
        public var message: String { "\(path): \(error.message)" }

        init(path: String, _ kind: LNoteError.Kind, _ code: Code, _ reason: String) {
            self.path = path
            self.error = LNoteError(kind, file: path, code: code, message: reason)
        }
    }

    public static func packages(in paths: [String]) -> (packages: [String], errors: [Failure]) {
        let found = keyedPackages(in: paths)
        return (found.packages.map(\.path), found.errors)
    }

    /// `packages(in:)`, each package with its key: its path below the argument it was found
    /// under (a package named directly: its own name). The key does not depend on where the
    /// library is mounted, so shards on different machines order documents alike.
    public static func keyedPackages(in paths: [String]) -> (packages: [(path: String, key: String)], errors: [Failure]) {
        var found: [(path: String, key: String)] = []
        var errors: [Failure] = []
        for raw in paths {
            var path = raw
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            switch FileIO.kind(atPath: path) {
            case .directory:
                if isPackageName(path) {
                    found.append((path, URL(fileURLWithPath: path).lastPathComponent))
                } else {
                    search(path, key: "", into: &found, errors: &errors)
                }
            case .missing:
                errors.append(Failure(path: path, .missing, .missing, "no such file or directory"))
            case .symlink:
                errors.append(Failure(path: path, .unsafePath, .symlink, "is a symbolic link, which is never followed"))
            default:
                errors.append(Failure(path: path, .invalid, .notAPackage, "not a .lnote package or a directory"))
            }
        }
        // The same package named twice (directly and through its library) is done once. One
        // argument cannot name a package twice, and URL standardization is a tenth of a no-op
        // run over a large library.
        if paths.count > 1 {
            var seen = Set<String>()
            found = found.filter { seen.insert(URL(fileURLWithPath: $0.path).standardizedFileURL.path).inserted }
        }
        return (found, errors)
    }

    static func isPackageName(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".lnote")
    }

    /// A directory that cannot be listed is a failure, not an empty folder: a caller that acts
    /// on what is absent (`snapshot --prune`) must know that it did not see everything.
    private static func search(_ dir: String, key: String, into found: inout [(path: String, key: String)],
                               errors: inout [Failure]) {
        // Kinds from the listing (d_type), not an lstat per entry: a library holds thousands.
        let entries: [FileIO.DirectoryEntry]
        do throws(LNoteError) {
            entries = try FileIO.entries(of: "", under: dir, display: dir)
        } catch {
            errors.append(Failure(path: dir, error.kind, error.code, error.message))
            return
        }
        for entry in entries where !entry.name.hasPrefix(".") && entry.kind == .directory {
            let name = entry.name
            let path = dir + "/" + name
            let below = key.isEmpty ? name : key + "/" + name
            if isPackageName(name) { found.append((path, below)) } else { search(path, key: below, into: &found, errors: &errors) }
        }
    }
}
