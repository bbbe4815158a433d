import Foundation
import LNoteFormat

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
///
/// A library of a few thousand documents needs more watches (three per package) than some
/// systems allow one user (`fs.inotify.max_user_watches`; 8,192 on older kernels). When
/// `inotify_add_watch` fails with ENOSPC the watcher says so once, naming the limit and how to
/// raise it, and polls the packages it could not watch, while inotify keeps covering the rest.
public final class LibraryWatcher: @unchecked Sendable {
    public let root: URL
    public let debounce: Double
    /// Called (on the watcher's thread) with a package that settled: changed, then quiet for
    /// `debounce` seconds. A package that disappeared is reported too, so derived data for a
    /// renamed package is rebuilt under its new name.
    private let onSettled: (URL) -> Void
    /// Called (on the watcher's thread) with a sentence for the user: inotify's limits reached,
    /// and what the watcher does instead.
    private let onNotice: (String) -> Void
    /// Called once the watches are in place and changes from then on will be seen.
    private let onReady: () -> Void
    private let pollInterval: Double
    /// For tests: inotify_add_watch fails with ENOSPC once this many watches exist, as it does
    /// at `fs.inotify.max_user_watches`.
    let simulatedWatchLimit: Int?

    private var stopRequested = false
    private let lock = NSLock()

    public convenience init(root: URL, debounce: Double, pollInterval: Double = 0.25, onNotice: @escaping (String) -> Void = { _ in },
                            onReady: @escaping () -> Void = {}, onSettled: @escaping (URL) -> Void) {
        self.init(root: root, debounce: debounce, pollInterval: pollInterval, onNotice: onNotice, onReady: onReady,
                  simulatedWatchLimit: nil, onSettled: onSettled)
    }

