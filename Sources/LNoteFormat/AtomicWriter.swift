// Atomic file replacement (section 1) and journal appends (section 5).
//
// A crash at any moment leaves the old file or the new one, never a truncated one: the bytes go
// to `.<name>.tmp-<random>` in the same directory (same file system, so rename is atomic), are
// fsynced, renamed over the target, and then the directory is fsynced so the rename is durable.
// Everything happens through one descriptor of the directory (openat, renameat), so the file
// lands in the directory that was opened even if the path changes meanwhile; inside a package
// that directory is reached with O_NOFOLLOW at every step, so a directory swapped for a symbolic
// link after the package was checked is refused instead of written through.

import Foundation
import Glibc

public enum AtomicFile {
    /// Stages of `write`, for tests that simulate a failure at one of them.
    enum Stage { case afterTempWrite, beforeRename }

    /// `.<name>.tmp-<random>`.
    public static func temporaryName(for name: String) -> String {
        ".\(name).tmp-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }

    /// Whether `name` is a temporary file left by an interrupted write: `.<name>.tmp-<anything>`
    /// with a non-empty `<name>`.
    public static func isTemporaryFileName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { isTemporaryFileName(bytes: $0) }
    }

    /// `isTemporaryFileName` on the bytes of a name, such as a directory entry's, without
    /// making a String of it (the trusted no-op path lists directories with getdents64).
    public static func isTemporaryFileName(bytes u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard u.count >= 7, u[0] == 0x2E else { return false }
        var i = 2 // at least one character of <name> after the leading dot
        while i + 5 <= u.count {
            if u[i] == 0x2E && u[i + 1] == 0x74 && u[i + 2] == 0x6D && u[i + 3] == 0x70 && u[i + 4] == 0x2D { return true }  // .tmp-
            i += 1
        }
        return false
    }


    /// Atomically replaces (or creates) the file at `path` with `bytes`. For files outside a
    /// package (exports): the directory may be reached through symbolic links.
    /// - Parameter display: the path to name in errors; defaults to `path`.
    public static func write(_ bytes: [UInt8], toPath path: String, display: String? = nil) throws(LNoteError) {
        try write(bytes, toPath: path, display: display, failAt: nil)
    }

    /// Atomically replaces (or creates) the package file `relative` ("name" or "dir/name") under
    /// the package `root`; its directory is opened as by `FileIO.openDirectory(_:under:)`, so a
    /// package directory that is (or was just swapped for) a symbolic link is refused.
    ///
    /// `durable: false` skips the two fsyncs, for a cache whose loss costs only work (the
    /// regenerator's stat index): the rename is still atomic, so a reader sees the old file or
    /// the new one, but after a power cut the new one may be empty or missing.
    public static func write(_ bytes: [UInt8], relative: String, under root: String, durable: Bool = true) throws(LNoteError) {
        let (dir, name) = split(relative)
        let dfd = try FileIO.openDirectory(dir, under: root, display: relative, action: "written")
        defer { close(dfd) }
        _ = try write(bytes, named: name, inDirectory: dfd, display: relative, failAt: nil, durable: durable)
    }

    /// `write(_:relative:under:durable:)`, returning the stamp of the file it put in place, taken
    /// after the rename (which moves its ctime) and only if the name still holds that very file
    /// (same device and inode as the temporary file written): nil when another writer's file
    /// replaced it meanwhile.
    public static func writeAndStamp(_ bytes: [UInt8], relative: String, under root: String,
                                     durable: Bool = true) throws(LNoteError) -> FileStamp? {
        let (dir, name) = split(relative)
        let dfd = try FileIO.openDirectory(dir, under: root, display: relative, action: "written")
        defer { close(dfd) }
        return try write(bytes, named: name, inDirectory: dfd, display: relative, failAt: nil, durable: durable, stamp: true)
    }

    static func write(_ bytes: [UInt8], toPath path: String, display: String?, failAt: Stage?) throws(LNoteError) {
        let shown = display ?? path
        let (dir, name) = split(path)
        let dfd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw LNoteError(.io, file: shown, code: .write, message: "cannot open its directory: \(FileIO.errnoText())")
        }
        defer { close(dfd) }
        _ = try write(bytes, named: name, inDirectory: dfd, display: shown, failAt: failAt)
    }

    /// The write itself, through one descriptor of the directory (openat, renameat).
    /// With `stamp`, returns the written file's stamp as `writeAndStamp` describes (else nil).
    private static func write(_ bytes: [UInt8], named name: String, inDirectory dfd: Int32, display shown: String,
                              failAt: Stage?, durable: Bool = true, stamp: Bool = false) throws(LNoteError) -> FileStamp? {
        let tmp = temporaryName(for: name)
        func fail(_ what: String, _ code: Int32) -> LNoteError {
            LNoteError(.io, file: shown, code: .write, message: "\(what): \(FileIO.errnoText(code))")
        }
        // Keep the permissions of the file being replaced, but not setuid, setgid or sticky:
        // new content must not inherit privileges granted to the old.
        var mode: mode_t = 0o644
        var st = stat()
        if fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG { mode = st.st_mode & 0o777 }

        let fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw fail("cannot create a temporary file", errno) }
        var ok = false
        defer { if !ok { unlinkat(dfd, tmp, 0) } }
        if let code = FileIO.writeAll(fd, bytes) { close(fd); throw fail("write failed", code) }
        if failAt == .afterTempWrite { close(fd); throw LNoteError(.io, file: shown, code: .write, message: "simulated failure") }
        _ = fchmod(fd, mode)  // the mode given to openat was narrowed by the umask
        guard !durable || fsync(fd) == 0 else { let code = errno; close(fd); throw fail("fsync failed", code) }
        var written = stat()
        let identified = stamp && fstat(fd, &written) == 0
        guard close(fd) == 0 else { throw fail("close failed", errno) }
        if failAt == .beforeRename { throw LNoteError(.io, file: shown, code: .write, message: "simulated failure") }
        guard renameat(dfd, tmp, dfd, name) == 0 else { throw fail("rename failed", errno) }
        ok = true
        if durable { _ = fsync(dfd) }
        guard identified else { return nil }
        var now = stat()
        guard fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0, now.st_dev == written.st_dev, now.st_ino == written.st_ino else { return nil }
        return FileStamp(now)
    }

    /// The directory ("" for none, "/" for the root) and the last component of a path.
    public static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }
}

