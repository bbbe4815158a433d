// What a stat says about a file, in the spirit of git's index: enough to notice nearly every
// change without reading the file, and to say when that cannot be trusted.

import Glibc

/// The identity and change times of a file: device, inode, mode, size, mtime and ctime in
/// nanoseconds. Two equal stamps taken at different times mean the same file, not rewritten,
/// renamed over, truncated or touched in between, with one exception that `isSettled(at:)` covers:
/// a change within the file system's timestamp granularity of the first stamp leaves the times
/// as they were.
///
/// ctime is what makes a copy with preserved modification times (`cp -p`, `rsync -a`, `tar x`)
/// visible: nothing but the kernel can set it, and every write, rename or chmod moves it.
public struct FileStamp: Sendable, Equatable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var mode: UInt32
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64

    public init(device: UInt64, inode: UInt64, mode: UInt32, size: Int64, mtimeNs: Int64, ctimeNs: Int64) {
        self.device = device
        self.inode = inode
        self.mode = mode
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
    }

    public init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), mode: UInt32(st.st_mode), size: Int64(st.st_size),
                  mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  ctimeNs: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    public var kind: FileKind { FileIO.kind(ofMode: mode_t(mode)) }

    /// The time-stamp granularity to allow for. Linux file systems keep nanoseconds but take them
    /// from the kernel's coarse clock, one tick (1-10 ms) per step, so two writes in one tick
    /// look alike; 50 ms covers that. Times with no sub-second part at all come from a file
    /// system that keeps whole seconds (ext3, HFS+, some network mounts) or two (FAT): 2 s.
    public var granularityNs: Int64 {
        mtimeNs % 1_000_000_000 == 0 && ctimeNs % 1_000_000_000 == 0 ? 2_000_000_000 : 50_000_000
    }

    /// Whether a stamp taken at `referenceNs` (wall clock, before the file was read) can vouch for
    /// the bytes read: only when both times lie more than the granularity before it. Otherwise a
    /// second change in the same tick would keep the stamp as it is (git's "racily clean" entry),
    /// so such a stamp is never recorded and the file is read and hashed next time too.
    /// A time in the future (a server clock ahead of ours) is never settled either.
    public func isSettled(at referenceNs: Int64) -> Bool {
        max(mtimeNs, ctimeNs) < referenceNs - granularityNs
    }

    /// `dev:ino:mode:size:mtime:ctime`, all decimal.
    public var description: String { "\(device):\(inode):\(mode):\(size):\(mtimeNs):\(ctimeNs)" }

    /// Parses `description`.
    public init?(_ text: Substring) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, let d = UInt64(parts[0]), let i = UInt64(parts[1]), let m = UInt32(parts[2]),
              let s = Int64(parts[3]), let mt = Int64(parts[4]), let ct = Int64(parts[5]) else { return nil }
        self.init(device: d, inode: i, mode: m, size: s, mtimeNs: mt, ctimeNs: ct)
    }

    /// The wall clock in nanoseconds (the clock file times are set from).
    public static func nowNs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

extension FileIO {
    /// Stamps of the directory `relative` under `root` (reached as by `openDirectory(_:under:)`,
    /// never through a symbolic link) and of the entries `names` in it, each as lstat sees it
    /// (nil: missing or unreadable). One open for all of them: this is the whole cost of finding
    /// that a document's files did not change. The directory's stamp is nil when it cannot be
    /// opened, and then so is every entry's.
    public static func stamps(of names: [String], in relative: String, under root: String) -> (directory: FileStamp?, entries: [FileStamp?]) {
        guard let dfd = try? openDirectory(relative, under: root, display: relative, action: "read") else {
            return (nil, Array(repeating: nil, count: names.count))
        }
        defer { close(dfd) }
        var st = stat()
        guard fstat(dfd, &st) == 0 else { return (nil, Array(repeating: nil, count: names.count)) }
        let directory = FileStamp(st)
        let entries = names.map { name -> FileStamp? in
            var st = stat()
            return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileStamp(st) : nil
        }
        return (directory, entries)
    }

    /// `readRegularFile(relative:under:display:maxBytes:)`, with the stamp of the file the bytes
    /// came from, taken from the descriptor before the read (a change during the read moves it).
    public static func readRegularFileAndStamp(relative: String, under root: String, display: String,
                                               maxBytes: Int = Int.max) throws(LNoteError) -> ([UInt8], FileStamp) {
        let (bytes, st) = try readRegularFileAndStat(relative: relative, under: root, display: display, maxBytes: maxBytes)
        return (bytes, FileStamp(st))
    }
}