    init(root: URL, debounce: Double, pollInterval: Double, onNotice: @escaping (String) -> Void, onReady: @escaping () -> Void,
         simulatedWatchLimit: Int?, onSettled: @escaping (URL) -> Void) {
        self.root = root.standardizedFileURL
        self.debounce = debounce
        self.pollInterval = pollInterval
        self.onNotice = onNotice
        self.onReady = onReady
        self.simulatedWatchLimit = simulatedWatchLimit
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

    /// Runs until `stop()` is called. Returns which mechanism was used: "inotify", "polling", or
    /// "inotify and polling" when the watch limit left some packages to polling.
    @discardableResult
    public func run(forcePolling: Bool = false) -> String {
        if !forcePolling {
            switch InotifySession.start(root: root, limit: simulatedWatchLimit) {
            case .success(let inotify):
                var poller = PollingSnapshot(packages: Array(inotify.unwatched).sorted())
                var everPolled = !inotify.unwatched.isEmpty
                if everPolled { onNotice(Self.watchLimitNotice(watched: inotify.watchedPackages, polled: inotify.unwatched.count, interval: pollInterval)) }
                onReady()
                var nextPoll = Self.now()
                runLoop { timeout in
                    var changed = inotify.changedPackages(timeout: inotify.unwatched.isEmpty ? timeout : min(timeout, max(0, nextPoll - Self.now())))
                    if !inotify.unwatched.isEmpty {
                        if !everPolled {
                            everPolled = true
                            self.onNotice(Self.watchLimitNotice(watched: inotify.watchedPackages, polled: inotify.unwatched.count, interval: self.pollInterval))
                        }
                        if Self.now() >= nextPoll {
                            let started = Self.now()
                            poller.packages = Array(inotify.unwatched).sorted()
                            changed.formUnion(poller.changedPackages())
                            // Never more than about a third of a core on polling, however large the rest.
                            nextPoll = Self.now() + max(self.pollInterval, 2 * (Self.now() - started))
                        }
                    }
                    return changed
                }
                return everPolled ? "inotify and polling" : "inotify"
            case .failure(let failure):
                if let notice = failure.notice { onNotice(notice) }
            }
        }
        var poller = PollingSnapshot(packages: InotifySession.packages(in: root.path))
        onReady()
        var interval = pollInterval
        runLoop { timeout in
            usleep(useconds_t(max(0, min(timeout, interval)) * 1_000_000))
            let started = Self.now()
            poller.packages = InotifySession.packages(in: self.root.path)
            let changed = poller.changedPackages()
            interval = max(self.pollInterval, 2 * (Self.now() - started))
            return changed
        }
        return "polling"
    }

    /// The sentence for ENOSPC from inotify_add_watch.
    static func watchLimitNotice(watched: Int, polled: Int, interval: Double) -> String {
        let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return "inotify watch limit reached (fs.inotify.max_user_watches = \(limit), for all of this user's processes): "
            + "\(watched) package(s) watched with inotify, \(polled) polled every \(interval) s or more, so their changes are seen later. "
            + "Each package takes 3 watches; raise the limit with `sudo sysctl fs.inotify.max_user_watches=524288`, "
            + "and keep it across reboots with a line `fs.inotify.max_user_watches=524288` in /etc/sysctl.d/60-inotify.conf."
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
/// A package is watched whole or not at all: one whose watches hit the limit has the ones it got
/// removed again and is left in `unwatched`, for polling.
private final class InotifySession {
    private let fd: Int32
    private let root: String
    private let limit: Int?
    /// watch descriptor -> (directory path, package path or nil for the library itself)
    private var watches: [Int32: (dir: String, package: String?)] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Packages left to polling because the watch limit was reached.
    private(set) var unwatched = Set<String>()
    private(set) var watchedPackages = 0

    enum AddResult: Equatable { case added(Int32), limitReached, failed }

    private init(fd: Int32, root: String, limit: Int?) {
        self.fd = fd
        self.root = root
        self.limit = limit
    }

    /// A session watching the library and its packages, or why there is none (a sentence for
    /// the user, or nil when inotify simply is not available and polling needs no excuse).
    static func start(root: URL, limit: Int?) -> Result<InotifySession, Failure> {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            if errno == EMFILE {
                return .failure(Failure("inotify instance limit reached (fs.inotify.max_user_instances): polling the whole library instead. "
                                        + "Raise it with `sudo sysctl fs.inotify.max_user_instances=1024`."))
            }
            return .failure(Failure(nil))
        }
        let session = InotifySession(fd: fd, root: root.path, limit: limit)
        switch session.addWatch(root.path, package: nil) {
        case .added: break
        case .limitReached:
            return .failure(Failure(LibraryWatcher.watchLimitNotice(watched: 0, polled: packages(in: root.path).count, interval: 0.25)))
        case .failed:
            return .failure(Failure(nil))
        }
        for pkg in packages(in: root.path) { session.watchPackage(pkg) }
        return .success(session)
    }

    struct Failure: Error {
        var notice: String?
        init(_ notice: String?) { self.notice = notice }
    }

    deinit { close(fd) }

    static func packages(in root: String) -> [String] {
        FileIO.listDirectory(atPath: root).filter { LibraryScan.isPackageName($0) && !$0.hasPrefix(".") }.map { root + "/" + $0 }
    }

    private func addWatch(_ dir: String, package: String?) -> AddResult {
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                          | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
        if let limit, watches.count >= limit { return .limitReached }
        let wd = inotify_add_watch(fd, dir, mask)
        guard wd >= 0 else { return errno == ENOSPC ? .limitReached : .failed }
        watches[wd] = (dir, package)
        return .added(wd)
    }

    private func watchPackage(_ pkg: String) {
        if !unwatched.isEmpty {
            // Once the limit is reached, new packages go to polling at once.
            unwatched.insert(pkg)
            return
        }
        var added: [Int32] = []
        for dir in [pkg, pkg + "/pages", pkg + "/assets"] {
            switch addWatch(dir, package: pkg) {
            case .added(let wd): added.append(wd)
            case .failed: continue  // pages/ or assets/ missing: watched when created
            case .limitReached:
                for wd in added where watches[wd]?.package == pkg {
                    inotify_rm_watch(fd, wd)
                    watches[wd] = nil
                }
                unwatched.insert(pkg)
                return
            }
        }
        watchedPackages += 1
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
                if addWatch(pkg + "/" + name, package: pkg) == .limitReached { unwatched.insert(pkg) }
            }
            changed.insert(pkg)
        } else {
            // The library itself: packages added, removed or renamed.
            guard LibraryScan.isPackageName(name), !name.hasPrefix(".") else { return }
            let pkg = root + "/" + name
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { watchPackage(pkg) }
            if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 { unwatched.remove(pkg) }
            changed.insert(pkg)
        }
    }
}

/// The polling fallback: compares (size, modification time) of every source file of the given
/// packages (the whole library, or those inotify could not watch). lstat through Glibc, not
/// FileManager: at library scale a scan is tens of thousands of calls.
private struct PollingSnapshot {
    var packages: [String]
    private var state: [String: [String: String]] = [:]

    init(packages: [String]) {
        self.packages = packages
        state = scan()
    }

    private func scan() -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for pkg in packages {
            var files: [String: String] = [:]
            for sub in ["", "/pages", "/assets"] {
                let dir = pkg + sub
                for name in FileIO.listDirectory(atPath: dir) {
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
