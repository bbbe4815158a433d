// POSIX file access: reads that never follow a symbolic link, and listing of directories.
//
// Why POSIX and not FileManager: the package must be read without following symbolic links
// (a link inside a package could point anywhere), which needs lstat and O_NOFOLLOW; and writes
// need fsync of the file and its directory.

import Glibc

/// What is at a path, without following a final symbolic link.
public enum FileKind: Sendable, Equatable {
    case missing, regular, directory, symlink, other
}

public enum FileIO {
    /// lstat: the kind of the path itself (a symbolic link is reported, not followed).
    public static func kind(atPath path: String) -> FileKind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        return kind(ofMode: st.st_mode)
    }

    static func kind(ofMode mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Reads a whole regular file, refusing a symbolic link (O_NOFOLLOW, so a link swapped in
    /// after a check is refused too) and anything that is not a regular file.
    /// - Parameter display: the path to name in errors (relative to the package).
    public static func readRegularFile(atPath path: String, display: String, maxBytes: Int = Int.max) throws(LNoteError) -> [UInt8] {
        try readOpened(open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), display: display, maxBytes: maxBytes).bytes
    }

    /// Reads the regular file at `relative` ("dir/name") under the directory `root` (see
    /// `openDirectory(_:under:)`): a package read never returns bytes from outside the package.
    public static func readRegularFile(relative: String, under root: String, display: String,
                                       maxBytes: Int = Int.max) throws(LNoteError) -> [UInt8] {
        try readRegularFileAndIdentity(relative: relative, under: root, display: display, maxBytes: maxBytes).0
    }

    private static func openError(_ code: Int32, display: String) -> LNoteError {
        if code == ENOENT { return LNoteError(.missing, file: display, code: .missing, message: "the file does not exist") }
        if code == ELOOP { return LNoteError(.unsafePath, file: display, code: .symlink, message: "a symbolic link is never followed") }
        return LNoteError(.io, file: display, code: .read, message: "cannot open: \(errnoText(code))")
    }

    /// The whole regular file behind `fd` (the result of an open; negative: its errno), closed
    /// after, with its fstat taken before the read.
    private static func readOpened(_ fd: Int32, display: String, maxBytes: Int) throws(LNoteError) -> (bytes: [UInt8], stat: stat) {
        guard fd >= 0 else { throw openError(errno, display: display) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw LNoteError(.io, file: display, code: .read, message: "cannot stat: \(errnoText())") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw LNoteError(.unsafePath, file: display, code: .notRegularFile, message: "not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            throw LNoteError(.limit, file: display, code: .fileSize, message: "the file is \(size) bytes, more than \(maxBytes)")
        }
        var out = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LNoteError(.io, file: display, code: .read, message: "read failed: \(errnoText())")
            }
            if n == 0 { out.removeLast(size - filled); break } // shrank while reading
            filled += n
        }
        return (out, st)
    }

    /// Names in a directory (not `.`/`..`), sorted; empty when it does not exist. Follows
    /// symbolic links: for paths the user chose (a library, an export directory), never for a
    /// directory inside a package (see `entries(of:under:display:)`).
    public static func listDirectory(atPath path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        return names(in: dir)
    }

    /// One entry of a package directory, as lstat sees it.
    public struct DirectoryEntry: Sendable, Equatable {
        public var name: String
        public var kind: FileKind
    }

    /// The entries (not `.`/`..`) of the directory `relative` under `root`, sorted by name,
    /// each with its kind as lstat would give it (a link is reported, not followed). The
    /// directory is opened as by `openDirectory(_:under:)`, so a package directory that is a
    /// symbolic link is refused (`.unsafePath`) and no name from outside the package is listed;
    /// a missing one is `.missing`.
    ///
    /// Kinds come from readdir's d_type, with an fstatat only where the file system leaves it
    /// unknown: a page lookup lists pages/ (hundreds of entries) for every page without a
    /// journal, and a stat per entry there made a 200-page no-op regeneration 50 % slower.
    public static func entries(of relative: String, under root: String, display: String) throws(LNoteError) -> [DirectoryEntry] {
        let dfd = try openDirectory(relative, under: root, display: display, action: "listed")
        guard let dir = fdopendir(dfd) else {
            let code = errno
            close(dfd)
            throw LNoteError(.io, file: display, code: .directory, message: "cannot list the directory: \(errnoText(code))")
        }
        defer { closedir(dir) }  // also closes dfd
        let fd = dirfd(dir)
        var entries: [DirectoryEntry] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            let kind: FileKind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symlink
            case Int32(DT_UNKNOWN):
                var st = stat()
                kind = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileIO.kind(ofMode: st.st_mode) : .missing
            default: kind = .other
            }
            entries.append(DirectoryEntry(name: name, kind: kind))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// The names readdir returns (not `.`/`..`), sorted.
    private static func names(in dir: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    /// A descriptor, for `*at` calls, of the directory `relative` ("" for `root` itself, else
    /// e.g. "pages") under `root`: `root` and each component below it are opened with
    /// O_NOFOLLOW through the descriptor of the one before, so a package directory that is (or
    /// was swapped for, after the package was checked) a symbolic link is refused and nothing
    /// is `action` ("read", "written", "deleted") through it. Components of `root` before its
    /// last are the user's choice and followed.
    static func openDirectory(_ relative: String, under root: String, display: String,
                              action: String) throws(LNoteError) -> Int32 {
        func failure(_ code: Int32) -> LNoteError {
            switch code {
            case ELOOP, ENOTDIR:
                return LNoteError(.unsafePath, file: display, code: .symlink,
                                  message: "its directory is a symbolic link or not a directory; nothing is \(action) through it")
            case ENOENT:
                return LNoteError(.missing, file: display, code: .missing, message: "the file does not exist")
            default:
                return LNoteError(.io, file: display, code: .directory, message: "cannot open its directory: \(errnoText(code))")
            }
        }
        var dfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dfd >= 0 else { throw failure(errno) }
        for component in relative.split(separator: "/") {
            let next = openat(dfd, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(dfd)
            guard next >= 0 else { throw failure(code) }
            dfd = next
        }
        return dfd
    }

    /// Deletes the regular file at `relative` under `root` (its directory opened as by
    /// `openDirectory(_:under:)`), then syncs the directory. A link or any other non-file is
    /// refused, a missing file (or directory) is `.missing`.
    static func removeFile(relative: String, under root: String, display: String) throws(LNoteError) {
        let (dfd, name, st) = try openForDeletion(relative, under: root, display: display)
        defer { close(dfd) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: throw LNoteError(.unsafePath, file: display, code: .symlink, message: "a symbolic link is never followed")
        default: throw LNoteError(.unsafePath, file: display, code: .notRegularFile, message: "not a regular file")
        }
        try unlink(name, in: dfd, display: display)
    }

    /// The directory of `relative` under `root`, opened as by `openDirectory(_:under:)` (the
    /// caller closes it), the file's name in it and its lstat; `.missing` when it is not there.
    private static func openForDeletion(_ relative: String, under root: String,
                                        display: String) throws(LNoteError) -> (Int32, String, stat) {
        let (dir, name) = AtomicFile.split(relative)
        let dfd = try openDirectory(dir, under: root, display: display, action: "deleted")
        var st = stat()
        guard fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            close(dfd)
            if code == ENOENT { throw LNoteError(.missing, file: display, code: .missing, message: "the file does not exist") }
            throw LNoteError(.io, file: display, code: .delete, message: "cannot delete: \(errnoText(code))")
        }
        return (dfd, name, st)
    }

    /// unlinkat, then fsync of the directory so the deletion is durable.
    private static func unlink(_ name: String, in dfd: Int32, display: String) throws(LNoteError) {
        guard unlinkat(dfd, name, 0) == 0 else {
            throw LNoteError(.io, file: display, code: .delete, message: "cannot delete: \(errnoText())")
        }
        _ = fsync(dfd)
    }

    /// `path` as the file system will resolve it once what is missing has been created: absolute,
    /// without symbolic links, `.` or `..`. The longest prefix that exists goes through realpath;
    /// the components after it do not exist yet (a write or mkdir creates them as real entries),
    /// so they are applied as written. Nil only when not even the working directory resolves.
    public static func resolvedPath(_ path: String) -> String? {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").map(String.init)
        for existing in stride(from: parts.count, through: 0, by: -1) {
            let prefix = (absolute ? "/" : "") + parts[..<existing].joined(separator: "/")
            guard let real = realpath(prefix.isEmpty ? "." : prefix, nil) else { continue }
            var resolved = String(cString: real).split(separator: "/").map(String.init)
            free(real)
            for part in parts[existing...] {
                if part == ".." { _ = resolved.popLast() } else if part != "." { resolved.append(part) }
            }
            return "/" + resolved.joined(separator: "/")
        }
        return nil
    }

    /// fsync of a directory, so a rename or unlink in it is durable.
    public static func syncDirectory(atPath path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    // MARK: append-only files

    /// Which file some bytes were read from, and how many: for an append-only file (a journal)
    /// the same file at the same size still holds exactly those bytes.
    public struct FileIdentity: Sendable, Equatable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int
    }

    /// `readRegularFile(relative:under:display:maxBytes:)`, with the identity of the file the
    /// bytes came from, taken from the descriptor they were read through (so from that very
    /// file, whatever is renamed or created at its name meanwhile).
    static func readRegularFileAndIdentity(relative: String, under root: String, display: String,
                                           maxBytes: Int = Int.max) throws(LNoteError) -> ([UInt8], FileIdentity) {
        let (bytes, st) = try readRegularFileAndStat(relative: relative, under: root, display: display, maxBytes: maxBytes)
        return (bytes, FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: bytes.count))
    }

    /// The bytes and the fstat (taken before the read) of the regular file at `relative` under `root`.
    static func readRegularFileAndStat(relative: String, under root: String, display: String,
                                       maxBytes: Int = Int.max) throws(LNoteError) -> ([UInt8], stat) {
        let (dir, name) = AtomicFile.split(relative)
        let dfd = try openDirectory(dir, under: root, display: display, action: "read")
        defer { close(dfd) }
        return try readOpened(openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), display: display, maxBytes: maxBytes)
    }

    /// Deletes the file at `relative` under `root` (its directory opened as by
    /// `openDirectory(_:under:)`) only if it is still `expected`: the same regular file, of the
    /// same size. Returns false, deleting nothing, when it is not (it was replaced, or it grew:
    /// an append since it was read); throws `.missing` when it is gone. The check and the
    /// unlink go through one directory descriptor, a few system calls apart.
    static func removeFile(relative: String, under root: String, display: String,
                           ifStill expected: FileIdentity) throws(LNoteError) -> Bool {
        let (dfd, name, st) = try openForDeletion(relative, under: root, display: display)
        defer { close(dfd) }
        let now = FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size))
        guard st.st_mode & S_IFMT == S_IFREG, now == expected else { return false }
        try unlink(name, in: dfd, display: display)
        return true
    }
}
