import Foundation

/// Where a command's output goes. The real tool writes to standard output and standard error;
/// tests capture both.
public final class Console: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    /// True when standard error is a terminal, so a progress line can be redrawn in place.
    public let errorIsTerminal: Bool
    private let lock = NSLock()

    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void, errorIsTerminal: Bool = false) {
        self.writeOut = out
        self.writeErr = err
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's standard output and standard error.
    public static func standard() -> Console {
        Console(out: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
                err: { text in FileHandle.standardError.write(Data(text.utf8)) },
                errorIsTerminal: isatty(STDERR_FILENO) == 1)
    }

    public func print(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        writeOut(Console.visible(line) + "\n")
    }

    public func error(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        writeErr(Console.visible(line) + "\n")
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

    /// A progress line on a terminal, redrawn in place; nothing when stderr is not a terminal.
    public func progress(_ line: String) {
        guard errorIsTerminal else { return }
        lock.lock(); defer { lock.unlock() }
        writeErr("\r\u{1B}[K" + line)
    }

    /// Clears the progress line.
    public func endProgress() {
        guard errorIsTerminal else { return }
        lock.lock(); defer { lock.unlock() }
        writeErr("\r\u{1B}[K")
    }
}

/// Exit statuses shared by every subcommand.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Some work failed (a page, a document) or `check` found errors; the rest was done.
    public static let failure: Int32 = 1
    /// The command line was wrong.
    public static let usage: Int32 = 2
}
