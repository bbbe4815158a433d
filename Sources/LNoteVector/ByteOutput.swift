import Glibc
import LNoteFormat

/// Where a vector writer's bytes go, in order: a file being written atomically, standard
/// output, or memory (tests). Counting is the writer's: a PDF needs each object's offset.
public protocol ByteOutput: AnyObject {
    func append(_ bytes: [UInt8]) throws(LNoteError)
}

extension AtomicFileStream: ByteOutput {}

/// Bytes kept in memory.
public final class MemoryOutput: ByteOutput {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
}

/// Standard output, written as it comes (`-o -`).
public final class StandardOutput: ByteOutput {
    public init() {}
    public func append(_ bytes: [UInt8]) throws(LNoteError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LNoteError(.io, file: "<stdout>", code: .write, message: "cannot write: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}

/// Counts what passes through to another output.
public final class CountingOutput: ByteOutput {
    private let inner: ByteOutput
    public private(set) var count = 0
    public init(_ inner: ByteOutput) { self.inner = inner }
    public func append(_ bytes: [UInt8]) throws(LNoteError) {
        try inner.append(bytes)
        count += bytes.count
    }
}
