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
        switch st.st_mode & S_IFMT {
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
        try readOpened(open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), display: display, maxBytes: maxBytes)
    }

    /// Reads the regular file at `relative` ("dir/name") under the directory `root`, opening
    /// each component through the descriptor of the one before with O_NOFOLLOW: a directory
    /// inside `root` that is (or was swapped for) a symbolic link is refused, never read
    /// through, so a package read cannot return bytes from outside the package. The last
    /// component of `root` may not be a link either; earlier ones are the user's choice.
    public static func readRegularFile(relative: String, under root: String, display: String,
                                       maxBytes: Int = Int.max) throws(LNoteError) -> [UInt8] {
        func directoryError(_ code: Int32) -> LNoteError {
            if code == ELOOP || code == ENOTDIR {
                return LNoteError(.unsafePath, file: display, rule: "symlink",
                                  message: "its directory is a symbolic link or not a directory; nothing is read through it")
            }
            return openError(code, display: display)
        }
        var dfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dfd >= 0 else { throw directoryError(errno) }
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for directory in components.dropLast() {
            let next = openat(dfd, directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(dfd)
            guard next >= 0 else { throw directoryError(code) }
            dfd = next
        }
        defer { close(dfd) }
        return try readOpened(openat(dfd, components.last ?? ".", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
                              display: display, maxBytes: maxBytes)
    }

    private static func openError(_ code: Int32, display: String) -> LNoteError {
        if code == ENOENT { return LNoteError(.missing, file: display, rule: "missing", message: "the file does not exist") }
        if code == ELOOP { return LNoteError(.unsafePath, file: display, rule: "symlink", message: "a symbolic link is never followed") }
        return LNoteError(.io, file: display, rule: "read", message: "cannot open: \(errnoText(code))")
    }

    /// The whole regular file behind `fd` (the result of an open; negative: its errno), closed after.
    private static func readOpened(_ fd: Int32, display: String, maxBytes: Int) throws(LNoteError) -> [UInt8] {
        guard fd >= 0 else { throw openError(errno, display: display) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw LNoteError(.io, file: display, rule: "read", message: "cannot stat: \(errnoText())") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw LNoteError(.unsafePath, file: display, rule: "not-regular-file", message: "not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            throw LNoteError(.limit, file: display, rule: "file-size", message: "the file is \(size) bytes, more than \(maxBytes)")
        }
        var out = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LNoteError(.io, file: display, rule: "read", message: "read failed: \(errnoText())")
            }
            if n == 0 { out.removeLast(size - filled); break } // shrank while reading
            filled += n
        }
        return out
    }

    /// Names in a directory (not `.`/`..`), sorted; empty when it does not exist.
    public static func listDirectory(atPath path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
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

    /// fsync of a directory, so a rename or unlink in it is durable.
    /// A descriptor of the directory at `path` for `*at` calls. With `noFollow`, a symbolic link
    /// as its last component is refused (`.unsafePath`), not followed.
    static func openDirectory(atPath path: String, noFollow: Bool, display: String) throws(LNoteError) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0))
        guard fd >= 0 else {
            let code = errno
            if noFollow && (code == ELOOP || code == ENOTDIR) {
                throw LNoteError(.unsafePath, file: display, rule: "symlink",
                                 message: "its directory is a symbolic link or not a directory; nothing is written through it")
            }
            throw LNoteError(.io, file: display, rule: "write", message: "cannot open its directory: \(errnoText(code))")
        }
        return fd
    }

    /// Deletes the regular file `name` of directory `dir` (opened with O_NOFOLLOW, so a
    /// directory swapped for a link is refused), then syncs the directory. A link or any other
    /// non-file is refused, a missing file (or directory) is `.missing`.
    static func removeFile(named name: String, inDirectory dir: String, display: String) throws(LNoteError) {
        let missing = LNoteError(.missing, file: display, rule: "missing", message: "the file does not exist")
        guard FileIO.kind(atPath: dir) != .missing else { throw missing }
        let dfd = try openDirectory(atPath: dir, noFollow: true, display: display)
        defer { close(dfd) }
        var st = stat()
        guard fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            if code == ENOENT { throw missing }
            throw LNoteError(.io, file: display, rule: "delete", message: "cannot delete: \(errnoText(code))")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: throw LNoteError(.unsafePath, file: display, rule: "symlink", message: "a symbolic link is never followed")
        default: throw LNoteError(.unsafePath, file: display, rule: "not-regular-file", message: "not a regular file")
        }
        guard unlinkat(dfd, name, 0) == 0 else {
            throw LNoteError(.io, file: display, rule: "delete", message: "cannot delete: \(errnoText())")
        }
        _ = fsync(dfd)
    }

    static func syncDirectory(atPath path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }
}
