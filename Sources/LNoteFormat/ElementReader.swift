// The rules of one element (section 4): an element's members read from the scanner, checked,
// and turned into an `Element`, or an `ElementProblem` saying why it is skipped. The `points`
// array is decoded by PointsDecoder.swift.

/// Why one element is invalid (it is skipped with a warning; the rest of the page renders).
public struct ElementProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The element's id, when it had a string one.
    public var id: String?
    /// The code: `.json`, `.elementObject`, `.type`, `.id`, `.color`, `.points`,
    /// `.pointsInteger`, `.pointsLength`, `.coordinateRange`, `.radiusRange`, `.pressureRange`,
    /// `.timeRange`, `.sampleLimit`, `.asset`, `.frame`, `.rotation`, `.opacity`.
    public var code: Code
    public var message: String

    public init(id: String?, code: Code, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }

    public var description: String { "[\(code.rawValue)] \(message)" }
}

/// The members of an element that the reader looks at, recognised from the key's bytes without
/// making a String.
private enum FieldName {
    case points, type, id, tool, color, asset, frame, rotation, opacity, other

    init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        @inline(__always) func isKey(_ k: StaticString) -> Bool {
            let q = k.utf8Start
            for i in 0..<n where p[i] != q[i] { return false }
            return true
        }
        switch n {
        case 2: self = isKey("id") ? .id : .other
        case 4: self = isKey("type") ? .type : isKey("tool") ? .tool : .other
        case 5: self = isKey("color") ? .color : isKey("asset") ? .asset : isKey("frame") ? .frame : .other
        case 6: self = isKey("points") ? .points : .other
        case 7: self = isKey("opacity") ? .opacity : .other
        case 8: self = isKey("rotation") ? .rotation : .other
        default: self = .other
        }
    }
}

/// A member value that is usually a string: kept as a String without boxing it in a JSONValue.
private enum Field {
    case string(String)
    case value(JSONValue)

    /// Reads the value at the scanner's position; a plain string (ASCII, no escapes) goes
    /// straight from the input to a String.
    static func read(_ s: inout JSONScanner) throws(JSONError) -> Field {
        if s.peek() == _quote, let r = s.scanPlainString() {
            return .string(String(decoding: UnsafeBufferPointer(start: s.base + r.lowerBound, count: r.count), as: UTF8.self))
        }
        let v = try s.walk(.keep(.typeOnly))
        if case .string(let text) = v { return .string(text) }
        return .value(v)
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .value(let v): return v.typeName
        }
    }
}

/// Reads elements one after another, reusing its buffers.
struct ElementReader {
    /// The `points` values of the stroke being read.
    let scratch = Scratch<Int32>(capacity: 4096)
    private var key: [UInt8] = []
    /// The array the scanner reads, when there is one: element texts are ranges of it. Without
    /// one (a journal payload seen through a pointer), each element copies its text.
    private let source: [UInt8]?

    init(source: [UInt8]? = nil) {
        self.source = source
    }

    /// The most `points` values stored; beyond this the stroke is invalid anyway, and the rest of
    /// the array is only validated, so a huge array never makes us allocate more.
    static let maxValues = ContentLimits.maxSamplesPerStroke * Stroke.fieldsPerSample

    /// Where the first sample whose radius or pressure is out of range starts (a multiple of
    /// 5), if one is. A function of its own so that the loop gets its registers whatever the
    /// size of `read` (inside it, the two values were spilled to the stack on every sample).
    @inline(never)
    static func firstSampleOutOfRange(_ values: UnsafeMutablePointer<Int32>, _ n: Int) -> Int? {
        var i = 0
        while i < n {
            if !ContentLimits.radiusRange.contains(values[i + 2]) || !ContentLimits.pressureRange.contains(values[i + 3]) {
                return i
            }
            i += 5
        }
        return nil
    }

