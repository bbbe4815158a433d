// Support for the hostile-package tests: a temporary "world" holding one package, a sibling
// directory (what a symbolic link inside the package points at) and an export directory;
// byte-exact snapshots of every file, so each test can say exactly what a command was allowed
// to change; and the peak RSS a piece of code raised.

import Foundation
import Glibc
import XCTest
import LNoteBitmap
import LNoteCodecs
import LNoteFormat

/// One entry of a tree snapshot: what lstat sees, and a regular file's bytes.
public enum TreeEntry: Equatable, CustomStringConvertible {
    case file([UInt8])
    /// A file too big to compare byte by byte (the sparse-file tests): its size and mtime.
    case largeFile(size: Int, modified: Int)
    case directory
    case link(String)
    case other

    public var description: String {
        switch self {
        case .file(let b): return "file(\(b.count) bytes)"
        case .largeFile(let size, _): return "large file(\(size) bytes)"
        case .directory: return "directory"
        case .link(let t): return "link -> \(t)"
        case .other: return "other"
        }
    }
}

/// Every path under `root` (relative), never following a symbolic link.
public func snapshotTree(_ root: String, skipping skipped: Set<String> = []) -> [String: TreeEntry] {
    var result: [String: TreeEntry] = [:]
    func walk(_ relative: String) {
        let path = relative.isEmpty ? root : root + "/" + relative
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let kind = st.st_mode & S_IFMT
        if kind == S_IFLNK {
            var buf = [CChar](repeating: 0, count: 4096)
            let n = readlink(path, &buf, buf.count - 1)
            result[relative] = .link(n >= 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?")
        } else if kind == S_IFDIR {
            if !relative.isEmpty { result[relative] = .directory }
            for name in FileIO.listDirectory(atPath: path) {
                let child = relative.isEmpty ? name : relative + "/" + name
                if !skipped.contains(child) { walk(child) }
            }
        } else if kind == S_IFREG && st.st_size > 64 << 20 {
            result[relative] = .largeFile(size: Int(st.st_size), modified: Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec))
        } else if kind == S_IFREG {
            let bytes = (try? FileIO.readRegularFile(atPath: path, display: path)) ?? []
            result[relative] = .file(bytes)
        } else {
            result[relative] = .other
        }
    }
    walk("")
    return result
}

/// The differences between two snapshots: path → (before, after), nil meaning absent.
public func treeChanges(_ before: [String: TreeEntry], _ after: [String: TreeEntry]) -> [String: (TreeEntry?, TreeEntry?)] {
    var changes: [String: (TreeEntry?, TreeEntry?)] = [:]
    for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
        changes[key] = (before[key], after[key])
    }
    return changes
}

/// A temporary directory holding `<DOC>.lnote`, `sibling/` (outside the package, a target for
/// hostile links) and `export/` (the export output, outside both).
public final class HostileWorld {
    public let root: String
    public let package: String
    public let sibling: String
    public let exportDir: String
    public static let packageName = "\(IDs.doc).lnote"

    /// The package's writer: `put`, `makeValid`.
    public let builder: PackageBuilder

    public init(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws {
        let base = try temporaryDirectory("hostile", removedAfter: test)
        root = base
        builder = try PackageBuilder(in: base, documentID: IDs.doc, directories: ["pages", "assets"])
        package = builder.path
        sibling = base + "/sibling"
        exportDir = base + "/export"
        let fm = FileManager.default
        for dir in [sibling, sibling + "/pages", sibling + "/assets", sibling + "/thumbnails"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        // Things a link might reach for: a secret, a valid document and page, a valid image.
        try write(sibling + "/secret.txt", Array("do not touch\n".utf8))
        try write(sibling + "/document.json", Array(Self.documentJSON([(IDs.p1, 1000, 1000)]).utf8))
        try write(sibling + "/pages/\(IDs.p1).content", Array(Self.content([Self.stroke("S")]).utf8))
        try write(sibling + "/pages/\(IDs.p1).journal", Journal.encodeFrame(.delete, payload: Array("S".utf8)))
        try write(sibling + "/assets/\(IDs.asset).png", HostileImages.smallPNG)
        try write(sibling + "/thumbnails/\(IDs.p1).jpg", HostileImages.smallJPEG)
        try write(sibling + "/manifest.json", Array("{}".utf8))
    }

    // MARK: building the package

    public func write(_ absolute: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: absolute))
    }

    /// Writes a file of the package (relative path), byte for byte.
    public func put(_ relative: String, _ bytes: [UInt8]) throws { try builder.write(relative, bytes) }

    public func put(_ relative: String, _ text: String) throws { try builder.write(relative, text) }

