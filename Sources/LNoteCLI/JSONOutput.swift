import LNoteFormat

/// A JSON value built by commands for `--json` output, printed on one line.
public indirect enum JSONOutput: Sendable, Equatable {
    case object([(String, JSONOutput)])
    case array([JSONOutput])
    case string(String)
    case int(Int)
    case number(Double)
    case bool(Bool)
    case null

    public static func == (a: JSONOutput, b: JSONOutput) -> Bool { a.text == b.text }

    public static func optional(_ s: String?) -> JSONOutput { s.map { .string($0) } ?? .null }
    public static func optional(_ i: Int?) -> JSONOutput { i.map { .int($0) } ?? .null }

    /// Compact JSON text.
    public var text: String {
        var w = JSONWriter()
        write(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private func write(to w: inout JSONWriter) {
        switch self {
        case .object(let members):
            w.raw("{")
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { w.raw(",") }
                w.string(key)
                w.raw(":")
                value.write(to: &w)
            }
            w.raw("}")
        case .array(let items):
            w.raw("[")
            for (i, item) in items.enumerated() {
                if i > 0 { w.raw(",") }
                item.write(to: &w)
            }
            w.raw("]")
        case .string(let s): w.string(s)
        case .int(let i): w.int(i)
        case .number(let d):
            // JSON has no NaN or infinity.
            w.raw(d.isFinite ? String(d) : "null")
        case .bool(let b): w.raw(b ? "true" : "false")
        case .null: w.raw("null")
        }
    }
}

extension Diagnostic {
    /// A diagnostic as a JSON object.
    var json: JSONOutput {
        .object([
            ("severity", .string(severity.rawValue)), ("file", .string(file)),
            ("element", .optional(elementIndex)), ("id", .optional(elementID)),
            ("offset", .optional(offset)), ("rule", .string(code.rawValue)), ("message", .string(message)),
        ])
    }
}

extension LNoteError {
    var json: JSONOutput {
        .object([("kind", .string(kind.rawValue)), ("file", .string(file)), ("rule", .string(code.rawValue)), ("message", .string(message))])
    }
}
