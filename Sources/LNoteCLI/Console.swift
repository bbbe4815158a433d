import Foundation

/// Where a command's output goes. The real tool writes to standard output and standard error;
/// tests capture both.
///
/// A failed write does not crash the process (Foundation's `FileHandle.write(_:)` traps on one,
/// e.g. `> /dev/full`): the first failure on standard output is kept in `outputFailure`, later
/// output to it is dropped, and the tool exits non-zero with a message on standard error. A
/// reader that closes a pipe early (`| head`) still ends the tool with SIGPIPE, as it ends `cat`.
public final class Console: @unchecked Sendable {
    /// Each returns the errno of a failed write, nil when all of the text was written.
    private let writeOut: (String) -> Int32?
    private let writeErr: (String) -> Int32?
    /// True when standard error is a terminal that understands `\r` and `ESC [K` (not
    /// `TERM=dumb`), so a progress line can be redrawn in place.
    public let errorIsTerminal: Bool
    /// True when standard output is a terminal: image bytes are not sent there.
    public let outputIsTerminal: Bool
    private let lock = NSLock()
    private var outputErrno: Int32?
    /// The progress line now on the terminal, if any: cleared before any other line is written
    /// (on either stream, since both usually end up on the same screen) and drawn again after.
    private var shownProgress: String?

    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void, errorIsTerminal: Bool = false,
                outputIsTerminal: Bool = false) {
        self.writeOut = { out($0); return nil }
        self.writeErr = { err($0); return nil }
        self.errorIsTerminal = errorIsTerminal
        self.outputIsTerminal = outputIsTerminal
    }

    /// A console writing to two file descriptors.
    init(outputDescriptor: Int32, errorDescriptor: Int32, errorIsTerminal: Bool, outputIsTerminal: Bool) {
        self.writeOut = { Console.writeAll($0, to: outputDescriptor) }
        self.writeErr = { Console.writeAll($0, to: errorDescriptor) }
        self.errorIsTerminal = errorIsTerminal
        self.outputIsTerminal = outputIsTerminal
    }

    /// The process's standard output and standard error.
    public static func standard() -> Console {
        let term = ProcessInfo.processInfo.environment["TERM"]
        return Console(outputDescriptor: STDOUT_FILENO, errorDescriptor: STDERR_FILENO,
                       errorIsTerminal: redrawsInPlace(isTerminal: isatty(STDERR_FILENO) == 1, term: term),
                       outputIsTerminal: isatty(STDOUT_FILENO) == 1)
    }

    /// Whether a terminal can have a line redrawn in place: not when it is not a terminal, and
    /// not under `TERM=dumb` (or no TERM at all), which has no cursor control.
    static func redrawsInPlace(isTerminal: Bool, term: String?) -> Bool {
        guard isTerminal, let term, !term.isEmpty else { return false }
        return term != "dumb"
    }

    /// Why standard output could not be written, once a write to it has failed.
    public var outputFailure: String? {
        lock.lock(); defer { lock.unlock() }
        return outputErrno.map { String(cString: strerror($0)) }
    }

    public func print(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        guard outputErrno == nil else { return }
        let progress = clearProgress()
        outputErrno = writeOut(Console.visible(line) + "\n")
        redraw(progress)
    }

    /// Standard error is where failures are told; when it cannot be written either, there is
    /// no one left to tell, and the exit status alone reports the failure.
    public func error(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        let progress = clearProgress()
        _ = writeErr(Console.visible(line) + "\n")
        redraw(progress)
    }

    /// Erases the progress line if one is shown; returns it so it can be drawn again.
    private func clearProgress() -> String? {
        guard let shown = shownProgress else { return nil }
        _ = writeErr("\r\u{1B}[K")
        shownProgress = nil
        return shown
    }

    private func redraw(_ progress: String?) {
        guard let progress else { return }
        _ = writeErr(progress)
        shownProgress = progress
    }

    /// write(2) of all of `text`, retrying short writes and EINTR; the errno of a failure.
    private static func writeAll(_ text: String, to fd: Int32) -> Int32? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> Int32? in
            var done = 0
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return nil
        }
    }

    /// Lines carry text from untrusted documents (titles, ids, asset names): control
    /// characters other than newline and tab (C0, DEL, C1) are written as `\u001b` and the
    /// like, so a document cannot send escape sequences to the terminal. The form is also a
    /// JSON escape, so `--json` output stays valid (JSONWriter already escapes C0 itself).
    static func visible(_ text: String) -> String {
        func isControl(_ v: UInt32) -> Bool { (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F...0x9F).contains(v) }
        guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if isControl(u.value) {
                let hex = String(u.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// A progress line on a terminal, redrawn in place and kept below the other lines;
    /// nothing when standard error cannot redraw a line (`errorIsTerminal`).
    public func progress(_ line: String) {
        guard errorIsTerminal else { return }
        lock.lock(); defer { lock.unlock() }
        _ = clearProgress()
        redraw(Console.visible(line))
    }

    /// Erases the progress line, if one is shown.
    public func endProgress() {
        lock.lock(); defer { lock.unlock() }
        _ = clearProgress()
    }
}

/// Exit statuses shared by every subcommand.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Some work failed (a page, a document) or `check` found errors; the rest was done.
    public static let failure: Int32 = 1
    /// The command line was wrong.
    public static let usage: Int32 = 2
    /// `diff` and `snapshot` only: an image (or a document) could not be read or decoded, so
    /// not everything was compared.
    public static let cannotCompare: Int32 = 3
}