/// A file written in parts and then put in place atomically: the parts go to
/// `.<name>.tmp-<random>` in the target's directory, `commit` fsyncs and renames it over the
/// target, and a stream dropped (or failed) before `commit` removes the temporary file. For
/// exports too large to hold in memory at once (a many-page PDF is written page by page).
public final class AtomicFileStream {
    private let dfd: Int32
    private var fd: Int32
    private let name: String, tmp: String, shown: String
    private let mode: mode_t
    private var finished = false
    /// Its temporary file, until it is committed or abandoned (`PendingTemporaries`).
    private var pending: PendingTemporaries.Token?
    /// Bytes appended so far.
    public private(set) var count = 0

    /// Creates the temporary file next to `path` (outside a package: the directory may be
    /// reached through symbolic links, as for `AtomicFile.write(_:toPath:)`).
    public init(path: String, display: String? = nil) throws(LNoteError) {
        shown = display ?? path
        let (dir, base) = AtomicFile.split(path)
        name = base
        tmp = AtomicFile.temporaryName(for: base)
        dfd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw LNoteError(.io, file: shown, code: .write, message: "cannot open its directory: \(FileIO.errnoText())")
        }
        var m: mode_t = 0o644
        var st = stat()
        if fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG { m = st.st_mode & 0o777 }
        mode = m
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m)
        guard fd >= 0 else {
            let code = errno
            close(dfd)
            throw LNoteError(.io, file: shown, code: .write, message: "cannot create a temporary file: \(FileIO.errnoText(code))")
        }
        // Removed by an interrupt (SIGINT, SIGTERM) before it is committed. The directory
        // descriptor stays open until the stream is unregistered, so the removal finds it.
        pending = PendingTemporaries.register { [dfd, tmp] in _ = unlinkat(dfd, tmp, 0) }
    }

    deinit {
        if !finished { abandon() }
        close(dfd)
    }

    /// Appends `bytes` to the temporary file.
    public func append(_ bytes: [UInt8]) throws(LNoteError) {
        guard !finished else { return }
        if let code = FileIO.writeAll(fd, bytes) {
            abandon()
            throw LNoteError(.io, file: shown, code: .write, message: "write failed: \(FileIO.errnoText(code))")
        }
        count += bytes.count
    }

    /// Flushes the temporary file and renames it over the target.
    public func commit() throws(LNoteError) {
        guard !finished else { return }
        func fail(_ what: String, _ code: Int32) -> LNoteError {
            abandon()
            return LNoteError(.io, file: shown, code: .write, message: "\(what): \(FileIO.errnoText(code))")
        }
        _ = fchmod(fd, mode)
        guard fsync(fd) == 0 else { throw fail("fsync failed", errno) }
        guard renameat(dfd, tmp, dfd, name) == 0 else { throw fail("rename failed", errno) }
        finished = true
        if let pending { PendingTemporaries.unregister(pending) }
        close(fd)
        _ = fsync(dfd)
    }

    /// Removes the temporary file; the target is left as it was.
    public func abandon() {
        guard !finished else { return }
        finished = true
        if let pending { PendingTemporaries.unregister(pending) }
        close(fd)
        unlinkat(dfd, tmp, 0)
    }
}

public enum JournalWriter {
    /// Appends whole encoded frames to a journal (created if missing) with O_APPEND, then fsyncs.
    /// A symbolic link is refused. A crash mid-write leaves a torn tail, which replay ignores.
    public static func append(_ frames: [UInt8], toPath path: String, display: String? = nil) throws(LNoteError) {
        let shown = display ?? path
        let existed = FileIO.kind(atPath: path) != .missing
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw LNoteError(code == ELOOP ? .unsafePath : .io, file: shown, code: .journalAppend,
                             message: "cannot open the journal: \(FileIO.errnoText(code))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw LNoteError(.unsafePath, file: shown, code: .notRegularFile, message: "the journal is not a regular file")
        }
        if let code = FileIO.writeAll(fd, frames) {
            throw LNoteError(.io, file: shown, code: .journalAppend, message: "write failed: \(FileIO.errnoText(code))")
        }
        guard fsync(fd) == 0 else {
            throw LNoteError(.io, file: shown, code: .journalAppend, message: "fsync failed: \(FileIO.errnoText())")
        }
        if !existed { let dir = AtomicFile.split(path).dir; FileIO.syncDirectory(atPath: dir.isEmpty ? "." : dir) }
    }
}