    public func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: package + "/" + relative) }

    /// Makes `relative` inside the package a symbolic link to `target` (absolute or relative).
    public func link(_ relative: String, to target: String) throws {
        let path = package + "/" + relative
        try? FileManager.default.removeItem(atPath: path)
        guard symlink(target, path) == 0 else { throw NSError(domain: "symlink", code: Int(errno)) }
    }

    /// A sparse file of `size` bytes: it uses no disk, but claims to be huge.
    public func sparse(_ relative: String, size: Int) throws {
        let path = package + "/" + relative
        try? FileManager.default.removeItem(atPath: path)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard truncate(path, off_t(size)) == 0 else { throw NSError(domain: "truncate", code: Int(errno)) }
    }

    public func fifo(_ relative: String) throws {
        let path = package + "/" + relative
        try? FileManager.default.removeItem(atPath: path)
        guard mkfifo(path, 0o644) == 0 else { throw NSError(domain: "mkfifo", code: Int(errno)) }
    }

    /// A normal two-page document: page 1 with a stroke and an image, page 2 with a stroke, its
    /// content written by the library's element writer.
    public func makeValid(pages: [(String, Int, Int)] = [(IDs.p1, 1000, 800), (IDs.p2, 1000, 800)]) throws {
        try builder.writeDocument(title: "Hostile", createdAt: Self.createdAt,
                                  entries: pages.map { PackageBuilder.PageEntry(id: $0.0, width: $0.1, height: $0.2) })
        let grey = Color(r: 0x1A, g: 0x1A, b: 0x1A)
        for (i, page) in pages.enumerated() {
            var elements = [Element.stroke(id: "S\(i)", color: grey, points: [100, 100, 20, 500, 0, 600, 500, 30, 700, 16])]
            if i == 0 {
                elements.append(Element.image(id: "I0", placement: ImagePlacement(asset: "\(IDs.asset).png", x: 100, y: 100, width: 400, height: 300)))
            }
            try builder.writeContent(pageID: page.0, elements: elements)
        }
        try put("assets/\(IDs.asset).png", HostileImages.smallPNG)
    }

    // MARK: JSON builders

    public static func documentJSON(_ pages: [(String, Int, Int)], format: Int = 1) -> String {
        documentJSON(rawPages: pages.map { DocumentJSON.page($0.0, width: $0.1, height: $0.2) }, format: format)
    }

    public static func documentJSON(rawPages: [String], format: Int = 1) -> String {
        DocumentJSON.text(title: "Hostile", createdAt: createdAt, format: format, pages: rawPages)
    }

    static let createdAt = "2026-11-20T09:14:03Z"

    public static func content(_ elements: [String], format: Int? = 1) -> String {
        let f = format.map { "\"format\":\($0)," } ?? ""
        return "{\(f)\"elements\":[\n" + elements.joined(separator: ",\n") + "\n]}\n"
    }

    public static func stroke(_ id: String, points: String = "100,100,20,500,0, 600,500,30,700,16", tool: String = "pen",
                       color: String = "#1A1A1A") -> String {
        "{\"type\":\"stroke\",\"id\":\"\(id)\",\"tool\":\"\(tool)\",\"color\":\"\(color)\",\"points\":[\(points)]}"
    }

    public static func image(_ id: String, asset: String, frame: String = "100,100,400,300") -> String {
        "{\"type\":\"image\",\"id\":\"\(id)\",\"asset\":\(jsonString(asset)),\"frame\":[\(frame)]}"
    }

    public static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20: out += String(format: "\\u%04X", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    // MARK: snapshots

    /// Everything in the world except the export directory.
    public func snapshot() -> [String: TreeEntry] { snapshotTree(root, skipping: ["export"]) }

    public var packagePrefix: String { Self.packageName + "/" }
}

/// Tiny images, made with the project's own encoders so no binary file is needed.
public enum HostileImages {
    public static let smallPNG: [UInt8] = pngFile(width: 4, height: 3)
    public static let smallJPEG: [UInt8] = {
        // An 8×8 baseline JPEG, written with the project's encoder.
        let bitmap = Bitmap(width: 8, height: 8, fill: 200, isPremultiplied: true)
        return (try? JPEGEncoder.encode(bitmap, quality: 80)) ?? []
    }()

    /// A valid RGB PNG of `width` × `height` with stored (uncompressed) deflate blocks.
    public static func pngFile(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += [UInt8(x * 40 & 255), UInt8(y * 60 & 255), 128] }
        }
        return pngSignature + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
            + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// A PNG whose IHDR claims `width` × `height`, followed by a tiny (bogus) IDAT: the header
    /// reader stops at the IDAT, so the claimed size is all a decoder learns before deciding.
    public static func pngBomb(width: UInt32, height: UInt32) -> [UInt8] {
        pngSignature + chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", [])
    }

    /// A JPEG whose SOF0 claims `width` × `height` (one 8-bit component), then SOS and EOI:
    /// enough for libjpeg's header reader, nothing to decode.
    public static func jpegBomb(width: UInt16, height: UInt16) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)   // DQT
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 255),
                UInt8(width >> 8), UInt8(width & 255), 0x01, 0x01, 0x11, 0x00]     // SOF0
        out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]        // SOS
        out += [0x00, 0x00, 0xFF, 0xD9]
        return out
    }

    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    public static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        precondition(raw.count < 65535)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let n = UInt16(raw.count)
        return [0x78, 0x01, 0x01, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8(~n >> 8)] + raw + be32(b << 16 | a)
    }
}

/// Peak resident set size of this process in bytes: since the last `resetPeakRSS()` (VmHWM),
/// or since it started where /proc is missing (getrusage reports KiB on Linux).
public func peakRSS() -> Int {
    if let kilobytes = procStatus("VmHWM") { return kilobytes * 1024 }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

/// A "Name: N kB" line of /proc/self/status.
private func procStatus(_ name: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
        return Int(line.dropFirst(name.count + 1).split(separator: " ").first ?? "")
    }
    return nil
}

/// Lowers the peak RSS (VmHWM) to the current RSS: Linux resets it when a process writes 5 to
/// its /proc/self/clear_refs. False where that is not allowed.
@discardableResult
public func resetPeakRSS() -> Bool {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "5", 1) == 1
}

/// Runs `body`, returning its result with the wall time it took and how much it raised the
/// process's peak RSS. The peak is reset first where Linux allows it, so an earlier test's larger
/// allocation cannot hide this one's; elsewhere a large allocation raises the peak only when no
/// earlier one was larger still, so tests that use this keep their own data small.
public func measured<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double, peakGrowth: Int) {
    resetPeakRSS()
    let before = peakRSS()
    let start = DispatchTime.now().uptimeNanoseconds
    let value = try body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (value, seconds, peakRSS() - before)
}
