import Foundation
import LNoteRender
import XCTest

/// The README's "Using the library" example, built as a new user would: a package of its own
/// whose `main.swift` is the section's first ```swift block and whose `Package.swift` is the
/// second, depending on this repository **by version** (a local git clone of the working tree,
/// tagged), then run on the sample document.
///
/// SwiftPM refuses `unsafeFlags` in a versioned dependency, so this also proves the library's
/// targets have none. It runs offline (a `file://` URL). The clone and the example's build
/// directory live under `.build/library-example/` and are reused: a rerun only rebuilds what
/// changed, and a new tag is made only when the tree did.
final class LibraryExampleTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// `LNoteRenderer.version` as numbers: major, minor, patch.
    static var versionParts: [Int] { LNoteRenderer.version.split(separator: ".").compactMap { Int($0) } }
    /// `LNoteRenderer.version` as a regular expression matching it alone.
    static var versionPattern: String { LNoteRenderer.version.replacingOccurrences(of: ".", with: "\\.") }

    /// One version, said in one place: the README's examples depend on it, its CI example
    /// checks out its tag, and its release notes start with it.
    func testTheREADMESaysTheLibrarysVersion() throws {
        XCTAssertEqual(Self.versionParts.count, 3, "semantic version: \(LNoteRenderer.version)")
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let requirements = readme.components(separatedBy: "\", from: \"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertEqual(requirements.count, 2, "the two Package.swift examples")
        XCTAssertEqual(Set(requirements), [Substring(LNoteRenderer.version)])
        XCTAssertTrue(readme.contains("--branch \(LNoteRenderer.version) "), "the CI example's clone")
        let releases = try XCTUnwrap(readme.range(of: "\n## Releases\n"), "README lacks release notes")
        let firstRelease = readme[releases.upperBound...].components(separatedBy: "\n### ").dropFirst().first?.prefix { $0 != " " && $0 != "\n" }
        XCTAssertEqual(firstRelease.map(String.init), LNoteRenderer.version, "the newest release notes are this version's")
    }

    struct Ran {
        var status: Int32
        var output: String
    }

    /// Runs `executable` with `arguments`; stdout and stderr together.
    @discardableResult
    func run(_ executable: String, _ arguments: [String], in directory: String? = nil, timeout: TimeInterval = 900,
             environment: [String: String?] = [:]) throws -> Ran {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read while it runs, so a chatty build cannot fill the pipe and stall.
        let output = OutputCollector(pipe.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Ran(status: process.terminationStatus, output: output.finish())
    }

    final class OutputCollector: @unchecked Sendable {
        private var data = Data()
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    lock.lock(); data.append(chunk); lock.unlock()
                }
                done.signal()
            }
        }

        func finish() -> String {
            done.wait()
            lock.lock(); defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The first executable named `name` on PATH (and where `.ci/run` puts Swift).
    func find(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (path + ["/opt/swift/usr/bin", "/usr/bin"]).map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The ```swift blocks of the README's "Using the library" section, in order.
    func exampleBlocks() throws -> [String] {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n## Using the library\n"), "README lacks the section")
        let section = readme[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        return section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```").first! + "\n" }
    }

    /// The ```swift blocks of the README's "In Swift tests" part of "Snapshot testing".
    func snapshotExampleBlocks() throws -> [String] {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n### In Swift tests: `LNoteSnapshotTesting`\n"), "README lacks the part")
        let part = readme[start.upperBound...].components(separatedBy: "\n#").first ?? ""
        return part.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```").first! + "\n" }
    }

    /// Writes `text` only when it differs, so an unchanged file keeps its time stamp.
    func put(_ text: String, _ path: String) throws {
        if FileManager.default.contents(atPath: path) == Data(text.utf8) { return }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Makes `clone` a git repository holding the working tree's files (tracked and untracked,
    /// not ignored), committed and tagged `<major>.<minor>.N` of `LNoteRenderer.version` when they
    /// changed, N at least the version's own. Returns the newest tag.
    func syncClone(_ clone: String, git: String) throws -> String {
        let fm = FileManager.default
        let listed = try run(git, ["-C", Self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        XCTAssertEqual(listed.status, 0, listed.output)
        let files = Set(listed.output.split(separator: "\0").map(String.init).filter { fm.fileExists(atPath: Self.root + "/" + $0) })
        if !fm.fileExists(atPath: clone + "/.git") {
            try fm.createDirectory(atPath: clone, withIntermediateDirectories: true)
            XCTAssertEqual(try run(git, ["-C", clone, "init", "-q"]).status, 0)
        }
        for file in files {
            let source = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + file))
            let target = clone + "/" + file
            if fm.contents(atPath: target) != source {
                try fm.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try source.write(to: URL(fileURLWithPath: target))
            }
        }
        let inClone = try run(git, ["-C", clone, "ls-files", "-z"]).output.split(separator: "\0").map(String.init)
        for file in inClone where !files.contains(file) { try? fm.removeItem(atPath: clone + "/" + file) }
        let identity = ["-c", "user.name=lnote-render tests", "-c", "user.email=tests@lnote-render.invalid", "-c", "commit.gpgsign=false"]
        XCTAssertEqual(try run(git, ["-C", clone, "add", "-A"]).status, 0)
        let series = Self.versionParts.prefix(2).map(String.init).joined(separator: ".") + "."
        let tags = try run(git, ["-C", clone, "tag", "--list", series + "*"]).output.split(separator: "\n")
        let changed = try run(git, ["-C", clone, "diff", "--cached", "--quiet"]).status != 0
        guard changed || tags.isEmpty else {
            return series + "\(tags.compactMap { Int($0.split(separator: ".").last ?? "") }.max() ?? 0)"
        }
        if changed {
            let commit = try run(git, identity + ["-C", clone, "commit", "-q", "-m", "working tree for LibraryExampleTests"])
            XCTAssertEqual(commit.status, 0, commit.output)
        }
        let tag = series + "\(Self.versionParts[2] + tags.count)"
        let tagged = try run(git, ["-C", clone, "tag", tag])
        XCTAssertEqual(tagged.status, 0, tagged.output)
        return tag
    }

    func testReadmeExampleBuildsAgainstAVersionedDependencyAndRuns() throws {
        guard let swift = find("swift") else {
            throw XCTSkip("swift is not on PATH: the README's library example cannot be built here")
        }
        let git = try XCTUnwrap(find("git"), "git is needed to make the tagged clone")
        let blocks = try exampleBlocks()
        XCTAssertGreaterThanOrEqual(blocks.count, 2, "main.swift and Package.swift blocks")
        let main = blocks[0]
        XCTAssertTrue(main.contains("import LNoteRender"), main)
        let manifest = try XCTUnwrap(blocks.dropFirst().first { $0.contains("PackageDescription") })
        let requirement = try XCTUnwrap(manifest.range(of: #"\.package\(url: "[^"]+", from: "\#(Self.versionPattern)"\)"#, options: .regularExpression),
                                        "the manifest depends by version: \(manifest)")

        let work = Self.root + "/.build/library-example"
        let clone = work + "/lnote-render"
        let consumer = work + "/render-page"
        let tag = try syncClone(clone, git: git)
        try put(manifest.replacingCharacters(in: requirement, with: ".package(url: \"file://\(clone)\", from: \"\(LNoteRenderer.version)\")"),
                consumer + "/Package.swift")
        try put(main, consumer + "/Sources/render-page/main.swift")
        // Fetch the clone and resolve to its newest tag (what a user's `swift package update`
        // does), so the build is of the tree as it is now.
        let update = try run(swift, ["package", "--package-path", consumer, "--disable-dependency-cache", "update"])
        XCTAssertFalse(update.output.contains("unsafe build flags"), update.output)
        XCTAssertEqual(update.status, 0, update.output)
        let build = try run(swift, ["build", "--package-path", consumer, "--disable-dependency-cache"])
        XCTAssertFalse(build.output.contains("unsafe build flags"), build.output)
        XCTAssertEqual(build.status, 0, build.output)
        guard build.status == 0 else { return }
        let resolved = try String(contentsOfFile: consumer + "/Package.resolved", encoding: .utf8)
        XCTAssertTrue(resolved.contains("\"version\" : \"\(tag)\""), "resolved by version \(tag):\n\(resolved)")
        // The checkout built is the working tree's: its README is this one.
        XCTAssertEqual(FileManager.default.contents(atPath: consumer + "/.build/checkouts/lnote-render/README.md"),
                       FileManager.default.contents(atPath: Self.root + "/README.md"))

        let out = NSTemporaryDirectory() + "lnote-library-example-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let sample = Self.root + "/tools/sample/5F5C08FF-9739-4483-B5A4-3351D704D540.lnote"
        let binary = consumer + "/.build/debug/render-page"
        let ran = try run(binary, [sample, out])
        XCTAssertEqual(ran.status, 0, ran.output)
        XCTAssertTrue(ran.output.contains("Field trip notes: page 1 of 3 -> \(out)"), ran.output)
        // The example's file is exactly what the library renders here.
        let expected = try LNoteDocument(path: sample).png(page: 1, size: .scale(2))
        XCTAssertEqual(FileManager.default.contents(atPath: out), Data(expected))

        // The vector calls: the whole document as PDF, page 1 as SVG, as the library writes them.
        let document = try LNoteDocument(path: sample)
        let pdfOut = out + ".pdf", svgOut = out + ".svg"
        defer { try? FileManager.default.removeItem(atPath: pdfOut); try? FileManager.default.removeItem(atPath: svgOut) }
        let pdfRan = try run(binary, [sample, pdfOut])
        XCTAssertEqual(pdfRan.status, 0, pdfRan.output)
        XCTAssertTrue(pdfRan.output.contains("Field trip notes: pages [1, 2, 3] -> \(pdfOut)"), pdfRan.output)
        let reference = NSTemporaryDirectory() + "lnote-library-example-\(UUID().uuidString).pdf"
        defer { try? FileManager.default.removeItem(atPath: reference) }
        _ = try document.pdf(to: .file(reference))
        XCTAssertEqual(FileManager.default.contents(atPath: pdfOut), FileManager.default.contents(atPath: reference))
        let svgRan = try run(binary, [sample, svgOut])
        XCTAssertEqual(svgRan.status, 0, svgRan.output)
        XCTAssertEqual(FileManager.default.contents(atPath: svgOut), Data(try document.svg(page: 1)))

        let failed = try run(binary, [sample + "-missing", out + "-not-written"])
        XCTAssertEqual(failed.status, 1, failed.output)
        XCTAssertTrue(failed.output.contains("error: "), failed.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "-not-written"))
        XCTAssertEqual(try run(binary, []).status, 2)
    }

    /// The README's `LNoteSnapshotTesting` example as an app's test target, depending on this
    /// repository by version: built, run once recording (it must fail, saying what it wrote),
    /// then under CI=true against the goldens it wrote (it must pass).
    func testSnapshotTestingExampleBuildsAgainstAVersionedDependencyAndRuns() throws {
        guard let swift = find("swift") else {
            throw XCTSkip("swift is not on PATH: the README's snapshot testing example cannot be built here")
        }
        let git = try XCTUnwrap(find("git"), "git is needed to make the tagged clone")
        let blocks = try snapshotExampleBlocks()
        let test = try XCTUnwrap(blocks.first { $0.contains("import LNoteSnapshotTesting") })
        let manifest = try XCTUnwrap(blocks.first { $0.contains("PackageDescription") })
        let requirement = try XCTUnwrap(manifest.range(of: #"\.package\(url: "[^"]+", from: "\#(Self.versionPattern)"\)"#, options: .regularExpression),
                                        "the manifest depends by version: \(manifest)")
        let work = Self.root + "/.build/library-example"
        let clone = work + "/lnote-render"
        let consumer = work + "/notes-app"
        _ = try syncClone(clone, git: git)
        try put(manifest.replacingCharacters(in: requirement, with: ".package(url: \"file://\(clone)\", from: \"\(LNoteRenderer.version)\")"),
                consumer + "/Package.swift")
        let tests = consumer + "/Tests/NotesAppTests"
        try put(test, tests + "/NotesRenderingTests.swift")
        let fm = FileManager.default
        try? fm.removeItem(atPath: tests + "/Fixtures")
        try fm.createDirectory(atPath: tests + "/Fixtures", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Self.root + "/tools/sample/5F5C08FF-9739-4483-B5A4-3351D704D540.lnote", toPath: tests + "/Fixtures/Trip.lnote")
        try? fm.removeItem(atPath: tests + "/__Snapshots__")

        let update = try run(swift, ["package", "--package-path", consumer, "--disable-dependency-cache", "update"])
        XCTAssertEqual(update.status, 0, update.output)
        let build = try run(swift, ["build", "--build-tests", "--package-path", consumer, "--disable-dependency-cache"])
        XCTAssertFalse(build.output.contains("unsafe build flags"), build.output)
        XCTAssertEqual(build.status, 0, build.output)
        guard build.status == 0 else { return }

        let recording = try run(swift, ["test", "--skip-build", "--package-path", consumer],
                                environment: ["LNOTE_SNAPSHOT_RECORD": "missing", "CI": nil])
        XCTAssertNotEqual(recording.status, 0, "recording fails the tests once: \(recording.output)")
        XCTAssertTrue(recording.output.contains("recorded a new golden"), recording.output)
        let snapshots = tests + "/__Snapshots__/NotesRenderingTests"
        XCTAssertEqual((try? fm.contentsOfDirectory(atPath: snapshots))?.sorted(),
                       ["testCover.1.png", "testEveryPage.1.png", "testEveryPage.2.png", "testEveryPage.3.png"])
        let checking = try run(swift, ["test", "--skip-build", "--package-path", consumer],
                               environment: ["LNOTE_SNAPSHOT_RECORD": nil, "CI": "true"])
        XCTAssertEqual(checking.status, 0, checking.output)
    }
}
