import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Watches a library directory for changes to its `.lnote` packages and reports each package
/// once its source files have stopped changing for the debounce time.
///
/// Linux's inotify is used where available: the library directory itself (packages added,
/// removed, renamed) and, per package, the package directory, `pages/` and `assets/`.
/// `thumbnails/`, `manifest.json` and temporary files are derived data that the regenerator
/// itself writes, so changes to them are ignored (otherwise every rebuild would trigger the
/// next). Where inotify cannot be used, the same events are found by polling a snapshot of
/// (path, size, modification time) of the source files.
public final class LibraryWatcher: @unchecked Sendable {
    public let root: URL
    public let debounce: Double
    /// Called (on the watcher's thread) with a package that settled: changed, then quiet for
    /// `debounce` seconds. A package that disappeared is reported too, so derived data for a
    /// renamed package is rebuilt under its new name.
    private let onSettled: (URL) -> Void
    private let pollInterval: Double

    private var stopRequested = false
    private let lock = NSLock()

    public init(root: URL, debounce: Double, pollInterval: Double = 0.25, onSettled: @escaping (URL) -> Void) {
        self.root = root.standardizedFileURL
        self.debounce = debounce
        self.pollInterval = pollInterval
        self.onSettled = onSettled
    }

    /// Asks `run()` to return; safe from any thread or a signal-handling queue.
    public func stop() {
        lock.lock(); stopRequested = true; lock.unlock()
    }

    private var shouldStop: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopRequested
    }

    /// Runs until `stop()` is called. Returns which mechanism was used.
    @discardableResult
    public func run(forcePolling: Bool = false) -> String {
        if !forcePolling, let inotify = InotifySession(root: root) {
            runLoop { timeout in inotify.changedPackages(timeout: timeout) }
            return "inotify"
        }
        var poller = PollingSnapshot(root: root)
        runLoop { timeout in
            usleep(useconds_t(max(0, min(timeout, self.pollInterval)) * 1_000_000))
            return poller.changedPackages()
        }
        return "polling"
    }

    /// The debounce loop shared by both mechanisms: `wait(timeout)` returns the packages that
    /// changed within at most `timeout` seconds.
    private func runLoop(_ wait: (Double) -> Set<String>) {
        var pending: [String: Double] = [:]  // package path -> time of its last change
        while !shouldStop {
            let now = Self.now()
            let nextDue = pending.values.map { $0 + debounce - now }.min() ?? 0.2
            for path in wait(max(0.01, min(0.2, nextDue))) { pending[path] = Self.now() }
            let settledAt = Self.now()
            for (path, last) in pending.sorted(by: { $0.key < $1.key }) where settledAt - last >= debounce {
                pending[path] = nil
                onSettled(URL(fileURLWithPath: path))
            }
        }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// True for names whose changes are our own derived output, not source changes.
    static func isDerivedOrTemporary(_ name: String) -> Bool {
        name == "manifest.json" || name == "thumbnails" || name.hasPrefix(".")
    }
}

/// inotify watches on the library, each package, and each package's `pages/` and `assets/`.
private final class InotifySession {
    private let fd: Int32
    private let root: String
    /// watch descriptor -> (directory path, package path or nil for the library itself)
    private var watches: [Int32: (dir: String, package: String?)] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init?(root: URL) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.root = root.path
        guard addWatch(root.path, package: nil) else { close(fd); return nil }
        for pkg in Self.packages(in: root.path) { watchPackage(pkg) }
    }

    deinit { close(fd) }

    static func packages(in root: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { LibraryScan.isPackageName($0) && !$0.hasPrefix(".") }.sorted().map { root + "/" + $0 }
    }

    @discardableResult
    private func addWatch(_ dir: String, package: String?) -> Bool {
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                          | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
        let wd = inotify_add_watch(fd, dir, mask)
        guard wd >= 0 else { return false }
        watches[wd] = (dir, package)
        return true
    }

    private func watchPackage(_ pkg: String) {
        addWatch(pkg, package: pkg)
        addWatch(pkg + "/pages", package: pkg)
        addWatch(pkg + "/assets", package: pkg)
    }

    func changedPackages(timeout: Double) -> Set<String> {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) > 0 else { return [] }
        var changed = Set<String>()
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, len, name) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<(nameStart + Int(event.len))].prefix { $0 != 0 }
                    return (event.wd, event.mask, Int(event.len), String(decoding: nameBytes, as: UTF8.self))
                }
                offset += MemoryLayout<inotify_event>.size + len
                handle(wd: wd, mask: mask, name: name, into: &changed)
            }
        }
        return changed
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into changed: inout Set<String>) {
        if mask & UInt32(IN_IGNORED) != 0 { watches[wd] = nil; return }
        guard let watch = watches[wd] else { return }
        if let pkg = watch.package {
            // Inside a package: the package root's own derived files do not count.
            if watch.dir == pkg && LibraryWatcher.isDerivedOrTemporary(name) { return }
            if name.hasPrefix(".") { return }
            if watch.dir == pkg, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, name == "pages" || name == "assets" {
                addWatch(pkg + "/" + name, package: pkg)
            }
            changed.insert(pkg)
        } else {
            // The library itself: packages added, removed or renamed.
            guard LibraryScan.isPackageName(name), !name.hasPrefix(".") else { return }
            let pkg = root + "/" + name
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { watchPackage(pkg) }
            changed.insert(pkg)
        }
    }
}

/// The polling fallback: compares (size, modification time) of every source file per package.
private struct PollingSnapshot {
    let root: String
    private var state: [String: [String: String]] = [:]

    init(root: URL) {
        self.root = root.path
        state = scan()
    }

    private func scan() -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        let fm = FileManager.default
        for pkg in InotifySession.packages(in: root) {
            var files: [String: String] = [:]
            for sub in ["", "/pages", "/assets"] {
                let dir = pkg + sub
                for name in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] {
                    if sub.isEmpty && (LibraryWatcher.isDerivedOrTemporary(name) || name == "pages" || name == "assets") { continue }
                    if name.hasPrefix(".") { continue }
                    var st = stat()
                    guard lstat(dir + "/" + name, &st) == 0 else { continue }
                    files[sub + "/" + name] = "\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
                }
            }
            result[pkg] = files
        }
        return result
    }

    mutating func changedPackages() -> Set<String> {
        let now = scan()
        var changed = Set<String>()
        for pkg in Set(now.keys).union(state.keys) where now[pkg] != state[pkg] { changed.insert(pkg) }
        state = now
        return changed
    }
}