    /// Reads one element value at the scanner's position. Syntax errors throw (the enclosing file
    /// is invalid); rule violations come back as `.failure`.
    mutating func read(_ s: inout JSONScanner) throws(JSONError) -> Result<Element, ElementProblem> {
        s.skipWhitespace()
        let start = s.pos
        guard s.peek() == _lbrace else {
            let v = try s.walk(.keep(.typeOnly))
            return .failure(ElementProblem(id: nil, code: .elementObject, message: "the element is \(v.typeName), not an object"))
        }
        try s.beginObject()
        var first = true
        var type: Field? = nil, id: Field? = nil, tool: Field? = nil, color: Field? = nil
        var asset: JSONValue? = nil, frame: JSONValue? = nil, rotation: JSONValue? = nil, opacity: JSONValue? = nil
        var points: PointsScan? = nil
        while let k = try s.nextMemberKey(first: &first, key: &key) {
            let name: FieldName
            switch k {
            case .plain(let start, let count): name = FieldName(s.base + start, count)
            case .decoded: name = key.withUnsafeBufferPointer { FieldName($0.baseAddress ?? s.base, $0.count) }
            }
            switch name {
            case .points: points = try readPoints(&s)
            case .type: type = try Field.read(&s)
            case .id: id = try Field.read(&s)
            case .tool: tool = try Field.read(&s)
            case .color: color = try Field.read(&s)
            case .asset: asset = try s.walk(.keep(.typeOnly))
            case .frame: frame = try ElementReader.readFrame(&s)
            case .rotation: rotation = try s.walk(.keep(.typeOnly))
            case .opacity: opacity = try s.walk(.keep(.typeOnly))
            case .other: try s.walk(.skip)
            }
        }
        let end = s.pos

        // id: optional, but a string when present (null counts as absent).
        var idString: String? = nil
        switch id {
        case nil, .value(.null)?: break
        case .string(let v)?: idString = v
        case let other?:
            return .failure(ElementProblem(id: nil, code: .id, message: "id is \(other.typeName), not a string"))
        }
        func fail(_ code: Code, _ message: String) -> Result<Element, ElementProblem> {
            .failure(ElementProblem(id: idString, code: code, message: message))
        }
        guard let typeName = type?.stringValue else {
            return fail(.type, type == nil ? "the element has no type" : "type is \(type!.typeName), not a string")
        }
        let kind: Element.Kind
        switch typeName {
        case "stroke":
            guard let colorText = color?.stringValue else {
                return fail(.color, color == nil ? "a stroke needs a color" : "color is \(color!.typeName), not a string")
            }
            guard let parsedColor = Color(hex: colorText) else {
                return fail(.color, "color \"\(colorText)\" is not #RRGGBB or #RRGGBBAA")
            }
            // A missing or unknown tool is drawn as a pen.
            let parsedTool = tool?.stringValue.flatMap(Tool.init(rawValue:)) ?? .pen
            guard let points else { return fail(.points, "a stroke needs a points array") }
            if let t = points.notArray { return fail(.points, "points is \(t), not an array") }
            if var p = points.problem { p.id = idString; return .failure(p) }
            let n = points.count
            if n % Stroke.fieldsPerSample != 0 {
                return fail(.pointsLength, "points has \(n) values, not a multiple of \(Stroke.fieldsPerSample)")
            }
            let values = scratch.p
            if let i = ElementReader.firstSampleOutOfRange(values, n) {
                let r = values[i + 2], pr = values[i + 3]
                if !ContentLimits.radiusRange.contains(r) {
                    return fail(.radiusRange, "sample \(i / 5) has radius \(r), outside \(ContentLimits.radiusRange)")
                }
                return fail(.pressureRange, "sample \(i / 5) has pressure \(pr), outside \(ContentLimits.pressureRange)")
            }
            kind = .stroke(Stroke(tool: parsedTool, color: parsedColor,
                                  points: Array(UnsafeBufferPointer(start: values, count: n))))
        case "image":
            guard let name = asset?.stringValue else {
                return fail(.asset, asset == nil ? "an image needs an asset" : "asset is \(asset!.typeName), not a string")
            }
            guard AssetName.isValid(name) else {
                return fail(.asset, "asset \"\(name)\" is not <UUID>.jpg or <UUID>.png")
            }
            guard case .array(let f)? = frame, f.count == 4 else {
                return fail(.frame, frame == nil ? "an image needs a frame" : "frame is not an array of 4 integers")
            }
            var xywh: [Int32] = []
            for v in f {
                guard let n = v.integerValue, let n32 = Int32(exactly: n) else {
                    return fail(.frame, "frame values must be integers in the 32-bit range, found \(v.typeName)")
                }
                xywh.append(n32)
            }
            guard xywh[2] > 0, xywh[3] > 0 else {
                return fail(.frame, "frame width and height must be > 0 (found \(xywh[2]) x \(xywh[3]))")
            }
            var rot = 0
            if let rotation, rotation != .null {
                guard let r = rotation.integerValue, let r32 = Int32(exactly: r) else {
                    return fail(.rotation, "rotation must be an integer (thousandths of a degree), found \(rotation.typeName)")
                }
                rot = Int(r32)
            }
            var op = 1000
            if let opacity, opacity != .null {
                guard let o = opacity.integerValue, ContentLimits.opacityRange.contains(o) else {
                    return fail(.opacity, "opacity must be an integer from \(ContentLimits.opacityRange.lowerBound) to \(ContentLimits.opacityRange.upperBound), found \(opacity.integerValue.map(String.init) ?? opacity.typeName)")
                }
                op = Int(o)
            }
            kind = .image(ImagePlacement(asset: name, x: xywh[0], y: xywh[1], width: xywh[2], height: xywh[3],
                                         rotation: rot, opacity: op))
        default:
            // Kept (the journal may address it, compaction writes it back) but not drawn.
            kind = .unknown(type: typeName)
        }
        if let source {
            return .success(Element(id: idString, kind: kind, source: source, range: start..<end))
        }
        let json = Array(UnsafeBufferPointer(start: s.base + start, count: end - start))
        return .success(Element(id: idString, kind: kind, json: json))
    }

    /// `frame`: only an array of exactly 4 integers is valid, so only its first 5 items are built
    /// (a fifth is enough to tell it is too long); the rest is validated. Anything else comes
    /// back by its type only.
    private static func readFrame(_ s: inout JSONScanner) throws(JSONError) -> JSONValue {
        guard s.peek() == _lbracket else { return try s.walk(.keep(.typeOnly)) }
        try s.beginArray()
        var items: [JSONValue] = []
        var first = true
        while try s.nextElement(first: &first) {
            if items.count <= 4 { items.append(try s.walk(.keep(.typeOnly))) } else { try s.walk(.skip) }
        }
        return .array(items)
    }
}
