import Dispatch
import Foundation
import LNoteFormat

/// Ctrl-C (SIGINT) or SIGTERM during a command that builds files under temporary names (a PDF
/// export's `AtomicFileStream`, a migration's database, a restore's packages): whatever is
/// still registered in `PendingTemporaries` is removed, then the signal ends the process as it
/// would have. Without this an interrupted PDF export left its `.NAME.pdf.tmp-*`, a migration
/// its `.OUT.sqlite.tmp-*`, a restore its `.NAME.lnote.tmp-*` directory.
enum InterruptCleanup {
    private static let installed = Installed()

    private final class Installed: @unchecked Sendable {
        var sources: [DispatchSourceSignal] = []
        let lock = NSLock()
    }

    /// Installs the handlers once per process (later calls do nothing).
    static func install() {
        installed.lock.lock(); defer { installed.lock.unlock() }
        guard installed.sources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            // A signal the process was started ignoring (`lnote-render export … &` in a script)
            // stays ignored, as it was before.
            let previous = signal(sig, SIG_IGN)
            if unsafeBitCast(previous, to: UnsafeRawPointer?.self) == unsafeBitCast(SIG_IGN, to: UnsafeRawPointer?.self) { continue }
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                PendingTemporaries.removeAll()
                // Ended by the signal, as without the handler: its default action, delivered to
                // this thread (libdispatch keeps signals of its sources blocked in its threads).
                signal(sig, SIG_DFL)
                var set = sigset_t()
                sigemptyset(&set)
                sigaddset(&set, sig)
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                raise(sig)
                _exit(128 + sig)
            }
            source.resume()
            installed.sources.append(source)
        }
    }
}
