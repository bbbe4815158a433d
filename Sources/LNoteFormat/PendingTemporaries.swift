import Foundation

/// What a command is building under a temporary name and has not put in place yet: a PDF
/// export's `.NAME.pdf.tmp-*`, a migration's `.OUT.sqlite.tmp-*` (with its `-wal` and `-shm`),
/// a restore's `.NAME.lnote.tmp-*` package directory. Each writer registers how to remove what
/// it created and unregisters once it is in place (or removed); a process being interrupted
/// (SIGINT, SIGTERM: the CLI's `InterruptCleanup`) calls `removeAll`, so that it leaves none of
/// them behind. Safe to use from any thread.
public enum PendingTemporaries {
    /// One registration, to unregister.
    public struct Token: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private final class Registry: @unchecked Sendable {
        var removals: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
        let lock = NSLock()
    }

    private static let registry = Registry()

    /// Registers `remove`, which deletes what was created (it must not fail when some or all of
    /// it is gone already: it may run after the writer put it in place or removed it itself).
    public static func register(_ remove: @escaping @Sendable () -> Void) -> Token {
        registry.lock.lock(); defer { registry.lock.unlock() }
        registry.next += 1
        registry.removals[registry.next] = remove
        return Token(value: registry.next)
    }

    /// What `token` registered is in place or removed: nothing to do for it any more.
    public static func unregister(_ token: Token) {
        registry.lock.lock(); registry.removals[token.value] = nil; registry.lock.unlock()
    }

    /// Removes everything still registered (for a process that is being interrupted, whose
    /// writers will never finish).
    public static func removeAll() {
        registry.lock.lock(); defer { registry.lock.unlock() }
        for remove in registry.removals.values { remove() }
        registry.removals = [:]
    }

    /// Removes the directory tree `path` (a package being built): its files, its
    /// subdirectories, itself; a symbolic link inside is removed, never followed. Tried a few
    /// times, since the writer may still be adding a file to it while an interrupt removes it.
    public static func removeTree(_ path: String) {
        for _ in 0..<8 {
            removeEntries(of: path)
            if rmdir(path) == 0 || errno == ENOENT { return }
        }
    }

    private static func removeEntries(of path: String) {
        for entry in FileIO.listDirectory(atPath: path) {
            let full = path + "/" + entry
            if FileIO.kind(atPath: full) == .directory {
                removeEntries(of: full)
                rmdir(full)
            } else {
                unlink(full)
            }
        }
    }
}
