import CCodecShim
import LNoteFormat

/// A failure to encode or decode an image, carrying libpng's or libjpeg's own message.
///
/// The message never names a file: the codecs see bytes only, so callers that know the file
/// name add it (e.g. `"assets/\(name): \(error)"`).
public struct CodecError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        /// Not a PNG or JPEG by signature.
        case unknownFormat
        /// The library rejected the data: corrupt, truncated, bad CRC, zero size, ...
        case invalidData
        /// The header claims more pixels than allowed; nothing was allocated for them.
        case tooLarge
        /// A valid file in a form the decoder does not handle (e.g. an unknown colour space).
        case unsupported
        /// The caller passed something the encoder cannot write (e.g. an over-long comment).
        case invalidArgument
        case outOfMemory
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension LNoteError {
    /// A codec failure as the library's error about `file`, its kind kept: a header over the
    /// pixel limit is a `limit`, anything else the file's or the caller's data being `invalid`.
    /// The message is the codec's own.
    public init(_ error: CodecError, file: String, code: Code) {
        self.init(error.kind == .tooLarge ? .limit : .invalid, file: file, code: code, message: error.message)
    }
}

/// Runs one shim call with a message buffer and turns a non-zero status into a CodecError.
/// `what` prefixes the library's message ("PNG decode: ...") so a log line says which step failed.
func shimCall(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(CodecError) {
    var buffer = [CChar](repeating: 0, count: Int(LNC_MSG_CAPACITY))
    let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    guard status != Int32(LNC_OK.rawValue) else { return }
    let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    let kind: CodecError.Kind
    switch UInt32(status) {
    case LNC_ERR_TOO_LARGE.rawValue: kind = .tooLarge
    case LNC_ERR_UNSUPPORTED.rawValue: kind = .unsupported
    case LNC_ERR_ARGUMENT.rawValue: kind = .invalidArgument
    case LNC_ERR_NOMEM.rawValue: kind = .outOfMemory
    default: kind = .invalidData
    }
    throw CodecError(kind, "\(what): \(text.isEmpty ? "unknown error" : text)")
}

/// Copies a malloc'd shim output into a Swift array and frees it.
func takeShimBuffer(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let pointer else { return [] }
    defer { lnc_free(pointer) }
    return [UInt8](UnsafeBufferPointer(start: pointer, count: count))
}
